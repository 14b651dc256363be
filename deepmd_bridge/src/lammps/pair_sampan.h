// LAMMPS pair style `sampan/deepmd`: any sampan Potential inside LAMMPS (spatial decomposition
// over MPI ranks, LAMMPS's own ghost atoms and integrators).
//
//   pair_style sampan/deepmd lj RCUT [shift yes|no]
//   pair_coeff I J EPS SIGMA          (eV, Å; I, J may be ranges such as * or 1*2)
//
// Each step the owned and ghost atoms of the rank go to Potential::compute_local as points in open
// space: the energy of the owned atoms and the forces on all of them come back; LAMMPS adds ghost
// forces to their owners (newton pair on, required) and sums energies over ranks. The virial is
// LAMMPS's sum of x . f over owned and ghost atoms (fdotr). The potential must be strictly local
// within its cutoff, which LAMMPS's ghost shell (cutoff + skin) covers.
#pragma once

#include <memory>
#include <vector>

#include "lammps/fmt_compat.h"  // first: before any LAMMPS header
#include "pair.h"
#include "sampan/deepmd/potential.h"

namespace sampan::deepmd::lammps {

class PairSampan : public LAMMPS_NS::Pair {
 public:
  explicit PairSampan(LAMMPS_NS::LAMMPS* lmp);
  ~PairSampan() override;
  void compute(int eflag, int vflag) override;
  void settings(int narg, char** arg) override;
  void coeff(int narg, char** arg) override;
  void init_style() override;
  double init_one(int i, int j) override;

 private:
  void allocate();
  void build_potential();
  double rcut_ = 0;
  bool shift_ = false;
  std::vector<double> eps_, sigma_;  // [ntypes, ntypes], 0-based
  std::unique_ptr<Potential> potential_;
  std::vector<double> positions_, forces_;
  std::vector<int> types_;
};

/// Registers `sampan/deepmd` in a LAMMPS instance (through Force::pair_map), so that input
/// scripts run by that instance can use it.
void register_pair_styles(LAMMPS_NS::LAMMPS* lmp);

}  // namespace sampan::deepmd::lammps
