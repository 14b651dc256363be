// Tests of framework/src/ops/reduce.cpp: values against reference loops, NumPy's axis/keepdim
// rules, edge cases (NaN, zeros, ties, empty selections), errors, and check_op on every op.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sampan/autograd.h"
#include "sampan/ops.h"
#include "sampan/testing/check_op.h"

using namespace sampan;

namespace {

using IntList = std::vector<int64_t>;

std::vector<double> values(const Tensor& t) {
  Tensor c = t.detach().to(DType::Float64).contiguous();
  return std::vector<double>(c.data<double>(), c.data<double>() + c.numel());
}

// Distinct, well-separated float64 values for gradient checks (no ties, no zeros).
Tensor sample(const Shape& s, double start = 0.4) {
  std::vector<double> v;
  for (int64_t i = 0; i < shape_numel(s); ++i) v.push_back(start + 0.137 * static_cast<double>((i * 5) % 13) + 0.01 * i);
  return from_vector(v, s);
}

Tensor complex_sample(const Shape& s) {
  Tensor t = Tensor::empty(s, DType::Complex128);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<complex128>()[i] = {0.3 + 0.21 * i, 0.5 - 0.13 * i};
  return t;
}

void expect_ok(const std::string& op, const Values& args) {
  auto r = check_op(op, args);
  EXPECT_TRUE(r.ok) << r.summary();
}

}  // namespace

TEST(Prod, ValuesOverAxes) {
  Tensor x = from_vector({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(values(prod(x)), std::vector<double>({720}));
  EXPECT_EQ(values(prod(x, {0})), std::vector<double>({4, 10, 18}));
  Tensor k = prod(x, {-1}, true);
  EXPECT_EQ(k.shape(), (Shape{2, 1}));
  EXPECT_EQ(values(k), std::vector<double>({6, 120}));
  Tensor i = prod(from_vector({2, 3, 4}, {3}, DType::Int32));
  EXPECT_EQ(i.dtype(), DType::Int64);
  EXPECT_EQ(i.item(), 24);
}

TEST(Prod, GradientWithZeros) {
  // One zero: only the zero's gradient survives (the product of the others); two zeros: none.
  Tensor x = from_vector({2, 0, 3, 0, 0, 5}, {2, 3}).requires_grad_();
  sum(prod(x, {1})).backward();
  EXPECT_EQ(values(x.grad()), std::vector<double>({0, 6, 0, 0, 0, 0}));
  Tensor y = from_vector({2, 4, 3}, {3}).requires_grad_();
  prod(y).backward();
  EXPECT_EQ(values(y.grad()), std::vector<double>({12, 6, 8}));
}

TEST(Prod, CheckOp) {
  expect_ok("core::prod", {sample({2, 3}), IntList{1}, false});
  expect_ok("core::prod", {sample({2, 2, 2}), IntList{}, true});
  expect_ok("core::prod", {from_vector({0.5, 0.0, 1.5, 2.0, -1.0, 0.7}, {2, 3}), IntList{1}, false});
  expect_ok("core::prod", {complex_sample({3}), IntList{}, false});
}

TEST(Extremes, AmaxAminValues) {
  Tensor x = from_vector({3, -1, 7, 2, 9, -4}, {2, 3});
  EXPECT_EQ(values(amax(x)), std::vector<double>({9}));
  EXPECT_EQ(values(amin(x, {0})), std::vector<double>({2, -1, -4}));
  EXPECT_EQ(values(max(x, 1)), std::vector<double>({7, 9}));
  EXPECT_EQ(values(min(x, -1, true)), std::vector<double>({-1, -4}));
  EXPECT_EQ(min(x, -1, true).shape(), (Shape{2, 1}));
  Tensor i = amax(from_vector({3, 8, 1}, {3}, DType::Int64));
  EXPECT_EQ(i.dtype(), DType::Int64);
  EXPECT_EQ(i.item(), 8);
  EXPECT_TRUE(std::isnan(amax(from_vector({1, NAN, 3}, {3})).item()));
  EXPECT_TRUE(std::isnan(amin(from_vector({1, NAN, 3}, {3})).item()));
}

TEST(Extremes, TiesShareTheGradient) {
  Tensor x = from_vector({1, 5, 5, 2}, {4}).requires_grad_();
  amax(x).backward();
  EXPECT_EQ(values(x.grad()), std::vector<double>({0, 0.5, 0.5, 0}));
}

TEST(Extremes, ArgmaxArgmin) {
  Tensor x = from_vector({3, -1, 7, 9, 9, -4}, {2, 3});
  Tensor a = argmax(x);
  EXPECT_EQ(a.dtype(), DType::Int64);
  EXPECT_EQ(a.shape(), Shape{});
  EXPECT_EQ(a.item(), 3);  // first of the tied 9s
  EXPECT_EQ(values(argmax(x, 1)), std::vector<double>({2, 0}));
  EXPECT_EQ(values(argmin(x, 0)), std::vector<double>({0, 0, 1}));
  EXPECT_EQ(argmin(x, 0, true).shape(), (Shape{1, 3}));
  // Transposed (non-contiguous) input.
  EXPECT_EQ(values(argmax(transpose(x, 0, 1), 0)), std::vector<double>({2, 0}));
  EXPECT_EQ(argmax(from_vector({1, NAN, 5, NAN}, {4})).item(), 1);  // NumPy: the first NaN
}

TEST(Extremes, Errors) {
  EXPECT_THROW(amax(Tensor::empty({0, 3}, DType::Float64), {0}), ValueError);
  EXPECT_EQ(amax(Tensor::empty({0, 3}, DType::Float64), {1}).shape(), (Shape{0}));
  EXPECT_THROW(amax(complex_sample({3})), TypeError);
  EXPECT_THROW(argmax(sample({2, 3}), 2), IndexError);
  EXPECT_THROW(argmax(Tensor::empty({0}, DType::Float32)), ValueError);
}

TEST(Extremes, CheckOp) {
  expect_ok("core::amax", {sample({3, 4}), IntList{1}, false});
  expect_ok("core::amax", {sample({2, 3, 2}), IntList{0, 2}, true});
  expect_ok("core::amin", {sample({3, 4}), IntList{}, false});
  expect_ok("core::argmax", {sample({3, 4}), IntList{1}, false});
  expect_ok("core::argmin", {sample({3, 4}), IntList{}, true});
}

TEST(Moments, VarStdAgainstLoops) {
  Tensor x = sample({3, 5});
  auto v = values(x);
  for (double ddof : {0.0, 1.0}) {
    auto got_var = values(var(x, {1}, ddof));
    auto got_std = values(sampan::std(x, {1}, ddof, true));
    for (int r = 0; r < 3; ++r) {
      double m = 0, ss = 0;
      for (int c = 0; c < 5; ++c) m += v[r * 5 + c] / 5;
      for (int c = 0; c < 5; ++c) ss += (v[r * 5 + c] - m) * (v[r * 5 + c] - m);
      EXPECT_NEAR(got_var[r], ss / (5 - ddof), 1e-14);
      EXPECT_NEAR(got_std[r], std::sqrt(ss / (5 - ddof)), 1e-14);
    }
  }
  EXPECT_EQ(sampan::std(x, {1}, 0, true).shape(), (Shape{3, 1}));
  // Integers become floating; complex variance is real: mean |x - mean|^2.
  EXPECT_NEAR(var(from_vector({1, 2, 3, 4}, {4}, DType::Int64)).item(), 1.25, 1e-6);
  Tensor z = Tensor::empty({2}, DType::Complex128);
  z.data<complex128>()[0] = {1, 1};
  z.data<complex128>()[1] = {-1, -1};
  Tensor vz = var(z);
  EXPECT_EQ(vz.dtype(), DType::Float64);
  EXPECT_NEAR(vz.item(), 2.0, 1e-15);
}

TEST(Moments, CheckOp) {
  expect_ok("core::var", {sample({3, 4}), IntList{1}, 1.0, false});
  expect_ok("core::var", {complex_sample({4}), IntList{}, 0.0, true});
  expect_ok("core::std", {sample({2, 3, 2}), IntList{0, 2}, 0.0, false});
  expect_ok("core::std", {complex_sample({2, 2}), IntList{1}, 1.0, false});
}

TEST(LogSumExp, StableAndCorrect) {
  Tensor x = from_vector({1000, 1000, -1e300, 0.5}, {2, 2});
  auto r = values(logsumexp(x, {1}));
  EXPECT_NEAR(r[0], 1000 + std::log(2.0), 1e-12);
  EXPECT_NEAR(r[1], 0.5, 1e-15);
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(logsumexp(from_vector({-inf, -inf}, {2})).item(), -inf);
  EXPECT_EQ(logsumexp(from_vector({inf, 1}, {2})).item(), inf);
  EXPECT_EQ(logsumexp(Tensor::empty({0}, DType::Float64)).item(), -inf);
  Tensor y = sample({2, 3});
  auto v = values(y);
  auto all = logsumexp(y, {}, true);
  EXPECT_EQ(all.shape(), (Shape{1, 1}));
  double s = 0;
  for (double e : v) s += std::exp(e);
  EXPECT_NEAR(all.item(), std::log(s), 1e-14);
}

TEST(LogSumExp, CheckOp) {
  expect_ok("core::logsumexp", {sample({3, 4}), IntList{1}, false});
  expect_ok("core::logsumexp", {sample({2, 3, 2}), IntList{}, true});
}

TEST(Norm, OrdersAgainstLoops) {
  Tensor x = from_vector({3, -4, 1, -2, 0, 2}, {2, 3});
  EXPECT_NEAR(norm(x).item(), std::sqrt(34.0), 1e-14);
  EXPECT_EQ(values(norm(x, 1, {1})), std::vector<double>({8, 4}));
  EXPECT_EQ(values(norm(x, INFINITY, {0})), std::vector<double>({3, 4, 2}));
  EXPECT_EQ(values(norm(x, -INFINITY, {1}, true)), std::vector<double>({1, 0}));
  // Frobenius over the two matrix axes of a batch.
  Tensor b = sample({2, 3, 2});
  auto v = values(b);
  auto f = values(norm(b, 2, {1, 2}));
  for (int i = 0; i < 2; ++i) {
    double s = 0;
    for (int j = 0; j < 6; ++j) s += v[i * 6 + j] * v[i * 6 + j];
    EXPECT_NEAR(f[i], std::sqrt(s), 1e-14);
  }
  Tensor z = complex_sample({3});
  double s = 0;
  for (int i = 0; i < 3; ++i) s += std::norm(z.data<complex128>()[i]);
  EXPECT_NEAR(norm(z).item(), std::sqrt(s), 1e-14);
  EXPECT_EQ(norm(z).dtype(), DType::Float64);
  EXPECT_THROW(norm(x, 3), ValueError);
}

TEST(Norm, ZeroVectorHasZeroGradient) {
  Tensor x = zeros({3}, DType::Float64).requires_grad_();
  norm(x).backward();
  EXPECT_EQ(values(x.grad()), std::vector<double>({0, 0, 0}));
}

TEST(Norm, CheckOp) {
  const double inf = std::numeric_limits<double>::infinity();
  for (double ord : {1.0, 2.0, inf, -inf}) {
    expect_ok("core::norm", {sample({3, 4}, -0.8), ord, IntList{1}, false});
    expect_ok("core::norm", {complex_sample({2, 3}), ord, IntList{}, true});
  }
}

TEST(Cumsum, ForwardReverseAndIntegers) {
  Tensor x = from_vector({1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(values(cumsum(x, 1)), std::vector<double>({1, 3, 6, 4, 9, 15}));
  EXPECT_EQ(values(cumsum(x, 0)), std::vector<double>({1, 2, 3, 5, 7, 9}));
  EXPECT_EQ(values(cumsum(x, -1, true)), std::vector<double>({6, 5, 3, 15, 11, 6}));
  EXPECT_EQ(values(cumsum(transpose(x, 0, 1), 1)), std::vector<double>({1, 5, 2, 7, 3, 9}));
  Tensor i = cumsum(from_vector({1, 1, 1}, {3}, DType::Int32), 0);
  EXPECT_EQ(i.dtype(), DType::Int64);
  EXPECT_EQ(values(i), std::vector<double>({1, 2, 3}));
  EXPECT_THROW(cumsum(x, 2), IndexError);
}

TEST(Cumsum, CheckOp) {
  expect_ok("core::cumsum", {sample({3, 4}), int64_t{1}, false});
  expect_ok("core::cumsum", {sample({3, 4}), int64_t{0}, true});
  expect_ok("core::cumsum", {complex_sample({4}), int64_t{-1}, false});
}
