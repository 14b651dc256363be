// The LennardJones Potential: a Verlet half list with ghost atoms for the periodic images, and its pair loop.
#include "sampan/deepmd/md/lennard_jones.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "md/ghost_list.h"
#include "md/lj_kernels.h"
#include "sampan/error.h"
#include "sampan/op.h"
#include "sampan/ops.h"

namespace sampan::deepmd::md {

namespace {
void check_table(int ntypes, const std::vector<double>& eps, const std::vector<double>& sigma, double rcut) {
  SAMPAN_CHECK(ntypes >= 1, ValueError, "LennardJones: ntypes must be >= 1, got ", ntypes);
  const size_t n2 = static_cast<size_t>(ntypes) * static_cast<size_t>(ntypes);
  SAMPAN_CHECK(eps.size() == n2, ValueError, "LennardJones: eps must hold ntypes^2 = ", n2,
               " values ([ntypes, ntypes] row-major), got ", eps.size());
  SAMPAN_CHECK(sigma.size() == n2, ValueError, "LennardJones: sigma must hold ntypes^2 = ", n2,
               " values ([ntypes, ntypes] row-major), got ", sigma.size());
  SAMPAN_CHECK(rcut > 0 && std::isfinite(rcut), ValueError, "LennardJones: rcut must be > 0 (Å), got ", rcut);
  for (int a = 0; a < ntypes; ++a)
    for (int b = 0; b < ntypes; ++b) {
      const size_t ab = static_cast<size_t>(a * ntypes + b), ba = static_cast<size_t>(b * ntypes + a);
      SAMPAN_CHECK(std::isfinite(eps[ab]), ValueError, "LennardJones: eps[", a, "][", b, "] is not finite");
      SAMPAN_CHECK(sigma[ab] > 0 && std::isfinite(sigma[ab]), ValueError, "LennardJones: sigma[", a, "][", b,
                   "] must be > 0 (Å), got ", sigma[ab]);
      SAMPAN_CHECK(eps[ab] == eps[ba] && sigma[ab] == sigma[ba], ValueError, "LennardJones: the tables must be "
                   "symmetric, but (eps, sigma)[", a, "][", b, "] = (", eps[ab], ", ", sigma[ab], ") and [", b, "][",
                   a, "] = (", eps[ba], ", ", sigma[ba], ")");
    }
}
}  // namespace

LennardJones::LennardJones(int ntypes, std::vector<double> eps, std::vector<double> sigma, double rcut, bool shift,
                           double skin)
    : ntypes_(ntypes), eps_(std::move(eps)), sigma_(std::move(sigma)), rcut_(rcut), skin_(skin), shift_(shift) {
  check_table(ntypes_, eps_, sigma_, rcut_);
  work_ = std::make_shared<Workspace>();
  coefficients_ = std::make_shared<kernels::LjCoefficients>(
      kernels::LjTable{ntypes_, eps_.data(), sigma_.data(), rcut_, shift_});
  SAMPAN_CHECK(skin_ >= 0 && std::isfinite(skin_), ValueError, "LennardJones: skin must be >= 0 (Å), got ", skin_);
}

std::unique_ptr<LennardJones> LennardJones::single(double eps, double sigma, double rcut, bool shift, double skin) {
  return std::make_unique<LennardJones>(1, std::vector<double>{eps}, std::vector<double>{sigma}, rcut, shift, skin);
}

std::string LennardJones::describe() const {
  std::ostringstream os;
  os << "lj/cut ntypes=" << ntypes_ << " rcut=" << rcut_ << " A" << (shift_ ? " shifted" : "") << " skin=" << skin_;
  return os.str();
}

struct LennardJones::Workspace {
  NeighborList half;  // kept, so its buffers are reused from build to build
  GhostedList list;
  std::vector<double> built_at;
  Box built_box;
  std::vector<double> x_ext, f_ext, weight;
  std::vector<int> types_ext;
  kernels::LjScratch scratch;
};

bool LennardJones::list_is_stale(const double* positions, int64_t natoms, const Box& box) const {
  const Workspace& w = *work_;
  if (builds_ == 0 || skin_ == 0 || w.list.natoms != natoms || box.cell != w.built_box.cell ||
      box.periodic != w.built_box.periodic)
    return true;
  const double limit2 = 0.25 * skin_ * skin_;  // (skin / 2)^2: two atoms may close in by skin
  for (int64_t k = 0; k < natoms; ++k) {
    double dr2 = 0;
    for (int a = 0; a < 3; ++a) {
      const double dx = positions[3 * k + a] - w.built_at[3 * k + a];
      dr2 += dx * dx;
    }
    if (dr2 > limit2) return true;
  }
  return false;
}

void LennardJones::compute(const double* positions, const int* types, int64_t natoms, const Box& box,
                           double* energy, double* forces, double* virial) {
  evaluate(positions, types, natoms, natoms, box, energy, forces, virial);
}

void LennardJones::compute_local(const double* positions, const int* types, int64_t nlocal, int64_t natoms,
                                 double* energy, double* forces) {
  SAMPAN_CHECK(nlocal >= 0 && nlocal <= natoms, ValueError, "LennardJones: nlocal = ", nlocal,
               " must lie in [0, natoms = ", natoms, "]");
  evaluate(positions, types, nlocal, natoms, Box::open(), energy, forces, nullptr);
}

void LennardJones::evaluate(const double* positions, const int* types, int64_t nlocal, int64_t natoms,
                            const Box& box, double* energy, double* forces, double* virial) {
  for (int64_t k = 0; k < natoms; ++k)
    SAMPAN_CHECK(types[k] >= 0 && types[k] < ntypes_, ValueError, "LennardJones: atom ", k, " has type ", types[k],
                 ", expected a type in [0, ", ntypes_, ")");
  Workspace& w = *work_;
  if (list_is_stale(positions, natoms, box)) {
    build_neighbor_list_into(w.half, positions, natoms, box, rcut_ + skin_, /*half=*/true, /*vectors=*/false);
    w.list = ghost_half_list(w.half);
    w.built_at.assign(positions, positions + 3 * natoms);
    w.built_box = box;
    ++builds_;
  }
  const int64_t next = w.list.extended();
  w.x_ext.resize(static_cast<size_t>(3 * next));
  w.types_ext.resize(static_cast<size_t>(next));
  w.f_ext.resize(static_cast<size_t>(3 * next));
  place_ghosts(w.list, positions, types, box.cell.data(), w.x_ext.data(), w.types_ext.data());
  const double* weight = nullptr;
  if (nlocal < natoms) {  // owned atoms weigh 1/2 in each of their pairs, ghosts of owned atoms too
    w.weight.resize(static_cast<size_t>(next));
    for (int64_t k = 0; k < next; ++k) {
      const int64_t atom = k < natoms ? k : w.list.owner[static_cast<size_t>(k - natoms)];
      w.weight[static_cast<size_t>(k)] = atom < nlocal ? 0.5 : 0.0;
    }
    weight = w.weight.data();
  }
  kernels::LjGhostedPairs pairs{w.x_ext.data(), w.types_ext.data(), next,         natoms,
                                w.list.offsets.data(), w.list.neighbors.data(), w.list.max_row, weight};
  kernels::lj_ghosted_pairs(pairs, *static_cast<const kernels::LjCoefficients*>(coefficients_.get()), energy,
                            w.f_ext.data(), virial, w.scratch);
  fold_ghost_forces(w.list, w.f_ext.data());
  if (forces) std::copy(w.f_ext.begin(), w.f_ext.begin() + 3 * natoms, forces);
}

std::pair<Tensor, Tensor> pair_tensors(const NeighborList& list, const Box& box) {
  std::vector<int64_t> pairs;
  std::vector<double> shifts;
  for (int64_t i = 0; i < list.natoms; ++i)
    for (int64_t p = list.offsets[i]; p < list.offsets[i + 1]; ++p) {
      const int64_t j = list.neighbors[p];
      const int32_t* n = &list.shifts[3 * p];
      // The half of a full list: one of (i, j, n), (j, i, -n) (the rule of neighbor_list.h).
      if (!list.half) {
        bool keep = j != i ? j > i : (n[0] != 0 ? n[0] > 0 : (n[1] != 0 ? n[1] > 0 : n[2] > 0));
        if (!keep) continue;
      }
      pairs.push_back(i);
      pairs.push_back(j);
      for (int a = 0; a < 3; ++a)
        shifts.push_back(n[0] * box.cell[a] + n[1] * box.cell[3 + a] + n[2] * box.cell[6 + a]);
    }
  const int64_t np = static_cast<int64_t>(pairs.size() / 2);
  Tensor pair_tensor = Tensor::empty({np, 2}, DType::Int64);
  std::copy(pairs.begin(), pairs.end(), pair_tensor.data<int64_t>());
  return {pair_tensor, from_vector(shifts, {np, 3})};
}

Tensor lj_energy(const Tensor& pos, const Tensor& types, const Tensor& pairs, const Tensor& shifts,
                 const std::vector<double>& eps, const std::vector<double>& sigma, double rcut, bool shift) {
  static const OpHandle op("deepmd::lj_energy");
  return op(pos, types, pairs, shifts, eps, sigma, rcut, shift)[0];
}

}  // namespace sampan::deepmd::md
