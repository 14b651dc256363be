// Tests of framework/src/ops/softmax.cpp: values against a reference loop, stability for large
// and -inf inputs, non-contiguous inputs, and check_op.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sampan/ops.h"
#include "sampan/testing/check_op.h"

using namespace sampan;

namespace {

std::vector<double> values(const Tensor& t) {
  Tensor c = t.detach().to(DType::Float64).contiguous();
  return std::vector<double>(c.data<double>(), c.data<double>() + c.numel());
}

Tensor sample(const Shape& s) {
  std::vector<double> v;
  for (int64_t i = 0; i < shape_numel(s); ++i) v.push_back(-1.1 + 0.37 * static_cast<double>((i * 5) % 7) + 0.02 * i);
  return from_vector(v, s);
}

}  // namespace

TEST(Softmax, MatchesReferenceAlongEachAxis) {
  Tensor x = sample({3, 4});
  auto v = values(x);
  for (int64_t axis : {0, 1}) {
    auto s = values(softmax(x, axis));
    auto l = values(log_softmax(x, axis));
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 4; ++c) {
        double total = 0;
        if (axis == 1) for (int k = 0; k < 4; ++k) total += std::exp(v[r * 4 + k]);
        else for (int k = 0; k < 3; ++k) total += std::exp(v[k * 4 + c]);
        EXPECT_NEAR(s[r * 4 + c], std::exp(v[r * 4 + c]) / total, 1e-15);
        EXPECT_NEAR(l[r * 4 + c], v[r * 4 + c] - std::log(total), 1e-14);
      }
  }
  // A transposed view gives the transposed result.
  auto t = values(softmax(transpose(x, 0, 1), 0));
  auto s = values(softmax(x, 1));
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) EXPECT_NEAR(t[c * 3 + r], s[r * 4 + c], 1e-15);
}

TEST(Softmax, StableForLargeAndInfiniteInputs) {
  const double inf = std::numeric_limits<double>::infinity();
  Tensor x = from_vector({1000, 1000, -1000, 0}, {4});
  auto s = values(softmax(x));
  EXPECT_NEAR(s[0], 0.5, 1e-15);
  EXPECT_EQ(s[2], 0.0);
  auto l = values(log_softmax(x));
  EXPECT_NEAR(l[0], -std::log(2.0), 1e-15);
  EXPECT_NEAR(l[2], -2000 - std::log(2.0), 1e-9);  // finite, where log(softmax) would be -inf
  auto m = values(softmax(from_vector({-inf, 0, 0}, {3})));
  EXPECT_EQ(m[0], 0.0);
  EXPECT_NEAR(m[1], 0.5, 1e-15);
  Tensor f = softmax(from_vector({1, 2, 3}, {3}, DType::Float32));
  EXPECT_EQ(f.dtype(), DType::Float32);
  EXPECT_NEAR(sum(f).item(), 1.0, 1e-6);
  EXPECT_EQ(softmax(from_vector({1, 2}, {2}, DType::Int64)).dtype(), DType::Float32);
}

TEST(Softmax, Errors) {
  EXPECT_THROW(softmax(sample({2, 3}), 2), IndexError);
  EXPECT_THROW(softmax(Tensor::empty({2}, DType::Complex128)), TypeError);
}

TEST(Softmax, CheckOp) {
  for (const char* op : {"core::softmax", "core::log_softmax"}) {
    for (int64_t axis : {0, -1}) {
      auto r = check_op(op, {sample({3, 4}), axis});
      EXPECT_TRUE(r.ok) << op << " axis " << axis << ": " << r.summary();
    }
  }
}
