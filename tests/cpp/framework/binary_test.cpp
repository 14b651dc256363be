// Tests of the binary math ops added to framework/src/ops/binary.cpp (pow, maximum, minimum,
// atan2, remainder, floor_divide, where): values against std:: math with broadcasting and
// transposed inputs, integer semantics (Python's % and //, exact powers), dtype promotion,
// gradients at the special points (x = 0 for pow, ties for maximum), errors, and check_op.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "sampan/autograd.h"
#include "sampan/ops.h"
#include "sampan/testing/check_op.h"

#include "../test_util.h"

using namespace sampan;
using sampan::test::expect_check_op;
using sampan::test::uniform;
using sampan::test::values;

namespace {

// op(x, y) against ref for x in [xlo, xhi], y in [ylo, yhi]: same shapes, broadcasting
// ([4, 1] with [3]), a transposed x, and a size above the parallel grain.
template <class Op, class Ref>
void expect_matches(Op op, Ref ref, double xlo, double xhi, double ylo, double yhi, double tol = 1e-12) {
  struct Pair { Tensor x, y; };
  std::vector<Pair> pairs = {
      {uniform({5}, xlo, xhi, 1), uniform({5}, ylo, yhi, 2)},
      {uniform({4, 1}, xlo, xhi, 3), uniform({3}, ylo, yhi, 4)},
      {transpose(uniform({3, 4}, xlo, xhi, 5), 0, 1), uniform({4, 3}, ylo, yhi, 6)},
      {transpose(uniform({250, 140}, xlo, xhi, 7), 0, 1), uniform({250}, ylo, yhi, 8)},
  };
  for (auto& p : pairs) {
    Tensor out = op(p.x, p.y);
    Shape s = broadcast_shapes(p.x.shape(), p.y.shape());
    ASSERT_EQ(out.shape(), s);
    ASSERT_EQ(out.dtype(), DType::Float64);
    auto xs = values(broadcast_to(p.x, s)), ys = values(broadcast_to(p.y, s)), os = values(out);
    for (size_t i = 0; i < os.size(); ++i) {
      double want = ref(xs[i], ys[i]);
      ASSERT_NEAR(os[i], want, tol * (1 + std::abs(want))) << "at x = " << xs[i] << ", y = " << ys[i];
    }
  }
}

Tensor ints(const std::vector<double>& v, DType d = DType::Int64) {
  return from_vector(v, {static_cast<int64_t>(v.size())}, d);
}

// Python's % and // on doubles, as the reference.
double py_mod(double a, double b) {
  double r = std::fmod(a, b);
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

}  // namespace

TEST(Binary, ValuesMatchStdMath) {
  auto P = [](const Tensor& x, const Tensor& y) { return pow(x, y); };
  expect_matches(P, [](double a, double b) { return std::pow(a, b); }, 0.1, 3, -2.5, 2.5);
  auto Mx = [](const Tensor& x, const Tensor& y) { return maximum(x, y); };
  expect_matches(Mx, [](double a, double b) { return std::max(a, b); }, -2, 2, -2, 2);
  auto Mn = [](const Tensor& x, const Tensor& y) { return minimum(x, y); };
  expect_matches(Mn, [](double a, double b) { return std::min(a, b); }, -2, 2, -2, 2);
  auto A = [](const Tensor& y, const Tensor& x) { return atan2(y, x); };
  expect_matches(A, [](double a, double b) { return std::atan2(a, b); }, -2, 2, -2, 2);
  auto R = [](const Tensor& x, const Tensor& y) { return remainder(x, y); };
  expect_matches(R, py_mod, -10, 10, -3, 3, 1e-9);
  auto F = [](const Tensor& x, const Tensor& y) { return floor_divide(x, y); };
  expect_matches(F, [](double a, double b) { return std::floor(a / b); }, -10, 10, 0.3, 3);
  auto W = [](const Tensor& x, const Tensor& y) { return where(gt(x, y), x, y); };
  expect_matches(W, [](double a, double b) { return a > b ? a : b; }, -2, 2, -2, 2);
}

TEST(Binary, PowSpecialCases) {
  auto v = values(pow(from_vector({0, 0, 2, -2, 4}, {5}), from_vector({0, 2, -1, 3, 0.5}, {5})));
  EXPECT_EQ(v, (std::vector<double>{1, 0, 0.5, -8, 2}));
  Tensor i = pow(ints({2, -3, 5, 0, 7}), ints({10, 3, 0, 0, 1}));
  EXPECT_EQ(i.dtype(), DType::Int64);
  EXPECT_EQ(values(i), (std::vector<double>{1024, -27, 1, 1, 7}));
  EXPECT_EQ(pow(ints({3}, DType::Int32), ints({2}, DType::Int32)).dtype(), DType::Int32);
  EXPECT_EQ(pow(ints({2}), 0.5).dtype(), DType::Float32);  // a float scalar makes it float
  EXPECT_EQ(pow(ints({2}), 3.0).dtype(), DType::Int64);
  EXPECT_EQ(values(pow(ints({3}, DType::Int32), 20.0))[0], static_cast<double>(static_cast<int32_t>(3486784401u)));  // wraps
  try {
    pow(ints({2, 3}), ints({1, -1}));
    ADD_FAILURE() << "negative integer exponent accepted";
  } catch (const ValueError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("core::pow"), std::string::npos) << m;
    EXPECT_NE(m.find("negative"), std::string::npos) << m;
  }
  EXPECT_THROW(pow(ints({1}, DType::Bool), ints({1}, DType::Bool)), TypeError);
  Tensor z = Tensor::empty({2}, DType::Complex128);
  z.data<complex128>()[0] = {0, 0};
  z.data<complex128>()[1] = {1, 1};
  Tensor zp = pow(z, z);
  EXPECT_EQ(zp.data<complex128>()[0], complex128(1, 0));
  EXPECT_NEAR(std::abs(zp.data<complex128>()[1] - std::pow(complex128(1, 1), complex128(1, 1))), 0, 1e-15);
}

TEST(Binary, PowGradientAtZeroBase) {
  // d/dy x^y at x = 0 is 0 for y >= 0 (PyTorch), and d/dx at y = 0 is 0, never NaN.
  Tensor x = from_vector({0, 0, 2}, {3}).requires_grad_();
  Tensor y = from_vector({0, 2, 3}, {3}).requires_grad_();
  sum(pow(x, y)).backward();
  auto gx = values(x.grad()), gy = values(y.grad());
  EXPECT_EQ(gx[0], 0);
  EXPECT_EQ(gx[1], 0);
  EXPECT_DOUBLE_EQ(gx[2], 12);
  EXPECT_EQ(gy[0], 0);
  EXPECT_EQ(gy[1], 0);
  EXPECT_DOUBLE_EQ(gy[2], 8 * std::log(2.0));
}

TEST(Binary, ExtremaPropagateNanAndSplitTies) {
  auto mx = values(maximum(from_vector({NAN, 1, 2}, {3}), from_vector({0, NAN, 1}, {3})));
  EXPECT_TRUE(std::isnan(mx[0]));
  EXPECT_TRUE(std::isnan(mx[1]));
  EXPECT_EQ(mx[2], 2);
  EXPECT_EQ(maximum(ints({1, 5}, DType::Int32), ints({3, 2}, DType::Int32)).dtype(), DType::Int32);
  EXPECT_EQ(values(minimum(ints({1, 5}), ints({3, 2}))), (std::vector<double>{1, 2}));
  EXPECT_EQ(maximum(ints({1}, DType::Int32), from_vector({0.5}, {1}, DType::Float32)).dtype(), DType::Float32);
  Tensor x = from_vector({1, 2, 3}, {3}).requires_grad_();
  Tensor y = from_vector({2, 2, 1}, {3}).requires_grad_();
  sum(maximum(x, y)).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{0, 0.5, 1}));
  EXPECT_EQ(values(y.grad()), (std::vector<double>{1, 0.5, 0}));
  Tensor z = Tensor::empty({1}, DType::Complex64);
  try {
    maximum(z, z);
    ADD_FAILURE() << "complex maximum accepted";
  } catch (const TypeError& e) {
    EXPECT_NE(std::string(e.what()).find("complex64"), std::string::npos) << e.what();
  }
}

TEST(Binary, IntegerRemainderAndFloorDivideArePythons) {
  Tensor a = ints({7, -7, 7, -7, 0, 6}), b = ints({3, 3, -3, -3, 5, -3});
  EXPECT_EQ(values(remainder(a, b)), (std::vector<double>{1, 2, -2, -1, 0, 0}));
  EXPECT_EQ(values(floor_divide(a, b)), (std::vector<double>{2, -3, -3, 2, 0, -2}));
  EXPECT_EQ(remainder(a, b).dtype(), DType::Int64);
  EXPECT_EQ(floor_divide(ints({7}, DType::Int32), ints({2}, DType::Int32)).dtype(), DType::Int32);
  // lowest / -1 overflows in C++; here it wraps (as NumPy) instead of trapping
  Tensor lowest = Tensor::empty({1}, DType::Int64);
  lowest.data<int64_t>()[0] = std::numeric_limits<int64_t>::lowest();
  EXPECT_EQ(floor_divide(lowest, ints({-1})).data<int64_t>()[0], std::numeric_limits<int64_t>::lowest());
  EXPECT_EQ(remainder(lowest, ints({-1})).data<int64_t>()[0], 0);
  using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);
  for (BinaryFn f : {BinaryFn(remainder), BinaryFn(floor_divide)}) {
    try {
      f(a, ints({1, 0, 1, 1, 1, 1}));
      ADD_FAILURE() << "integer division by zero accepted";
    } catch (const ValueError& e) {
      EXPECT_NE(std::string(e.what()).find("division by zero"), std::string::npos) << e.what();
    }
  }
  // floats: a == b * (a // b) + a % b, and the signs of Python
  Tensor x = uniform({200}, -50, 50, 3), y = uniform({200}, -4, 4, 4);
  auto xs = values(x), ys = values(y), q = values(floor_divide(x, y)), r = values(remainder(x, y));
  for (size_t i = 0; i < xs.size(); ++i) {
    EXPECT_NEAR(ys[i] * q[i] + r[i], xs[i], 1e-12 * (1 + std::abs(xs[i])));
    EXPECT_TRUE(r[i] == 0 || (r[i] < 0) == (ys[i] < 0));
    EXPECT_LT(std::abs(r[i]), std::abs(ys[i]));
  }
  auto fz = values(floor_divide(from_vector({1, -1}, {2}), from_vector({0, 0}, {2})));
  EXPECT_EQ(fz[0], INFINITY);
  EXPECT_EQ(fz[1], -INFINITY);
}

TEST(Binary, Atan2Quadrants) {
  auto v = values(atan2(from_vector({1, 1, -1, -1, 0}, {5}), from_vector({1, -1, -1, 1, -1}, {5})));
  const double pi = std::acos(-1.0);
  EXPECT_DOUBLE_EQ(v[0], pi / 4);
  EXPECT_DOUBLE_EQ(v[1], 3 * pi / 4);
  EXPECT_DOUBLE_EQ(v[2], -3 * pi / 4);
  EXPECT_DOUBLE_EQ(v[3], -pi / 4);
  EXPECT_DOUBLE_EQ(v[4], pi);
  EXPECT_EQ(atan2(ints({1}), ints({1})).dtype(), DType::Float32);
}

TEST(Binary, WhereBroadcastsThreeWaysAndPromotes) {
  Tensor cond = from_vector({1, 0}, {2, 1, 1}, DType::Bool);
  Tensor x = from_vector({1, 2, 3}, {3}, DType::Int64);
  Tensor y = from_vector({-1, -2, -3, -4}, {4, 1}, DType::Float32);
  Tensor out = where(cond, x, y);
  EXPECT_EQ(out.shape(), (Shape{2, 4, 3}));
  EXPECT_EQ(out.dtype(), DType::Float32);
  auto v = values(out);
  for (int c = 0; c < 2; ++c)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 3; ++j) EXPECT_EQ(v[(c * 4 + i) * 3 + j], c == 0 ? j + 1 : -(i + 1));
  // a transposed operand
  Tensor t = transpose(from_vector({1, 2, 3, 4, 5, 6}, {2, 3}), 0, 1);  // [[1,4],[2,5],[3,6]]
  auto w = values(where(from_vector({1, 0}, {2}, DType::Bool), t, from_vector({0}, {1})));
  EXPECT_EQ(w, (std::vector<double>{1, 0, 2, 0, 3, 0}));
  try {
    where(from_vector({1}, {1}), x, x);
    ADD_FAILURE() << "a float condition accepted";
  } catch (const TypeError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("'cond'"), std::string::npos) << m;
    EXPECT_NE(m.find("float64"), std::string::npos) << m;
  }
  EXPECT_THROW(where(cond, x, from_vector({1, 2}, {2})), ValueError);  // shapes do not broadcast
}

TEST(Binary, WhereGradientsFollowTheCondition) {
  Tensor cond = from_vector({1, 0, 1}, {3}, DType::Bool);
  Tensor x = from_vector({1, 2, 3}, {3}).requires_grad_();
  Tensor y = from_vector({5}, {1}).requires_grad_();
  sum(where(cond, x, y)).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{1, 0, 1}));
  EXPECT_EQ(values(y.grad()), (std::vector<double>{1}));  // summed back over the broadcast
}

TEST(Binary, CheckOp) {
  Tensor pos = uniform({2, 3}, 0.4, 2.0, 31), any = uniform({3}, -2.0, 2.0, 32);
  expect_check_op("core::pow", {pos, any});
  expect_check_op("core::pow", {pos, from_vector({2.0}, {1})});
  Tensor z = Tensor::empty({3}, DType::Complex128), w = Tensor::empty({3}, DType::Complex128);
  for (int i = 0; i < 3; ++i) {
    z.data<complex128>()[i] = {0.4 + 0.3 * i, -0.2 + 0.5 * i};
    w.data<complex128>()[i] = {0.9 - 0.4 * i, 0.3 * i};
  }
  expect_check_op("core::pow", {z, w});
  Tensor a = from_vector({-1.3, 0.2, 1.7, 0.9, -0.4, 2.5}, {2, 3}), b = from_vector({0.5, -0.8, 1.1}, {3});
  expect_check_op("core::maximum", {a, b});
  expect_check_op("core::minimum", {a, b});
  expect_check_op("core::atan2", {a, b});
  expect_check_op("core::remainder", {a, b});
  expect_check_op("core::floor_divide", {a, b});
  expect_check_op("core::where", {from_vector({1, 0}, {2, 1}, DType::Bool), a, b});
}
