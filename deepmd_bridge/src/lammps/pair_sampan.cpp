// The sampan/deepmd pair style (pair_sampan.h).
#include "lammps/pair_sampan.h"

#include <cstring>
#include <string>

#include "atom.h"
#include "error.h"
#include "force.h"
#include "memory.h"
#include "sampan/deepmd/md/lennard_jones.h"
#include "utils.h"

using namespace LAMMPS_NS;

namespace sampan::deepmd::lammps {

PairSampan::PairSampan(LAMMPS* lmp) : Pair(lmp) {
  single_enable = 0;   // no single(): the potential need not be pairwise
  restartinfo = 0;
  manybody_flag = 1;   // a general potential (the DeePMD model is many-body)
  one_coeff = 0;
}

PairSampan::~PairSampan() {
  if (allocated) {
    memory->destroy(setflag);
    memory->destroy(cutsq);
  }
}

void PairSampan::allocate() {
  allocated = 1;
  const int n = atom->ntypes;
  memory->create(setflag, n + 1, n + 1, "pair:setflag");
  memory->create(cutsq, n + 1, n + 1, "pair:cutsq");
  for (int i = 1; i <= n; ++i)
    for (int j = i; j <= n; ++j) setflag[i][j] = 0;
  eps_.assign(static_cast<size_t>(n * n), 0.0);
  sigma_.assign(static_cast<size_t>(n * n), 1.0);
}

void PairSampan::settings(int narg, char** arg) {
  if (narg < 2 || std::strcmp(arg[0], "lj") != 0)
    error->all(FLERR, std::string("Illegal pair_style sampan/deepmd command: expected 'lj RCUT [shift yes|no]' "
                      "(the only potential available to LAMMPS so far)"));
  rcut_ = utils::numeric(FLERR, arg[1], false, lmp);
  if (rcut_ <= 0) error->all(FLERR, std::string("pair_style sampan/deepmd: RCUT must be > 0 (Å)"));
  shift_ = false;
  for (int k = 2; k < narg; k += 2) {
    const std::string key = arg[k], value = k + 1 < narg ? arg[k + 1] : "";
    if (key != "shift" || (value != "yes" && value != "no"))
      error->all(FLERR, "pair_style sampan/deepmd: expected 'shift yes' or 'shift no', got '" + key + " " + value + "'");
    shift_ = value == "yes";
  }
  potential_.reset();
}

void PairSampan::coeff(int narg, char** arg) {
  if (narg != 4) error->all(FLERR, std::string("Incorrect args for pair_coeff sampan/deepmd lj: expected I J EPS SIGMA"));
  if (!allocated) allocate();
  int ilo, ihi, jlo, jhi;
  utils::bounds(FLERR, arg[0], 1, atom->ntypes, ilo, ihi, error);
  utils::bounds(FLERR, arg[1], 1, atom->ntypes, jlo, jhi, error);
  const double eps = utils::numeric(FLERR, arg[2], false, lmp);
  const double sigma = utils::numeric(FLERR, arg[3], false, lmp);
  if (sigma <= 0) error->all(FLERR, std::string("pair_coeff sampan/deepmd lj: SIGMA must be > 0 (Å)"));
  const int n = atom->ntypes;
  int count = 0;
  for (int i = ilo; i <= ihi; ++i)
    for (int j = std::max(jlo, i); j <= jhi; ++j) {
      eps_[(i - 1) * n + (j - 1)] = eps_[(j - 1) * n + (i - 1)] = eps;
      sigma_[(i - 1) * n + (j - 1)] = sigma_[(j - 1) * n + (i - 1)] = sigma;
      setflag[i][j] = 1;
      ++count;
    }
  if (count == 0) error->all(FLERR, std::string("Incorrect args for pair coefficients"));
  potential_.reset();
}

void PairSampan::init_style() {
  // Ghost forces must reach their owners by reverse communication.
  if (force->newton_pair == 0) error->all(FLERR, std::string("Pair style sampan/deepmd requires newton pair on"));
  // No LAMMPS neighbour list: the potential builds its own from the owned and ghost atoms.
}

double PairSampan::init_one(int i, int j) {
  if (setflag[i][j] == 0)
    error->all(FLERR, std::string("All pair coeffs are not set (sampan/deepmd lj has no mixing rule: give every I J pair)"));
  return rcut_;
}

void PairSampan::build_potential() {
  potential_ = std::make_unique<md::LennardJones>(atom->ntypes, eps_, sigma_, rcut_, shift_, 0.0);
}

void PairSampan::compute(int eflag, int vflag) {
  ev_init(eflag, vflag);
  if (!potential_) {
    try {
      build_potential();
    } catch (const std::exception& e) {
      error->all(FLERR, std::string("pair sampan/deepmd: ") + e.what());
    }
  }
  const int nlocal = atom->nlocal, nall = atom->nlocal + atom->nghost;
  double** x = atom->x;
  double** f = atom->f;
  positions_.resize(static_cast<size_t>(3 * nall));
  types_.resize(static_cast<size_t>(nall));
  forces_.resize(static_cast<size_t>(3 * nall));
  for (int i = 0; i < nall; ++i) {
    for (int k = 0; k < 3; ++k) positions_[3 * i + k] = x[i][k];
    types_[i] = atom->type[i] - 1;
  }
  double energy = 0;
  try {
    potential_->compute_local(positions_.data(), types_.data(), nlocal, nall, &energy, forces_.data());
  } catch (const std::exception& e) {
    error->one(FLERR, std::string("pair sampan/deepmd: ") + e.what());
  }
  for (int i = 0; i < nall; ++i)
    for (int k = 0; k < 3; ++k) f[i][k] += forces_[3 * i + k];
  if (eflag_global) eng_vdwl += energy;
  if (vflag_fdotr) virial_fdotr_compute();
}

namespace {
Pair* create_pair_sampan(LAMMPS* lmp) { return new PairSampan(lmp); }
}  // namespace

void register_pair_styles(LAMMPS* lmp) { (*lmp->force->pair_map)["sampan/deepmd"] = &create_pair_sampan; }

}  // namespace sampan::deepmd::lammps
