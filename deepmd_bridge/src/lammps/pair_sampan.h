// LAMMPS pair style `sampan/deepmd`: any sampan Potential inside LAMMPS (spatial decomposition
// over MPI ranks, LAMMPS's own ghost atoms and integrators).
//
//   pair_style sampan/deepmd lj RCUT [shift yes|no]
//   pair_coeff I J EPS SIGMA          (eV, Å; I, J may be ranges such as * or 1*2)
//
//   pair_style sampan/deepmd model FILE   (DeePMD-kit YAML serialization, or a sampan model file)
//   pair_coeff * * O H                    (the model's type name of each LAMMPS type)
//
//   pair_style sampan/deepmd m0.h5 m1.h5 m2.h5 [out_freq N] [out_file FILE]
//     an ensemble (DeePMD-kit's pair_style deepmd with several models): model 0 drives the
//     dynamics; every N steps (default 100) the model deviation of all of them is appended to FILE
//     (default model_devi.out; columns of model_devi.h). The models must share cutoff and type
//     map. Under MPI the per-atom force deviations are reduced over ranks (max, min, sum) after
//     the ghost forces of every model reach their owners (reverse communication).
//   `sampan` is another name of the style.
//
//   pair_style sampan/deepmd [model] traced.h5 [cutoff RC]   (a traced energy graph, sampan.jit)
//   pair_coeff * * [O H | 0 1]            (type names when the file has them, else 0-based graph
//                                          types, else nothing: LAMMPS type i is graph type i - 1)
//
// Each step the owned and ghost atoms of the rank go to Potential::compute_local as points in open
// space: the energy of the owned atoms and the forces on all of them come back; LAMMPS adds ghost
// forces to their owners (newton pair on, required) and sums energies over ranks. The virial is
// the sum of x (x) f over owned and ghost atoms. The potential must be strictly local within its
// cutoff, which LAMMPS's ghost shell (cutoff + skin) covers. A potential without compute_local
// (the DeePMD model so far) runs on one rank: the owned atoms and LAMMPS's box go to
// Potential::compute, which handles the periodic images itself.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
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
  int pack_reverse_comm(int n, int first, double* buf) override;
  void unpack_reverse_comm(int n, int* list, double* buf) override;

 private:
  void allocate();
  void build_potential();
  void add_virial(const double* w);
  std::unique_ptr<Potential> load_potential(const std::string& path, double cutoff);
  Box lammps_box() const;
  void evaluate(Potential& potential, double* energy, std::vector<double>& forces, double* w);
  void write_model_deviation(const double* w0);
  double rcut_ = 0;
  bool shift_ = false;
  std::string model_path_;            // model mode when not empty
  bool graph_ = false;                // model mode with a traced energy graph (md::GraphPotential)
  std::vector<int> type_of_lammps_;   // model mode: [ntypes + 1], LAMMPS type -> model type
  bool whole_system_ = false;         // the potential has no compute_local: use compute()
  std::vector<double> eps_, sigma_;  // [ntypes, ntypes], 0-based
  std::unique_ptr<Potential> potential_;
  std::vector<double> positions_, forces_;
  std::vector<int> types_;
  // the ensemble: models 1.. (model 0 is potential_), and the model deviation output
  std::vector<std::unique_ptr<Potential>> ensemble_;
  std::vector<std::string> model_paths_;
  int out_freq_ = 100;
  std::string out_file_ = "model_devi.out";
  std::FILE* devi_out_ = nullptr;         // rank 0
  long long last_devi_step_ = -1;         // a step's row is written once
  std::vector<double> devi_forces_;       // [atoms][models][3], ghosts' reverse-communicated
};

/// Registers `sampan/deepmd` in a LAMMPS instance (through Force::pair_map), so that input
/// scripts run by that instance can use it.
void register_pair_styles(LAMMPS_NS::LAMMPS* lmp);

}  // namespace sampan::deepmd::lammps
