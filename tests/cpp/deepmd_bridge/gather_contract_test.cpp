// deepmd::gather_contract and its transposes against the composition they replace in
// DeepPot (deep_pot.cpp, one_sided_block_term): G = index_select(g, rows) reshaped [A, K, M],
// then em^T G (matmul), its gradient in em (G h^T) and in g (index_add of em h over the rows).
// Both the C = 4 path (the env matrix's s, x, y, z) and the general one (C = 3) are checked, with
// rows that repeat (the empty-slot classes) and a row of g no slot names. Bad indices are errors.
#include <gtest/gtest.h>

#include <cmath>

#include "sampan/op.h"
#include "sampan/ops.h"
#include "test_util.h"

using namespace sampan;

namespace {

Tensor call(const char* name, Values args) { return call_op(find_op(name), std::move(args))[0]; }

// A centres x K slots over R rows of g: slot rows cycle through the first R - 1 rows with a stride
// that makes some rows repeat, so the last row of g is never named.
Tensor rows_for(int64_t A, int64_t K, int64_t R) {
  std::vector<double> v;
  for (int64_t j = 0; j < A * K; ++j) v.push_back(static_cast<double>((j * 7 + j / 5) % (R - 1)));
  return from_vector(v, {A * K}, DType::Int64);
}

void expect_close(const Tensor& got, const Tensor& want, double tol, const std::string& what) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  auto a = test::values(got), b = test::values(want);
  double worst = 0;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  EXPECT_LE(worst, tol) << what;
}

void check_against_composition(int64_t A, int64_t K, int64_t C, int64_t M, int64_t R) {
  Tensor em = test::uniform({A, K, C}, -1, 1, 3), g = test::uniform({R, M}, -1, 1, 4);
  Tensor h = test::uniform({A, C, M}, -1, 1, 5);
  Tensor rows = rows_for(A, K, R);
  Tensor G = reshape(index_select(g, 0, rows), {A, K, M});
  const std::string shape = " (A " + std::to_string(A) + ", K " + std::to_string(K) + ", C " + std::to_string(C) + ")";
  expect_close(call("deepmd::gather_contract", {em, g, rows}), matmul(transpose(em, 1, 2), G), 1e-12,
               "gather_contract" + shape);
  expect_close(call("deepmd::gather_contract_em_grad", {h, g, rows}), matmul(G, transpose(h, 1, 2)), 1e-12,
               "gather_contract_em_grad" + shape);
  // d/dg of sum(h * em^T G): row r of g collects em[a, k]^T h[a] over the slots naming r
  Tensor per_slot = reshape(matmul(em, h), {A * K, M});
  Tensor want = index_add(zeros({R, M}, DType::Float64), 0, rows, per_slot);
  Tensor got = call("deepmd::gather_contract_g_grad", {em, h, rows, R});
  expect_close(got, want, 1e-12, "gather_contract_g_grad" + shape);
  auto last = test::values(slice(got, 0, R - 1, R));
  for (double v : last) EXPECT_EQ(v, 0.0) << "a row no slot names has no gradient" << shape;
}

}  // namespace

TEST(GatherContract, MatchesGatherThenMatmulForFourChannels) { check_against_composition(7, 13, 4, 21, 9); }

TEST(GatherContract, MatchesGatherThenMatmulForOtherChannelCounts) {
  check_against_composition(5, 6, 3, 10, 8);
  check_against_composition(2, 3, 1, 5, 4);
}

TEST(GatherContract, RowIndexOutsideGIsAnError) {
  Tensor em = test::uniform({2, 2, 4}, -1, 1, 1), g = test::uniform({3, 5}, -1, 1, 2);
  Tensor bad = from_vector({0, 1, 3, 2}, {4}, DType::Int64);
  try {
    call("deepmd::gather_contract", {em, g, bad});
    FAIL() << "an index past g's rows must raise";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("rows[2] = 3 is not a row of g (3 rows)"), std::string::npos) << e.what();
  }
  Tensor negative = from_vector({0, -1, 1, 2}, {4}, DType::Int64);
  EXPECT_ANY_THROW(call("deepmd::gather_contract_g_grad", {em, test::uniform({2, 4, 5}, -1, 1, 3), negative, int64_t{3}}));
  // a rows tensor of the wrong length is a shape error naming the expected length
  try {
    call("deepmd::gather_contract", {em, g, from_vector({0, 1, 2}, {3}, DType::Int64)});
    FAIL() << "rows of the wrong length must raise";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("[A*K] = [4]"), std::string::npos) << e.what();
  }
}
