// Tests of the elementwise unary math ops (framework/src/ops/unary.cpp): values against std::
// math on random inputs (contiguous, transposed, large enough for the OpenMP path), dtype rules,
// errors for bad dtypes, in-place forms, and check_op (gradients to second order).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "sampan/autograd.h"
#include "sampan/ops.h"
#include "sampan/testing/check_op.h"

#include "../test_util.h"

using namespace sampan;
using sampan::test::expect_check_op;
using sampan::test::uniform;
using sampan::test::values;
using sampan::test::expect_unary_matches;

namespace {

using UnaryFn = Tensor (*)(const Tensor&);

Tensor complex_tensor(const std::vector<complex128>& v) {
  Tensor t = Tensor::empty({static_cast<int64_t>(v.size())}, DType::Complex128);
  for (size_t i = 0; i < v.size(); ++i) t.data<complex128>()[i] = v[i];
  return t;
}

double ref_rsqrt(double v) { return 1 / std::sqrt(v); }
double ref_sign(double v) { return v > 0 ? 1 : (v < 0 ? -1 : 0); }
double ref_square(double v) { return v * v; }
double ref_reciprocal(double v) { return 1 / v; }
double ref_neg(double v) { return -v; }
double ref_abs(double v) { return std::abs(v); }

}  // namespace

TEST(Unary, ValuesMatchStdMath) {
  expect_unary_matches(neg, ref_neg, -3, 3);
  expect_unary_matches(exp, [](double v) { return std::exp(v); }, -3, 3);
  expect_unary_matches(log, [](double v) { return std::log(v); }, 0.01, 5);
  expect_unary_matches(abs, ref_abs, -3, 3);
  expect_unary_matches(log1p, [](double v) { return std::log1p(v); }, -0.9, 3);
  expect_unary_matches(expm1, [](double v) { return std::expm1(v); }, -3, 3);
  expect_unary_matches(sqrt, [](double v) { return std::sqrt(v); }, 0, 4);
  expect_unary_matches(rsqrt, ref_rsqrt, 0.01, 4);
  expect_unary_matches(sin, [](double v) { return std::sin(v); }, -4, 4);
  expect_unary_matches(cos, [](double v) { return std::cos(v); }, -4, 4);
  expect_unary_matches(tan, [](double v) { return std::tan(v); }, -1.4, 1.4);
  expect_unary_matches(tanh, [](double v) { return std::tanh(v); }, -4, 4);
  expect_unary_matches(erf, [](double v) { return std::erf(v); }, -3, 3);
  expect_unary_matches(sign, ref_sign, -3, 3);
  expect_unary_matches(floor, [](double v) { return std::floor(v); }, -5, 5);
  expect_unary_matches(ceil, [](double v) { return std::ceil(v); }, -5, 5);
  expect_unary_matches(round, [](double v) { return std::nearbyint(v); }, -5, 5);
  expect_unary_matches(square, ref_square, -3, 3);
  expect_unary_matches(reciprocal, ref_reciprocal, 0.1, 3);
}

TEST(Unary, SpecialValues) {
  auto r = values(round(from_vector({0.5, 1.5, 2.5, -0.5, -2.5, 2.4999}, {6})));
  EXPECT_EQ(r, (std::vector<double>{0, 2, 2, -0.0, -2, 2}));  // halves to even
  auto s = values(sign(from_vector({NAN, 0.0, -0.0, -7, INFINITY}, {5})));
  EXPECT_TRUE(std::isnan(s[0]));
  EXPECT_EQ(s[1], 0);
  EXPECT_EQ(s[2], 0);
  EXPECT_EQ(s[3], -1);
  EXPECT_EQ(s[4], 1);
  EXPECT_EQ(values(log1p(from_vector({1e-17}, {1})))[0], 1e-17);  // accurate where log(1 + x) is 0
  EXPECT_EQ(values(expm1(from_vector({1e-17}, {1})))[0], 1e-17);
  EXPECT_EQ(values(sqrt(from_vector({-1.0}, {1}))).size(), 1u);
  EXPECT_TRUE(std::isnan(values(sqrt(from_vector({-1.0}, {1})))[0]));
  EXPECT_EQ(values(reciprocal(from_vector({0.0}, {1})))[0], INFINITY);
}

TEST(Unary, DtypeRules) {
  Tensor i32 = from_vector({-3, 0, 2}, {3}, DType::Int32);
  Tensor i64 = from_vector({-3, 0, 2}, {3}, DType::Int64);
  // exact arithmetic keeps integers
  EXPECT_EQ(abs(i32).dtype(), DType::Int32);
  EXPECT_EQ(values(abs(i32)), (std::vector<double>{3, 0, 2}));
  EXPECT_EQ(sign(i64).dtype(), DType::Int64);
  EXPECT_EQ(values(sign(i64)), (std::vector<double>{-1, 0, 1}));
  EXPECT_EQ(square(i64).dtype(), DType::Int64);
  EXPECT_EQ(values(square(i64)), (std::vector<double>{9, 0, 4}));
  EXPECT_EQ(floor(i32).dtype(), DType::Int32);
  EXPECT_EQ(values(round(i32)), (std::vector<double>{-3, 0, 2}));
  EXPECT_EQ(neg(i32).dtype(), DType::Int32);
  // floating functions of integers and bools give float32
  for (UnaryFn f : {UnaryFn(sqrt), UnaryFn(exp), UnaryFn(sin), UnaryFn(tanh), UnaryFn(erf), UnaryFn(log1p),
                    UnaryFn(reciprocal), UnaryFn(rsqrt)}) {
    EXPECT_EQ(f(i64).dtype(), DType::Float32);
    EXPECT_EQ(f(from_vector({1, 0}, {2}, DType::Bool)).dtype(), DType::Float32);
  }
  EXPECT_NEAR(values(sqrt(from_vector({4, 2}, {2}, DType::Int64)))[1], std::sqrt(2.0), 1e-6);
  EXPECT_EQ(values(reciprocal(from_vector({4}, {1}, DType::Int32)))[0], 0.25);
}

TEST(Unary, ComplexInputs) {
  std::vector<complex128> z = {{3, 4}, {-1, 0.5}, {0, 0}, {0.2, -2}};
  Tensor x = complex_tensor(z);
  Tensor a = abs(x);
  EXPECT_EQ(a.dtype(), DType::Float64);
  EXPECT_EQ(abs(cast(x, DType::Complex64)).dtype(), DType::Float32);
  auto av = values(a);
  for (size_t i = 0; i < z.size(); ++i) EXPECT_NEAR(av[i], std::abs(z[i]), 1e-15);
  Tensor s = sign(x);
  EXPECT_EQ(s.dtype(), DType::Complex128);
  for (size_t i = 0; i < z.size(); ++i) {
    complex128 want = std::abs(z[i]) == 0 ? complex128(0) : z[i] / std::abs(z[i]);
    EXPECT_NEAR(std::abs(s.data<complex128>()[i] - want), 0, 1e-15);
  }
  struct Case { Tensor (*op)(const Tensor&); complex128 (*ref)(complex128); };
  Case cases[] = {{sqrt, [](complex128 v) { return std::sqrt(v); }},
                  {sin, [](complex128 v) { return std::sin(v); }},
                  {cos, [](complex128 v) { return std::cos(v); }},
                  {tan, [](complex128 v) { return std::tan(v); }},
                  {tanh, [](complex128 v) { return std::tanh(v); }},
                  {square, [](complex128 v) { return v * v; }},
                  {exp, [](complex128 v) { return std::exp(v); }}};
  for (auto& c : cases) {
    Tensor out = c.op(x);
    ASSERT_EQ(out.dtype(), DType::Complex128);
    for (size_t i = 0; i < z.size(); ++i)
      EXPECT_NEAR(std::abs(out.data<complex128>()[i] - c.ref(z[i])), 0, 1e-13);
  }
}

TEST(Unary, BadDtypesRaiseClearErrors) {
  Tensor z = complex_tensor({{1, 2}});
  for (UnaryFn f : {UnaryFn(log1p), UnaryFn(expm1), UnaryFn(erf), UnaryFn(floor), UnaryFn(ceil), UnaryFn(round)}) {
    try {
      f(z);
      ADD_FAILURE() << "complex input accepted";
    } catch (const TypeError& e) {
      std::string m = e.what();
      EXPECT_NE(m.find("op 'core::"), std::string::npos) << m;
      EXPECT_NE(m.find("complex128"), std::string::npos) << m;
      EXPECT_NE(m.find("expected a real"), std::string::npos) << m;
    }
  }
  Tensor b = from_vector({1, 0}, {2}, DType::Bool);
  EXPECT_THROW(square(b), TypeError);
  EXPECT_THROW(abs(b), TypeError);
  EXPECT_THROW(neg(b), TypeError);
  try {
    exp_(from_vector({1}, {1}, DType::Int64));
    ADD_FAILURE() << "exp_ on int64 accepted";
  } catch (const TypeError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("core::exp_"), std::string::npos) << m;
    EXPECT_NE(m.find("float32"), std::string::npos) << m;
    EXPECT_NE(m.find("int64"), std::string::npos) << m;
  }
  // float16 is supported (computed in float32, see half_test.cpp); log1p is real-only.
  EXPECT_THROW(log1p(cast(from_vector({1}, {1}), DType::Complex128)), TypeError);
}

TEST(Unary, InPlace) {
  Tensor x = uniform({3, 4}, 0.1, 2, 11);
  auto before = values(x);
  uint64_t v0 = x.version();
  Tensor r = exp_(x);
  EXPECT_TRUE(r.is_same(x));
  EXPECT_EQ(x.version(), v0 + 1);
  auto after = values(x);
  for (size_t i = 0; i < before.size(); ++i) EXPECT_DOUBLE_EQ(after[i], std::exp(before[i]));
  Tensor t = transpose(uniform({4, 3}, 0.1, 2, 12), 0, 1);  // in place through a strided view
  before = values(t);
  sqrt_(t);
  after = values(t);
  for (size_t i = 0; i < before.size(); ++i) EXPECT_DOUBLE_EQ(after[i], std::sqrt(before[i]));
}

TEST(Unary, InPlaceGradientUsesTheValueBeforeTheWrite) {
  Tensor x = from_vector({0.3, 1.2}, {2}).requires_grad_();
  Tensor y = x * 1.0;
  exp_(y);
  sum(y).backward();
  auto g = values(x.grad());
  EXPECT_NEAR(g[0], std::exp(0.3), 1e-14);
  EXPECT_NEAR(g[1], std::exp(1.2), 1e-14);
  Tensor w = from_vector({4.0}, {1}).requires_grad_();
  Tensor u = w * 1.0;
  sqrt_(u);
  sum(u).backward();
  EXPECT_NEAR(values(w.grad())[0], 0.25, 1e-14);
}

TEST(Unary, GradientOfAbsAtZeroIsZero) {
  Tensor x = from_vector({0.0, -2.0, 3.0}, {3}).requires_grad_();
  sum(abs(x)).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{0, -1, 1}));
}

TEST(Unary, CheckOp) {
  Tensor pos = uniform({2, 3}, 0.3, 2.0, 21), any = uniform({2, 3}, -2.0, 2.0, 22);
  Tensor away_from_zero = from_vector({-1.7, -0.6, 0.4, 1.3, 2.2, -2.9}, {2, 3});
  Tensor away_from_ints = from_vector({-1.7, -0.6, 0.4, 1.3, 2.2, -2.9}, {2, 3});
  Tensor zr = complex_tensor({{0.3, -0.4}, {-0.5, 0.3}, {0.5, 0.6}});  // tame for tan/tanh
  for (const char* name : {"core::neg", "core::exp", "core::sin", "core::cos", "core::tanh", "core::square",
                           "core::erf", "core::expm1", "core::tan"})
    expect_check_op(name, {any * 0.7});
  for (const char* name : {"core::log", "core::log1p", "core::sqrt", "core::rsqrt", "core::reciprocal"})
    expect_check_op(name, {pos});
  expect_check_op("core::abs", {away_from_zero});
  expect_check_op("core::sign", {away_from_zero});
  for (const char* name : {"core::floor", "core::ceil", "core::round"}) expect_check_op(name, {away_from_ints});
  for (const char* name : {"core::exp", "core::log", "core::sqrt", "core::rsqrt", "core::sin", "core::cos",
                           "core::tan", "core::tanh", "core::square", "core::reciprocal", "core::neg",
                           "core::abs", "core::sign"})
    expect_check_op(name, {zr});
  expect_check_op("core::exp_", {any});
  expect_check_op("core::sqrt_", {pos});
}
