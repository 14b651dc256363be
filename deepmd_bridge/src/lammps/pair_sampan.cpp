// The sampan/deepmd pair style (pair_sampan.h).
#include "lammps/pair_sampan.h"

#include <cstring>
#include <string>

#include "atom.h"
#include "comm.h"
#include "domain.h"
#include "error.h"
#include "force.h"
#include "memory.h"
#include "sampan/deepmd/deep_pot.h"
#include "sampan/deepmd/md/graph_potential.h"
#include "sampan/deepmd/md/lennard_jones.h"
#include "sampan/error.h"
#include "utils.h"

using namespace LAMMPS_NS;

namespace sampan::deepmd::lammps {

PairSampan::PairSampan(LAMMPS* lmp) : Pair(lmp) {
  single_enable = 0;   // no single(): the potential need not be pairwise
  restartinfo = 0;
  manybody_flag = 1;   // a general potential (the DeePMD model is many-body)
  one_coeff = 0;
  no_virial_fdotr_compute = 1;  // the virial is summed here (both modes)
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
  potential_.reset();
  model_path_.clear();
  // 'model FILE [cutoff RC]' or 'FILE [cutoff RC]': a DeePMD model, or a traced energy graph
  // (sampan.jit graph file, detected by its format key).
  const bool model_keyword = narg >= 2 && std::strcmp(arg[0], "model") == 0;
  const bool bare_file = narg >= 1 && std::strcmp(arg[0], "lj") != 0 && std::strcmp(arg[0], "model") != 0;
  if (model_keyword || bare_file) {
    const int first = model_keyword ? 1 : 0;
    model_path_ = arg[first];
    double cutoff = -1;
    for (int k = first + 1; k < narg; k += 2) {
      if (std::strcmp(arg[k], "cutoff") != 0 || k + 1 >= narg)
        error->all(FLERR, "pair_style sampan/deepmd " + model_path_ + ": expected 'cutoff RC' after the file, got '" +
                              std::string(arg[k]) + "'");
      cutoff = utils::numeric(FLERR, arg[k + 1], false, lmp);
    }
    graph_ = false;
    try {
      if (md::GraphPotential::is_graph_file(model_path_)) {
        auto graph = std::make_unique<md::GraphPotential>(md::GraphPotential::load(model_path_));
        if (cutoff >= 0) graph->set_cutoff(cutoff);
        graph_ = true;
        potential_ = std::move(graph);
      } else {
        const bool yaml = model_path_.size() > 5 && (model_path_.substr(model_path_.size() - 5) == ".yaml" ||
                                                     model_path_.substr(model_path_.size() - 4) == ".yml");
        potential_ = std::make_unique<DeepPot>(yaml ? DeepPot::from_deepmd_yaml(model_path_) : DeepPot::load(model_path_));
      }
    } catch (const std::exception& e) {
      error->all(FLERR, std::string("pair_style sampan/deepmd model: ") + e.what());
    }
    rcut_ = potential_->cutoff();
    if (rcut_ <= 0)
      error->all(FLERR, "pair_style sampan/deepmd " + model_path_ +
                            ": the graph file names no cutoff (save it with sampan.deepmd.md.save_potential(..., "
                            "cutoff=RC)) and none was given: add 'cutoff RC' (Å)");
    one_coeff = 1;
    return;
  }
  if (narg < 2 || std::strcmp(arg[0], "lj") != 0)
    error->all(FLERR, std::string("Illegal pair_style sampan/deepmd command: expected 'lj RCUT [shift yes|no]' or "
                                  "'model FILE'"));
  one_coeff = 0;
  rcut_ = utils::numeric(FLERR, arg[1], false, lmp);
  if (rcut_ <= 0) error->all(FLERR, std::string("pair_style sampan/deepmd: RCUT must be > 0 (Å)"));
  shift_ = false;
  for (int k = 2; k < narg; k += 2) {
    const std::string key = arg[k], value = k + 1 < narg ? arg[k + 1] : "";
    if (key != "shift" || (value != "yes" && value != "no"))
      error->all(FLERR, "pair_style sampan/deepmd: expected 'shift yes' or 'shift no', got '" + key + " " + value + "'");
    shift_ = value == "yes";
  }
}

void PairSampan::coeff(int narg, char** arg) {
  if (!allocated) allocate();
  const int n = atom->ntypes;
  if (!model_path_.empty()) {
    // pair_coeff * * NAME1 NAME2 ...: the model type of every LAMMPS type, by name. A traced
    // graph without type names: '* *' alone (LAMMPS type i is graph type i - 1) or one 0-based
    // graph type per LAMMPS type.
    const std::vector<std::string>& names = graph_ ? static_cast<md::GraphPotential*>(potential_.get())->type_map()
                                                   : static_cast<DeepPot*>(potential_.get())->config.type_map;
    const bool graph_by_index = graph_ && names.empty();
    if (std::strcmp(arg[0], "*") != 0 || std::strcmp(arg[1], "*") != 0 ||
        (narg != 2 + n && !(graph_by_index && narg == 2)))
      error->all(FLERR, "pair_coeff sampan/deepmd model: expected '* *' and one type " +
                            std::string(graph_by_index ? "index (0-based; or none: LAMMPS type i is graph type i - 1)"
                                                       : "name") +
                            " per LAMMPS type (" + std::to_string(n) + ")");
    type_of_lammps_.assign(static_cast<size_t>(n + 1), -1);
    if (graph_by_index) {
      for (int i = 1; i <= n; ++i) {
        type_of_lammps_[i] = narg == 2 ? i - 1 : utils::inumeric(FLERR, arg[1 + i], false, lmp);
        if (type_of_lammps_[i] < 0)
          error->all(FLERR, "pair_coeff sampan/deepmd model: graph type " + std::to_string(type_of_lammps_[i]) +
                                " of LAMMPS type " + std::to_string(i) + " must be >= 0");
        for (int j = i; j <= n; ++j) setflag[i][j] = 1;
      }
      return;
    }
    for (int i = 1; i <= n; ++i) {
      for (size_t k = 0; k < names.size(); ++k)
        if (names[k] == arg[1 + i]) type_of_lammps_[i] = static_cast<int>(k);
      if (type_of_lammps_[i] < 0) {
        std::string known;
        for (auto& nm : names) known += " " + nm;
        error->all(FLERR, "pair_coeff sampan/deepmd model: type name '" + std::string(arg[1 + i]) +
                              "' is not in the model's type map:" + known);
      }
      for (int j = i; j <= n; ++j) setflag[i][j] = 1;
    }
    return;
  }
  if (narg != 4) error->all(FLERR, std::string("Incorrect args for pair_coeff sampan/deepmd lj: expected I J EPS SIGMA"));
  int ilo, ihi, jlo, jhi;
  utils::bounds(FLERR, arg[0], 1, atom->ntypes, ilo, ihi, error);
  utils::bounds(FLERR, arg[1], 1, atom->ntypes, jlo, jhi, error);
  const double eps = utils::numeric(FLERR, arg[2], false, lmp);
  const double sigma = utils::numeric(FLERR, arg[3], false, lmp);
  if (sigma <= 0) error->all(FLERR, std::string("pair_coeff sampan/deepmd lj: SIGMA must be > 0 (Å)"));
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

void PairSampan::add_virial(const double* w) {
  // LAMMPS's order: xx, yy, zz, xy, xz, yz.
  virial[0] += w[0];
  virial[1] += w[4];
  virial[2] += w[8];
  virial[3] += w[1];
  virial[4] += w[2];
  virial[5] += w[5];
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
  const int n = whole_system_ ? nlocal : nall;
  positions_.resize(static_cast<size_t>(3 * n));
  types_.resize(static_cast<size_t>(n));
  forces_.assign(static_cast<size_t>(3 * n), 0.0);
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < 3; ++k) positions_[3 * i + k] = x[i][k];
    types_[i] = model_path_.empty() ? atom->type[i] - 1 : type_of_lammps_[atom->type[i]];
  }
  double energy = 0, w[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  try {
    if (!whole_system_) {
      try {
        potential_->compute_local(positions_.data(), types_.data(), nlocal, nall, &energy, forces_.data());
        // W = sum over owned and ghost atoms of x (x) f (the potential is translation invariant).
        for (int i = 0; i < nall; ++i)
          for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) w[3 * a + b] += positions_[3 * i + a] * forces_[3 * i + b];
      } catch (const sampan::NotImplementedError&) {
        if (comm->nprocs > 1)
          error->all(FLERR, "pair sampan/deepmd: " + potential_->describe() +
                                " provides no compute_local (owned + ghost atoms), so it runs on one MPI rank only");
        whole_system_ = true;
      }
    }
    if (whole_system_) {
      // One rank: the owned atoms are the whole system; the potential handles the periodic images.
      Box box;
      box.cell = {domain->xprd, 0, 0, domain->xy, domain->yprd, 0, domain->xz, domain->yz, domain->zprd};
      box.periodic = {domain->xperiodic != 0, domain->yperiodic != 0, domain->zperiodic != 0};
      positions_.resize(static_cast<size_t>(3 * nlocal));
      types_.resize(static_cast<size_t>(nlocal));
      forces_.assign(static_cast<size_t>(3 * nlocal), 0.0);
      potential_->compute(positions_.data(), types_.data(), nlocal, box, &energy, forces_.data(), w);
    }
  } catch (const std::exception& e) {
    error->one(FLERR, std::string("pair sampan/deepmd: ") + e.what());
  }
  const int nf = static_cast<int>(forces_.size() / 3);
  for (int i = 0; i < nf; ++i)
    for (int k = 0; k < 3; ++k) f[i][k] += forces_[3 * i + k];
  if (eflag_global) eng_vdwl += energy;
  if (vflag_global) add_virial(w);
}

namespace {
Pair* create_pair_sampan(LAMMPS* lmp) { return new PairSampan(lmp); }
}  // namespace

void register_pair_styles(LAMMPS* lmp) { (*lmp->force->pair_map)["sampan/deepmd"] = &create_pair_sampan; }

}  // namespace sampan::deepmd::lammps
