// The sampan/deepmd pair style (pair_sampan.h).
#include "lammps/pair_sampan.h"

#include <cstring>
#include <string>

#include <mpi.h>

#include "atom.h"
#include "comm.h"
#include "domain.h"
#include "error.h"
#include "force.h"
#include "lammps/model_devi.h"
#include "memory.h"
#include "update.h"
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
  if (devi_out_) std::fclose(devi_out_);
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

std::unique_ptr<Potential> PairSampan::load_potential(const std::string& path, double cutoff) {
  if (md::GraphPotential::is_graph_file(path)) {
    auto graph = std::make_unique<md::GraphPotential>(md::GraphPotential::load(path));
    if (cutoff >= 0) graph->set_cutoff(cutoff);
    return graph;
  }
  const bool yaml = path.size() > 5 && (path.substr(path.size() - 5) == ".yaml" || path.substr(path.size() - 4) == ".yml");
  return std::make_unique<DeepPot>(yaml ? DeepPot::from_deepmd_yaml(path) : DeepPot::load(path));
}

static const std::vector<std::string>& type_names(Potential& p, bool graph) {
  return graph ? static_cast<md::GraphPotential&>(p).type_map() : static_cast<DeepPot&>(p).config.type_map;
}

void PairSampan::settings(int narg, char** arg) {
  potential_.reset();
  ensemble_.clear();
  model_paths_.clear();
  model_path_.clear();
  if (devi_out_) {
    std::fclose(devi_out_);
    devi_out_ = nullptr;
  }
  // '[model] FILE... [cutoff RC] [out_freq N] [out_file F]': DeePMD models or traced energy
  // graphs (sampan.jit graph file, detected by its format key); several files: an ensemble.
  const bool model_keyword = narg >= 2 && std::strcmp(arg[0], "model") == 0;
  const bool bare_file = narg >= 1 && std::strcmp(arg[0], "lj") != 0 && std::strcmp(arg[0], "model") != 0;
  if (model_keyword || bare_file) {
    auto is_keyword = [](const char* a) {
      return std::strcmp(a, "cutoff") == 0 || std::strcmp(a, "out_freq") == 0 || std::strcmp(a, "out_file") == 0;
    };
    int k = model_keyword ? 1 : 0;
    for (; k < narg && !is_keyword(arg[k]); ++k) model_paths_.push_back(arg[k]);
    if (model_paths_.empty()) error->all(FLERR, std::string("pair_style sampan/deepmd model: expected a model file"));
    model_path_ = model_paths_[0];
    double cutoff = -1;
    out_freq_ = 100;
    out_file_ = "model_devi.out";
    for (; k < narg; k += 2) {
      const std::string key = arg[k];
      if (!is_keyword(arg[k]) || k + 1 >= narg)
        error->all(FLERR, "pair_style sampan/deepmd " + model_path_ +
                              ": expected 'cutoff RC', 'out_freq N' or 'out_file FILE' after the model files, got '" +
                              key + "'");
      if (key == "cutoff") cutoff = utils::numeric(FLERR, arg[k + 1], false, lmp);
      if (key == "out_freq") out_freq_ = utils::inumeric(FLERR, arg[k + 1], false, lmp);
      if (key == "out_file") out_file_ = arg[k + 1];
    }
    if (out_freq_ < 1) error->all(FLERR, "pair_style sampan/deepmd: out_freq must be >= 1 (steps), got " +
                                             std::to_string(out_freq_));
    try {
      graph_ = md::GraphPotential::is_graph_file(model_path_);
      potential_ = load_potential(model_path_, cutoff);
      for (size_t m = 1; m < model_paths_.size(); ++m) {
        const std::string& path = model_paths_[m];
        if (md::GraphPotential::is_graph_file(path) != graph_)
          error->all(FLERR, "pair_style sampan/deepmd: " + path + " and " + model_path_ +
                                " are not of one kind (DeePMD model / traced graph)");
        ensemble_.push_back(load_potential(path, cutoff));
        if (ensemble_.back()->cutoff() != potential_->cutoff() ||
            type_names(*ensemble_.back(), graph_) != type_names(*potential_, graph_))
          error->all(FLERR, "pair_style sampan/deepmd: " + path + " has another cutoff or type map than " +
                                model_path_ + "; the models of an ensemble must share both");
      }
    } catch (const std::exception& e) {
      error->all(FLERR, std::string("pair_style sampan/deepmd model: ") + e.what());
    }
    rcut_ = potential_->cutoff();
    if (rcut_ <= 0)
      error->all(FLERR, "pair_style sampan/deepmd " + model_path_ +
                            ": the graph file names no cutoff (save it with sampan.deepmd.md.save_potential(..., "
                            "cutoff=RC)) and none was given: add 'cutoff RC' (Å)");
    comm_reverse = ensemble_.empty() ? 0 : 3 * static_cast<int>(model_paths_.size());
    last_devi_step_ = -1;
    if (!ensemble_.empty() && comm->me == 0) {
      devi_out_ = std::fopen(out_file_.c_str(), "w");
      if (!devi_out_) error->one(FLERR, "pair_style sampan/deepmd: cannot write out_file " + out_file_);
      std::fputs(model_devi_header().c_str(), devi_out_);
      std::fflush(devi_out_);
    }
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
    const std::vector<std::string>& names = type_names(*potential_, graph_);
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

Box PairSampan::lammps_box() const {
  Box box;
  box.cell = {domain->xprd, 0, 0, domain->xy, domain->yprd, 0, domain->xz, domain->yz, domain->zprd};
  box.periodic = {domain->xperiodic != 0, domain->yperiodic != 0, domain->zperiodic != 0};
  return box;
}

void PairSampan::evaluate(Potential& potential, double* energy, std::vector<double>& forces, double* w) {
  // positions_ / types_ hold the owned (+ ghost, unless whole_system_) atoms.
  const int nlocal = atom->nlocal, n = static_cast<int>(types_.size());
  forces.assign(static_cast<size_t>(3 * n), 0.0);
  for (int c = 0; c < 9; ++c) w[c] = 0;
  *energy = 0;
  if (whole_system_) {
    // One rank: the owned atoms are the whole system; the potential handles the periodic images.
    potential.compute(positions_.data(), types_.data(), nlocal, lammps_box(), energy, forces.data(), w);
    return;
  }
  potential.compute_local(positions_.data(), types_.data(), nlocal, n, energy, forces.data());
  // W = sum over owned and ghost atoms of x (x) f (the potential is translation invariant).
  for (int i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) w[3 * a + b] += positions_[3 * i + a] * forces[3 * i + b];
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
  for (int i = 0; i < n; ++i) {
    for (int k = 0; k < 3; ++k) positions_[3 * i + k] = x[i][k];
    types_[i] = model_path_.empty() ? atom->type[i] - 1 : type_of_lammps_[atom->type[i]];
  }
  double energy = 0, w[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  try {
    if (!whole_system_) {
      try {
        evaluate(*potential_, &energy, forces_, w);
      } catch (const sampan::NotImplementedError&) {
        if (comm->nprocs > 1)
          error->all(FLERR, "pair sampan/deepmd: " + potential_->describe() +
                                " provides no compute_local (owned + ghost atoms), so it runs on one MPI rank only");
        whole_system_ = true;
      }
    }
    if (whole_system_) {
      positions_.resize(static_cast<size_t>(3 * nlocal));
      types_.resize(static_cast<size_t>(nlocal));
      evaluate(*potential_, &energy, forces_, w);
    }
  } catch (const std::exception& e) {
    error->one(FLERR, std::string("pair sampan/deepmd: ") + e.what());
  }
  const int nf = static_cast<int>(forces_.size() / 3);
  for (int i = 0; i < nf; ++i)
    for (int k = 0; k < 3; ++k) f[i][k] += forces_[3 * i + k];
  if (eflag_global) eng_vdwl += energy;
  if (vflag_global) add_virial(w);
  const long long step = static_cast<long long>(update->ntimestep);
  if (!ensemble_.empty() && step % out_freq_ == 0 && step != last_devi_step_) {
    last_devi_step_ = step;
    write_model_deviation(w);
  }
}

void PairSampan::write_model_deviation(const double* w0) {
  const int nmodels = static_cast<int>(ensemble_.size()) + 1, nlocal = atom->nlocal;
  const int n = static_cast<int>(types_.size());
  devi_forces_.assign(static_cast<size_t>(n) * 3 * nmodels, 0.0);
  std::vector<double> virials(static_cast<size_t>(9 * nmodels), 0.0), forces;
  auto keep = [&](int k, const std::vector<double>& fk, const double* wk) {
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < 3; ++c) devi_forces_[(static_cast<size_t>(i) * nmodels + k) * 3 + c] = fk[3 * i + c];
    for (int c = 0; c < 9; ++c) virials[9 * k + c] = wk[c] / static_cast<double>(atom->natoms);
  };
  keep(0, forces_, w0);
  try {
    for (int k = 1; k < nmodels; ++k) {
      double energy = 0, w[9];
      evaluate(*ensemble_[k - 1], &energy, forces, w);
      keep(k, forces, w);
    }
  } catch (const std::exception& e) {
    error->one(FLERR, std::string("pair sampan/deepmd (model deviation): ") + e.what());
  }
  // the ghosts' forces of every model to their owners, as LAMMPS does for model 0's
  if (!whole_system_) comm->reverse_comm_pair(this);
  Deviation local;
  for (int i = 0; i < nlocal; ++i) {
    const double e = atom_force_deviation(&devi_forces_[static_cast<size_t>(i) * nmodels * 3], nmodels);
    local.max = std::max(local.max, e);
    local.min = std::min(local.min, e);
    local.avg += e;  // the sum here; the mean after the reduction
  }
  Deviation force;
  MPI_Reduce(&local.max, &force.max, 1, MPI_DOUBLE, MPI_MAX, 0, world);
  MPI_Reduce(&local.min, &force.min, 1, MPI_DOUBLE, MPI_MIN, 0, world);
  MPI_Reduce(&local.avg, &force.avg, 1, MPI_DOUBLE, MPI_SUM, 0, world);
  std::vector<double> total(virials.size(), 0.0);
  MPI_Reduce(virials.data(), total.data(), static_cast<int>(virials.size()), MPI_DOUBLE, MPI_SUM, 0, world);
  if (comm->me != 0) return;
  force.avg /= static_cast<double>(atom->natoms);
  const Deviation virial = virial_deviation(total.data(), nmodels);
  std::fputs(model_devi_row(static_cast<long long>(update->ntimestep), virial, force).c_str(), devi_out_);
  std::fflush(devi_out_);
}

int PairSampan::pack_reverse_comm(int n, int first, double* buf) {
  const int width = 3 * (static_cast<int>(ensemble_.size()) + 1);
  int m = 0;
  for (int i = first; i < first + n; ++i)
    for (int c = 0; c < width; ++c) buf[m++] = devi_forces_[static_cast<size_t>(i) * width + c];
  return m;
}

void PairSampan::unpack_reverse_comm(int n, int* list, double* buf) {
  const int width = 3 * (static_cast<int>(ensemble_.size()) + 1);
  int m = 0;
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < width; ++c) devi_forces_[static_cast<size_t>(list[i]) * width + c] += buf[m++];
}

namespace {
Pair* create_pair_sampan(LAMMPS* lmp) { return new PairSampan(lmp); }
}  // namespace

void register_pair_styles(LAMMPS* lmp) {
  (*lmp->force->pair_map)["sampan/deepmd"] = &create_pair_sampan;
  (*lmp->force->pair_map)["sampan"] = &create_pair_sampan;
}

}  // namespace sampan::deepmd::lammps
