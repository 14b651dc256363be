// Tests of the comparison and logical ops (framework/src/ops/compare.cpp): values against C++
// operators on random inputs with broadcasting, promotion and transposed operands, NaN and
// complex semantics, bool outputs without gradients, errors, and check_op.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "sampan/autograd.h"
#include "sampan/ops.h"
#include "sampan/testing/check_op.h"

#include "../test_util.h"

using namespace sampan;
using sampan::test::values;

namespace {

// Small integers as doubles, so that ties are frequent.
Tensor small_ints(const Shape& s, uint64_t seed, DType d = DType::Float64) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> u(-2, 2);
  std::vector<double> v(static_cast<size_t>(shape_numel(s)));
  for (auto& x : v) x = u(rng);
  return from_vector(v, s, d);
}


Tensor complex_tensor(const std::vector<complex128>& v) {
  Tensor t = Tensor::empty({static_cast<int64_t>(v.size())}, DType::Complex128);
  for (size_t i = 0; i < v.size(); ++i) t.data<complex128>()[i] = v[i];
  return t;
}

using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);

void expect_matches(BinaryFn op, std::function<bool(double, double)> ref, const Tensor& x, const Tensor& y) {
  Tensor out = op(x, y);
  Shape s = broadcast_shapes(x.shape(), y.shape());
  ASSERT_EQ(out.shape(), s);
  ASSERT_EQ(out.dtype(), DType::Bool);
  auto xs = values(broadcast_to(x, s)), ys = values(broadcast_to(y, s)), os = values(out);
  for (size_t i = 0; i < os.size(); ++i) ASSERT_EQ(os[i], ref(xs[i], ys[i]) ? 1.0 : 0.0) << xs[i] << " vs " << ys[i];
}

}  // namespace

TEST(Compare, ValuesMatchCppOperators) {
  struct Case { BinaryFn op; std::function<bool(double, double)> ref; };
  std::vector<Case> cases = {
      {eq, [](double a, double b) { return a == b; }},
      {ne, [](double a, double b) { return a != b; }},
      {lt, [](double a, double b) { return a < b; }},
      {le, [](double a, double b) { return a <= b; }},
      {gt, [](double a, double b) { return a > b; }},
      {ge, [](double a, double b) { return a >= b; }},
      {logical_and, [](double a, double b) { return a != 0 && b != 0; }},
      {logical_or, [](double a, double b) { return a != 0 || b != 0; }},
      {logical_xor, [](double a, double b) { return (a != 0) != (b != 0); }},
  };
  for (auto& c : cases) {
    expect_matches(c.op, c.ref, small_ints({7}, 1), small_ints({7}, 2));
    expect_matches(c.op, c.ref, small_ints({4, 1}, 3), small_ints({5}, 4));                         // broadcast
    expect_matches(c.op, c.ref, transpose(small_ints({3, 4}, 5), 0, 1), small_ints({4, 3}, 6));     // strided
    expect_matches(c.op, c.ref, small_ints({5}, 7, DType::Int32), small_ints({5}, 8, DType::Float32));  // promoted
    expect_matches(c.op, c.ref, transpose(small_ints({300, 120}, 9), 0, 1), small_ints({300}, 10));  // parallel
  }
}

TEST(Compare, PromotionIsExact) {
  // int64 vs float64 compares in float64: 2 == 2.0, and int32 vs int64 in int64.
  EXPECT_EQ(values(eq(from_vector({2, 3}, {2}, DType::Int64), from_vector({2.0, 3.5}, {2}))),
            (std::vector<double>{1, 0}));
  Tensor big = Tensor::empty({1}, DType::Int64);
  big.data<int64_t>()[0] = (int64_t(1) << 40) + 1;
  EXPECT_EQ(values(gt(big, from_vector({1}, {1}, DType::Int32))), (std::vector<double>{1}));
  EXPECT_EQ(values(eq(from_vector({1, 0}, {2}, DType::Bool), from_vector({1, 1}, {2}, DType::Int32))),
            (std::vector<double>{1, 0}));
  EXPECT_EQ(values(lt(from_vector({0.5}, {1}, DType::Float16), from_vector({0.75}, {1}, DType::BFloat16))),
            (std::vector<double>{1}));
}

TEST(Compare, NanAndComplex) {
  Tensor n = from_vector({NAN, 1}, {2});
  EXPECT_EQ(values(eq(n, n)), (std::vector<double>{0, 1}));
  EXPECT_EQ(values(ne(n, n)), (std::vector<double>{1, 0}));
  EXPECT_EQ(values(le(n, n)), (std::vector<double>{0, 1}));
  Tensor z = complex_tensor({{1, 2}, {1, 0}, {0, 0}});
  Tensor w = complex_tensor({{1, 2}, {1, 1}, {0, 0}});
  EXPECT_EQ(values(eq(z, w)), (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(values(eq(z, from_vector({1}, {1}))), (std::vector<double>{0, 1, 0}));
  try {
    lt(z, w);
    ADD_FAILURE() << "complex ordering accepted";
  } catch (const TypeError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("core::lt"), std::string::npos) << m;
    EXPECT_NE(m.find("complex128"), std::string::npos) << m;
  }
  // a complex number is true when either part is nonzero (0 + 2i included)
  Tensor zi = complex_tensor({{0, 2}, {0, 0}, {3, 0}});
  EXPECT_EQ(values(logical_not(zi)), (std::vector<double>{0, 1, 0}));
  EXPECT_EQ(values(logical_and(zi, from_vector({1, 1, 0}, {3}))), (std::vector<double>{1, 0, 0}));
}

TEST(Compare, NanAndFiniteTests) {
  Tensor x = from_vector({NAN, INFINITY, -INFINITY, 0, -3.5}, {5});
  EXPECT_EQ(values(isnan(x)), (std::vector<double>{1, 0, 0, 0, 0}));
  EXPECT_EQ(values(isfinite(x)), (std::vector<double>{0, 0, 0, 1, 1}));
  EXPECT_EQ(values(isnan(cast(x, DType::Float32))), (std::vector<double>{1, 0, 0, 0, 0}));
  EXPECT_EQ(values(isfinite(cast(x, DType::Float16))), (std::vector<double>{0, 0, 0, 1, 1}));
  Tensor i = from_vector({1, -2}, {2}, DType::Int64);
  EXPECT_EQ(values(isnan(i)), (std::vector<double>{0, 0}));
  EXPECT_EQ(values(isfinite(i)), (std::vector<double>{1, 1}));
  Tensor z = complex_tensor({{NAN, 0}, {1, INFINITY}, {1, 2}});
  EXPECT_EQ(values(isnan(z)), (std::vector<double>{1, 0, 0}));
  EXPECT_EQ(values(isfinite(z)), (std::vector<double>{0, 0, 1}));
  EXPECT_EQ(isnan(transpose(from_vector({1, 2, 3, 4}, {2, 2}), 0, 1)).shape(), (Shape{2, 2}));
  EXPECT_EQ(values(logical_not(transpose(from_vector({1, 0, 0, 2}, {2, 2}), 0, 1))),
            (std::vector<double>{0, 1, 1, 0}));
}

TEST(Compare, OutputsCarryNoGradient) {
  Tensor x = from_vector({1, 2}, {2}).requires_grad_();
  Tensor y = from_vector({2, 2}, {2}).requires_grad_();
  for (BinaryFn f : {eq, ne, lt, le, gt, ge, logical_and, logical_or, logical_xor}) {
    Tensor out = f(x, y);
    EXPECT_EQ(out.dtype(), DType::Bool);
    EXPECT_FALSE(out.requires_grad());
  }
  EXPECT_FALSE(isnan(x).requires_grad());
  EXPECT_FALSE(logical_not(x).requires_grad());
  EXPECT_THROW(eq(x, from_vector({1, 2, 3}, {3})), ValueError);
}

TEST(Compare, CheckOp) {
  Tensor a = from_vector({-1.3, 0.2, 1.7, 0.9, -0.4, 2.5}, {2, 3}), b = from_vector({0.5, 0.2, 1.1}, {3});
  for (const char* name : {"core::eq", "core::ne", "core::lt", "core::le", "core::gt", "core::ge",
                           "core::logical_and", "core::logical_or", "core::logical_xor"}) {
    auto r = check_op(name, {a, b});
    EXPECT_TRUE(r.ok) << name << ": " << r.summary();
  }
  for (const char* name : {"core::logical_not", "core::isnan", "core::isfinite"}) {
    auto r = check_op(name, {a});
    EXPECT_TRUE(r.ok) << name << ": " << r.summary();
  }
}
