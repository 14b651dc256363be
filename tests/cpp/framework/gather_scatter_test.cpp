// Tests of core::gather_add_scatter (segment.cpp, kernels/gather_scatter_kernels.h), message
// passing in one op: hand-computed values, the same bits as the composition it replaces
// (segment_sum(index_select(x, gather) + edge, scatter)) for float32 at a GIN layer's size, any
// thread count, gradients (check_op, first and second order) equal to the composition's, and
// errors that name the offending index.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "sampan/autograd.h"
#include "sampan/ops.h"

#include "../test_util.h"

using namespace sampan;
using sampan::test::expect_check_op;
using sampan::test::values;

namespace {

using V = std::vector<double>;
bool same_bits(const Tensor& a, const Tensor& b) {
  if (a.shape() != b.shape() || a.dtype() != b.dtype()) return false;
  Tensor ca = a.detach().contiguous(), cb = b.detach().contiguous();
  return ca.nbytes() == 0 || std::memcmp(ca.raw_data(), cb.raw_data(), ca.nbytes()) == 0;
}
Tensor ids(const std::vector<double>& v) { return from_vector(v, {static_cast<int64_t>(v.size())}, DType::Int64); }

// A batch of ring molecules: both directions of every bond, in bond order (not sorted by target),
// as helix's GraphBatch stores them.
std::pair<Tensor, Tensor> ring_edges(int64_t molecules, int64_t atoms) {
  std::vector<double> src, dst;
  for (int64_t m = 0; m < molecules; ++m)
    for (int64_t a = 0; a < atoms; ++a) {
      const double u = static_cast<double>(m * atoms + a), v = static_cast<double>(m * atoms + (a + 1) % atoms);
      src.insert(src.end(), {u, v});
      dst.insert(dst.end(), {v, u});
    }
  return {ids(src), ids(dst)};
}

}  // namespace

TEST(GatherAddScatter, HandComputed) {
  Tensor x = from_vector({1, 2, 10, 20, 100, 200}, {3, 2});
  Tensor edge = from_vector({0.5, 0.25, 1, 2, 3, 4, 5, 6}, {4, 2});
  // edges: 2 -> 0, 0 -> 1, 2 -> 1, 2 -> 0; segment 2 receives nothing
  Tensor gather = ids({2, 0, 2, 2}), scatter = ids({0, 1, 1, 0});
  EXPECT_EQ(values(gather_add_scatter(x, gather, scatter, 3, edge)),
            (V{100.5 + 105, 200.25 + 206, 1 + 1 + 100 + 3, 2 + 2 + 200 + 4, 0, 0}));
  EXPECT_EQ(values(gather_add_scatter(x, gather, scatter, 3)), (V{200, 400, 101, 202, 0, 0}));
  EXPECT_EQ(gather_add_scatter(x, gather, scatter).shape(), (Shape{2, 2}));  // -1: max(id) + 1
  EXPECT_EQ(values(gather_add_scatter(x, ids({}), ids({}), 2)), (V{0, 0, 0, 0}));
}

TEST(GatherAddScatter, SameBitsAsTheCompositionAnyThreadCount) {
  // A GIN layer of 32 ten-atom rings, 300 features, float32.
  auto [src, dst] = ring_edges(32, 10);
  const int64_t n = 320, e = src.numel(), d = 300;
  Tensor h = cast(sampan::test::uniform({n, d}, -2, 2, 3), DType::Float32);
  Tensor bond = cast(sampan::test::uniform({e, d}, -1, 1, 4), DType::Float32);
  Tensor composed = segment_sum(index_select(h, 0, src) + bond, dst, n);
  const int saved = omp_get_max_threads();
  for (int threads : {1, std::max(4, saved)}) {
    omp_set_num_threads(threads);
    EXPECT_TRUE(same_bits(gather_add_scatter(h, src, dst, n, bond), composed)) << threads;
  }
  omp_set_num_threads(saved);
  // Gradients: the transposed gather-scatter for x equals index_select's index_add of the
  // messages' gradient (both fold in edge order from zero), to the bit.
  Tensor hl = h.detach().requires_grad_(), bl = bond.detach().requires_grad_();
  Tensor w = cast(sampan::test::uniform({n, d}, -1, 1, 5), DType::Float32);
  auto fused = grad({sum(gather_add_scatter(hl, src, dst, n, bl) * w)}, {hl, bl});
  auto plain = grad({sum(segment_sum(index_select(hl, 0, src) + bl, dst, n) * w)}, {hl, bl});
  EXPECT_TRUE(same_bits(fused[0], plain[0]));
  EXPECT_TRUE(same_bits(fused[1], plain[1]));
}

TEST(GatherAddScatter, Gradients) {
  Tensor x = sampan::test::uniform({4, 3}, -1, 1, 6), edge = sampan::test::uniform({5, 3}, -1, 1, 7);
  expect_check_op("core::gather_add_scatter", {x, ids({3, 0, 1, 3, 2}), ids({1, 0, 1, 2, 0}), int64_t(4), edge});
  expect_check_op("core::gather_add_scatter", {sampan::test::uniform({3, 2, 2}, -1, 1, 8), ids({2, 0}), ids({1, 1}),
                                               int64_t(2), Value()});
}

TEST(GatherAddScatter, Errors) {
  Tensor x = from_vector({1, 2, 3}, {3, 1});
  try {
    gather_add_scatter(x, ids({0, 3}), ids({0, 1}), 2);
    FAIL() << "expected IndexError";
  } catch (const IndexError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("gather_index 3 (at position 1)"), std::string::npos) << m;
    EXPECT_NE(m.find("[0, 3)"), std::string::npos) << m;
  }
  EXPECT_THROW(gather_add_scatter(x, ids({-1, 0}), ids({0, 1}), 2), IndexError);  // no negative rows
  try {
    gather_add_scatter(x, ids({0, 1}), ids({0, 7}), 2);
    FAIL() << "expected IndexError";
  } catch (const IndexError& e) {
    EXPECT_NE(std::string(e.what()).find("segment id 7 (row 1)"), std::string::npos) << e.what();
  }
  try {
    gather_add_scatter(x, ids({0, 1}), ids({0}), 2);
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {  // the message names both indices, not segment_sum's terms
    EXPECT_NE(std::string(e.what()).find("gather_index has 2 entries but scatter_index has 1"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(gather_add_scatter(x, ids({0, 1}), ids({0, 1}), 2, from_vector({1, 2, 3}, {3, 1})), ValueError);  // edge rows
  EXPECT_THROW(gather_add_scatter(x, from_vector({0.0, 1.0}, {2}), ids({0, 1}), 2), TypeError);       // float index
}
