// DeepPot::atomic_energy with the neighbour list runs each embedding net once per filled slot and
// once per (centre type, slot) class of empty slots (deep_pot.cpp, CompactRows) instead of once per
// slot, and, one-sided, folds the slots that are empty for every centre into one term per centre
// type (one_sided_block_term; the frame below leaves most of sel unused, so it has such slots). The reference here is the same model evaluated on every row (no neighbour list): energies,
// dE/d em at filled slots (what forces are made of), the sums of dE/d em over each class of empty
// slots (what reaches davg and dstd; within a class it is all given to one slot), and the parameter
// gradient of a force-like loss (the double backward of training) must agree to float64 rounding,
// for one-sided and type-pair embeddings, with davg/dstd that differ per slot (so the empty-slot
// rows of one centre type differ by slot).
#include <gtest/gtest.h>

#include <cmath>

#include "sampan/autograd.h"
#include "sampan/deepmd/deep_pot.h"
#include "sampan/op.h"
#include "sampan/ops.h"
#include "test_util.h"

using namespace sampan;
using sampan::deepmd::DeepPot;

namespace {

// 14 atoms of two types in a 7 Å periodic box: with sel [20, 24] most slots are empty, and the
// centres have different numbers of neighbours, so filled and empty rows interleave.
struct Frame {
  std::vector<double> coord, cell;
  std::vector<int64_t> types;
};
Frame small_frame() {
  Frame f;
  const int natoms = 14;
  for (int i = 0; i < natoms; ++i) {
    // a deterministic scatter (no two atoms closer than ~1 Å)
    f.coord.push_back(std::fmod(1.37 * i + 0.2, 7.0));
    f.coord.push_back(std::fmod(2.71 * i + 0.5, 7.0));
    f.coord.push_back(std::fmod(3.93 * i + 0.9, 7.0));
    f.types.push_back(i % 3 == 0 ? 0 : 1);
  }
  f.cell = {7.0, 0, 0, 0, 7.0, 0, 0, 0, 7.0};
  return f;
}

DeepPot small_model(bool type_one_side) {
  deepmd::SeAConfig cfg;
  cfg.type_map = {"O", "H"};
  cfg.rcut = 4.0;
  cfg.rcut_smth = 0.5;
  cfg.sel = {20, 24};
  cfg.neuron = {4, 8, 16};  // 1 -> 4 (no shortcut), 4 -> 8 and 8 -> 16 (doubling shortcuts)
  cfg.axis_neuron = 3;
  cfg.type_one_side = type_one_side;
  cfg.fitting_neuron = {12, 12};
  DeepPot pot(cfg, 11);
  const int64_t nd = cfg.nnei() * 4;
  // per-slot statistics: the empty-slot row (0 - davg) / dstd then depends on (centre type, slot)
  pot.davg = test::uniform({2, nd}, -0.3, 0.3, 5);
  pot.dstd = test::uniform({2, nd}, 0.5, 1.5, 6);
  return pot;
}

void expect_near_all(const Tensor& got, const Tensor& want, double tol, const char* what) {
  auto g = test::values(got), w = test::values(want);
  ASSERT_EQ(g.size(), w.size()) << what;
  double scale = 0;
  for (double v : w) scale = std::max(scale, std::abs(v));
  for (size_t k = 0; k < g.size(); ++k) EXPECT_NEAR(g[k], w[k], tol * std::max(scale, 1.0)) << what << " [" << k << "]";
}

void check_compaction(bool type_one_side) {
  DeepPot pot = small_model(type_one_side);
  Frame f = small_frame();
  auto ext = pot.extend(f.coord.data(), f.types.data(), 14, f.cell.data());
  ASSERT_FALSE(ext.any_overflow());
  int64_t empty = 0;
  for (int64_t v : ext.nlist) empty += v < 0;
  ASSERT_GT(empty, ext.nloc * ext.nnei / 2) << "the frame should leave most slots empty";

  Tensor coord = from_vector(ext.coord, {ext.nall, 3});
  std::vector<double> types_d(ext.types.begin(), ext.types.end()), nlist_d(ext.nlist.begin(), ext.nlist.end());
  Tensor atype = cast(from_vector(types_d, {ext.nall}), DType::Int64);
  Tensor nlist = cast(from_vector(nlist_d, {ext.nloc, ext.nnei}), DType::Int64);
  OpHandle env_mat("deepmd::prod_env_mat_a");
  Tensor em = env_mat(coord, atype, nlist, pot.davg, pot.dstd, pot.config.rcut, pot.config.rcut_smth)[0];
  em = em.detach().requires_grad_();
  Tensor centre_types = slice(atype, 0, 0, ext.nloc).contiguous();
  // 1 at the columns of filled slots, 0 at empty ones (prod_force_se_a reads only the former)
  std::vector<double> filled(static_cast<size_t>(ext.nloc * ext.nnei * 4));
  for (size_t k = 0; k < filled.size(); ++k) filled[k] = ext.nlist[k / 4] >= 0 ? 1.0 : 0.0;
  Tensor filled_mask = from_vector(filled, {ext.nloc, ext.nnei * 4});
  std::vector<Tensor> params = pot.parameters();
  for (Tensor& p : params) p.requires_grad_(true);

  // every row (reference) and compacted rows: energy, dE/d em, and d/d params of a loss on dE/d em
  struct Result {
    Tensor energy, deriv;
    std::vector<Tensor> param_grads;
  };
  auto run = [&](const Tensor& nl) {
    Result r;
    Tensor energy = pot.atomic_energy(em, centre_types, nullptr, nullptr, nl);
    r.energy = energy.detach();
    Tensor deriv = grad({sum(energy)}, {em}, {}, true, true)[0];
    r.deriv = deriv.detach();
    // a force-matching-like loss: quadratic in dE/d em, so its gradient needs the double backward
    Tensor weights = mul(test::uniform(deriv.shape(), -1.0, 1.0, 9), filled_mask);
    Tensor loss = add(sum(mul(mul(deriv, deriv), weights)), sum(energy));
    r.param_grads = grad({loss}, params, {}, false, false, true);
    return r;
  };
  Result full = run(Tensor()), compact = run(nlist);
  expect_near_all(compact.energy, full.energy, 1e-13, "atomic energy");
  expect_near_all(mul(compact.deriv, filled_mask), mul(full.deriv, filled_mask), 1e-13, "dE/d em at filled slots");
  // per (centre type, slot) class of empty slots: the sums of dE/d em agree, column by column
  auto class_sums = [&](const Tensor& deriv) {
    std::vector<double> d = test::values(deriv), sums(static_cast<size_t>(2 * ext.nnei * 4), 0.0);
    for (int64_t i = 0; i < ext.nloc; ++i)
      for (int64_t j = 0; j < ext.nnei; ++j)
        if (ext.nlist[i * ext.nnei + j] < 0)
          for (int q = 0; q < 4; ++q) sums[(ext.types[i] * ext.nnei + j) * 4 + q] += d[(i * ext.nnei + j) * 4 + q];
    return from_vector(sums, {2, ext.nnei * 4});
  };
  expect_near_all(class_sums(compact.deriv), class_sums(full.deriv), 1e-13, "dE/d em summed over empty-slot classes");
  ASSERT_EQ(compact.param_grads.size(), full.param_grads.size());
  auto names = pot.parameter_names();
  for (size_t k = 0; k < full.param_grads.size(); ++k) {
    SCOPED_TRACE(names[k]);
    ASSERT_EQ(compact.param_grads[k].defined(), full.param_grads[k].defined());
    if (full.param_grads[k].defined()) expect_near_all(compact.param_grads[k], full.param_grads[k], 1e-12, "gradient");
  }
}

}  // namespace

TEST(EmbeddingRowCompaction, OneSidedNetsMatchEveryRowEvaluation) { check_compaction(true); }

TEST(EmbeddingRowCompaction, TypePairNetsMatchEveryRowEvaluation) { check_compaction(false); }

// A neighbour list of the wrong shape is refused with the expected shape in the message.
TEST(EmbeddingRowCompaction, RejectsNeighbourListOfWrongShape) {
  DeepPot pot = small_model(true);
  Tensor em = zeros({3, pot.config.nnei() * 4}, DType::Float64);
  Tensor ct = zeros({3}, DType::Int64);
  Tensor bad = zeros({3, 5}, DType::Int64);
  try {
    pot.atomic_energy(em, ct, nullptr, nullptr, bad);
    FAIL() << "no error";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("nlist must be int64 [nloc, nnei] = [3, 44]"), std::string::npos) << e.what();
  }
}
