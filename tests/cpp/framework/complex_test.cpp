// Tests of the complex-number ops (framework/src/ops/complex.cpp, and abs of complex in
// unary.cpp): values against std::complex, dtype rules, broadcasting and strided inputs,
// gradients by PyTorch's convention, errors, and check_op.
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

namespace {

Tensor random_complex(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-2, 2);
  Tensor t = Tensor::empty({n}, DType::Complex128);
  for (int64_t i = 0; i < n; ++i) t.data<complex128>()[i] = {u(rng), u(rng)};
  return t;
}

std::vector<complex128> cvalues(const Tensor& t) {
  Tensor c = cast(t, DType::Complex128).contiguous();
  return std::vector<complex128>(c.data<complex128>(), c.data<complex128>() + c.numel());
}

}  // namespace

TEST(Complex, PartsModulusAndAngle) {
  Tensor z = random_complex(50, 1);
  auto zs = cvalues(z);
  auto re = values(real(z)), im = values(imag(z)), ab = values(abs(z)), an = values(angle(z));
  EXPECT_EQ(imag(z).dtype(), DType::Float64);
  EXPECT_EQ(abs(z).dtype(), DType::Float64);
  EXPECT_EQ(angle(z).dtype(), DType::Float64);
  for (size_t i = 0; i < zs.size(); ++i) {
    EXPECT_EQ(re[i], zs[i].real());
    EXPECT_EQ(im[i], zs[i].imag());
    EXPECT_NEAR(ab[i], std::abs(zs[i]), 1e-15);
    EXPECT_NEAR(an[i], std::arg(zs[i]), 1e-15);
  }
  Tensor z64 = cast(z, DType::Complex64);
  EXPECT_EQ(imag(z64).dtype(), DType::Float32);
  EXPECT_EQ(abs(z64).dtype(), DType::Float32);
  EXPECT_EQ(angle(z64).dtype(), DType::Float32);
  // a strided complex input: the imaginary parts of a transposed [2, 3]
  Tensor m = Tensor::empty({2, 3}, DType::Complex128);
  for (int i = 0; i < 6; ++i) m.data<complex128>()[i] = {0, double(i)};
  EXPECT_EQ(values(imag(transpose(m, 0, 1))), (std::vector<double>{0, 3, 1, 4, 2, 5}));
}

TEST(Complex, RealInputs) {
  Tensor x = from_vector({-2, 0, 3, NAN}, {4});
  auto im = values(imag(x));
  EXPECT_EQ(im[0], 0);
  EXPECT_EQ(imag(x).dtype(), DType::Float64);
  const double pi = std::acos(-1.0);
  auto an = values(angle(x));
  EXPECT_EQ(an[0], pi);
  EXPECT_EQ(an[1], 0);
  EXPECT_EQ(an[2], 0);
  EXPECT_TRUE(std::isnan(an[3]));
  EXPECT_EQ(angle(from_vector({-1}, {1}, DType::Int64)).dtype(), DType::Float32);
  EXPECT_NEAR(values(angle(from_vector({-1}, {1}, DType::Int64)))[0], pi, 1e-6);
}

TEST(Complex, PolarAndComplexBuildComplexTensors) {
  Tensor r = uniform({4, 1}, -1, 3, 2), t = uniform({5}, -4, 4, 3);
  Tensor p = polar(r, t);
  EXPECT_EQ(p.shape(), (Shape{4, 5}));
  EXPECT_EQ(p.dtype(), DType::Complex128);
  auto rs = values(broadcast_to(r, {4, 5})), ts = values(broadcast_to(t, {4, 5}));
  auto ps = cvalues(p);
  for (size_t i = 0; i < ps.size(); ++i) {  // negative moduli too (std::polar does not allow them)
    complex128 want(rs[i] * std::cos(ts[i]), rs[i] * std::sin(ts[i]));
    EXPECT_NEAR(std::abs(ps[i] - want), 0, 1e-14);
  }
  Tensor c = complex(transpose(uniform({3, 2}, -1, 1, 4), 0, 1), uniform({3}, -1, 1, 5));
  EXPECT_EQ(c.shape(), (Shape{2, 3}));
  auto cs = cvalues(c);
  auto re = values(transpose(uniform({3, 2}, -1, 1, 4), 0, 1)), im = values(broadcast_to(uniform({3}, -1, 1, 5), {2, 3}));
  for (size_t i = 0; i < cs.size(); ++i) EXPECT_EQ(cs[i], complex128(re[i], im[i]));
  // dtypes: float32 -> complex64, float64 wins, integers compute in float32
  Tensor f32 = from_vector({1}, {1}, DType::Float32), i64 = from_vector({1}, {1}, DType::Int64);
  EXPECT_EQ(complex(f32, f32).dtype(), DType::Complex64);
  EXPECT_EQ(complex(f32, from_vector({1}, {1})).dtype(), DType::Complex128);
  EXPECT_EQ(polar(i64, i64).dtype(), DType::Complex64);
  // round trip z = polar(|z|, angle(z))
  Tensor z = random_complex(20, 6);
  auto back = cvalues(polar(abs(z), angle(z))), zs = cvalues(z);
  for (size_t i = 0; i < zs.size(); ++i) EXPECT_NEAR(std::abs(back[i] - zs[i]), 0, 1e-14);
}

TEST(Complex, BadInputsRaiseClearErrors) {
  Tensor z = random_complex(2, 7);
  try {
    polar(z, from_vector({1, 2}, {2}));
    ADD_FAILURE() << "complex modulus accepted";
  } catch (const TypeError& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("core::polar"), std::string::npos) << m;
    EXPECT_NE(m.find("'abs'"), std::string::npos) << m;
    EXPECT_NE(m.find("complex128"), std::string::npos) << m;
  }
  EXPECT_THROW(complex(from_vector({1}, {1}), z), TypeError);
  EXPECT_THROW(complex(from_vector({1, 2}, {2}), from_vector({1, 2, 3}, {3})), ValueError);
}

TEST(Complex, GradientsFollowPyTorchConvention) {
  // L = sum(imag(z)): dL/dRe = 0, dL/dIm = 1, so the gradient is 0 + 1i.
  Tensor z = random_complex(3, 8).requires_grad_();
  sum(imag(z)).backward();
  for (auto g : cvalues(z.grad())) EXPECT_EQ(g, complex128(0, 1));
  // L = sum(|z|): the gradient is z / |z|.
  Tensor w = random_complex(3, 9).requires_grad_();
  sum(abs(w)).backward();
  auto ws = cvalues(w), gs = cvalues(w.grad());
  for (size_t i = 0; i < ws.size(); ++i) EXPECT_NEAR(std::abs(gs[i] - ws[i] / std::abs(ws[i])), 0, 1e-15);
  // L = sum(real(complex(a, b)) + 2 imag(complex(a, b))): da = 1, db = 2
  Tensor a = from_vector({1, 2}, {2}).requires_grad_(), b = from_vector({3, 4}, {2}).requires_grad_();
  Tensor c = complex(a, b);
  sum(real(c) + imag(c) * 2.0).backward();
  EXPECT_EQ(values(a.grad()), (std::vector<double>{1, 1}));
  EXPECT_EQ(values(b.grad()), (std::vector<double>{2, 2}));
}

TEST(Complex, CheckOp) {
  Tensor z = Tensor::empty({3}, DType::Complex128);
  z.data<complex128>()[0] = {0.7, -0.4};
  z.data<complex128>()[1] = {-1.1, 0.3};
  z.data<complex128>()[2] = {0.5, 0.9};
  Tensor r = from_vector({0.4, 1.3, -0.8, 2.1, 0.9, 1.6}, {2, 3}), t = from_vector({-2.0, 0.5, 1.4}, {3});
  expect_check_op("core::imag", {z});
  expect_check_op("core::real", {z});
  expect_check_op("core::angle", {z});
  expect_check_op("core::angle", {r});
  expect_check_op("core::abs", {z});
  expect_check_op("core::polar", {r, t});
  expect_check_op("core::complex", {r, t});
}
