// deepmd_bridge internal: the sample arguments of the module's ops (.sample in their SAMPAN_OP).
// se_a(): six atoms in an open box, two types, sel = [2, 3], so that some centres have empty slots
// (padding), one pair sits inside rcut_smth and several between rcut_smth and rcut.
#pragma once

#include "sampan/op.h"

namespace sampan::deepmd::samples {

struct SeA {
  Tensor coord, atype, nlist, davg, dstd, net_deriv, em_deriv, rij, grad_virial, grad_atom_virial, grad_force;
  int64_t nall = 0;
  static constexpr double rcut = 3.0, rcut_smth = 0.8;
};

/// A fresh copy each call (check_op may write into in-place arguments).
SeA se_a();

/// 12 row indices into a 6-row table (3 centres x 4 slots): some rows shared, row 5 never named
/// (its gradient must be 0).
Tensor gather_rows();

/// The Lennard-Jones ops' arguments (pos, types, pairs, shifts, eps, sigma, rcut, shift): a
/// jittered 4-atom fcc cell in a small triclinic box with rcut beyond half of it (pairs with
/// several images, and self images), two types.
Values lj();

}  // namespace sampan::deepmd::samples
