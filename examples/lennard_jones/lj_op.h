// C++ functions for the Lennard-Jones ops of this example (registered by lj_op.cpp, which is
// compiled into an op library: load it with sampan::load_op_library before calling these).
// Header-only on purpose: a program that loads the library at run time needs no link to it.
#pragma once

#include <vector>

#include "sampan/op.h"

namespace md {

/// Shifted Lennard-Jones energy of the pairs `pairs` (half list) of atoms `pos` in the
/// orthorhombic periodic box `box` (minimum image): a 0-d tensor.
inline sampan::Tensor lj_energy(const sampan::Tensor& pos, const sampan::Tensor& pairs,
                                const sampan::Tensor& box, double eps, double sigma, double rcut) {
  static const sampan::OpHandle op("md::lj_energy");
  return op(pos, pairs, box, eps, sigma, rcut)[0];
}

/// Forces -dE/dpos, [N, 3].
inline sampan::Tensor lj_forces(const sampan::Tensor& pos, const sampan::Tensor& pairs,
                                const sampan::Tensor& box, double eps, double sigma, double rcut) {
  static const sampan::OpHandle op("md::lj_forces");
  return op(pos, pairs, box, eps, sigma, rcut)[0];
}

/// dE/dbox at fixed Cartesian positions, [3].
inline sampan::Tensor lj_box_grad(const sampan::Tensor& pos, const sampan::Tensor& pairs,
                                  const sampan::Tensor& box, double eps, double sigma, double rcut) {
  static const sampan::OpHandle op("md::lj_box_grad");
  return op(pos, pairs, box, eps, sigma, rcut)[0];
}

/// Hessian of the energy over (pos, box) applied to (v_pos, v_box): {h_pos [N, 3], h_box [3]}.
inline std::vector<sampan::Tensor> lj_hvp(const sampan::Tensor& pos, const sampan::Tensor& pairs,
                                          const sampan::Tensor& box, const sampan::Tensor& v_pos,
                                          const sampan::Tensor& v_box, double eps, double sigma,
                                          double rcut) {
  static const sampan::OpHandle op("md::lj_hvp");
  return op(pos, pairs, box, v_pos, v_box, eps, sigma, rcut);
}

}  // namespace md
