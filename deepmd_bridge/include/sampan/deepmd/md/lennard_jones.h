// The Lennard-Jones pair potential (LAMMPS pair_style lj/cut in `units metal`) as a Potential,
// and the pair-list form that the ops deepmd::lj_energy / deepmd::lj_gradients take.
//
//   u_ab(r) = 4 eps_ab [(sigma_ab/r)^12 - (sigma_ab/r)^6] (- u_ab(rcut) when shifted), r < rcut
//
// eps in eV, sigma and rcut in Å. No tail correction. With `shift` false this is LAMMPS's default
// (pair_modify shift no); with true, pair_modify shift yes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sampan/deepmd/neighbor_list.h"
#include "sampan/deepmd/potential.h"
#include "sampan/tensor.h"

namespace sampan::deepmd::md {

class LennardJones : public Potential {
 public:
  /// eps and sigma are [ntypes, ntypes] row-major and must be symmetric; sigma > 0, rcut > 0.
  /// The pair terms run over a half list with periodic images as ghost atoms, in SIMD lanes and
  /// OpenMP threads (from 2,048 atoms); the bits depend on the thread count and the vector width.
  /// `skin` (Å) > 0 keeps a Verlet list built at rcut + skin and rebuilds it only when an atom
  /// has moved more than skin / 2 since the last build (or the box or atom count changed); the
  /// result does not depend on the skin, only the cost does.
  LennardJones(int ntypes, std::vector<double> eps, std::vector<double> sigma, double rcut, bool shift = false,
               double skin = 0.0);
  /// One atom type.
  static std::unique_ptr<LennardJones> single(double eps, double sigma, double rcut, bool shift = false,
                                              double skin = 0.0);

  void compute(const double* positions, const int* types, int64_t natoms, const Box& box, double* energy,
               double* forces, double* virial) override;
  void compute_local(const double* positions, const int* types, int64_t nlocal, int64_t natoms, double* energy,
                     double* forces) override;
  double cutoff() const override { return rcut_; }
  int ntypes() const override { return ntypes_; }
  std::string describe() const override;

  const std::vector<double>& eps() const { return eps_; }
  const std::vector<double>& sigma() const { return sigma_; }
  bool shift() const { return shift_; }
  /// How many times the neighbour list was built (the cost the skin saves).
  int64_t list_builds() const { return builds_; }

 private:
  bool list_is_stale(const double* positions, int64_t natoms, const Box& box) const;
  void evaluate(const double* positions, const int* types, int64_t nlocal, int64_t natoms, const Box& box,
                double* energy, double* forces, double* virial);
  int ntypes_;
  std::vector<double> eps_, sigma_;
  double rcut_, skin_;
  bool shift_;
  struct Workspace;  // the ghosted list, the positions it was built at, the pair loop's buffers
  std::shared_ptr<Workspace> work_;
  int64_t builds_ = 0;
  std::shared_ptr<const void> coefficients_;  // kernels::LjCoefficients (kept out of this header)
};

/// The half list of `list` (each unordered pair once) as the op inputs: pairs [P, 2] int64 and
/// Cartesian image shifts [P, 3] float64 (n . cell), so d = pos[j] - pos[i] + shifts[p].
std::pair<Tensor, Tensor> pair_tensors(const NeighborList& list, const Box& box);

/// deepmd::lj_energy: the energy (0-d tensor) of the pairs, differentiable twice in pos and shifts.
Tensor lj_energy(const Tensor& pos, const Tensor& types, const Tensor& pairs, const Tensor& shifts,
                 const std::vector<double>& eps, const std::vector<double>& sigma, double rcut, bool shift);

}  // namespace sampan::deepmd::md
