// Tests of the activation ops (framework/src/ops/activation.cpp): values against reference
// formulas (contiguous and transposed inputs), numerical stability of softplus, clamp's bound
// rules and dtypes, in-place forms, gradients at the kinks, errors, and check_op.
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

double phi_cdf(double v) { return 0.5 * (1 + std::erf(v / std::sqrt(2.0))); }

}  // namespace

TEST(Activation, ValuesMatchReferenceFormulas) {
  expect_unary_matches([](const Tensor& x) { return sigmoid(x); }, [](double v) { return 1 / (1 + std::exp(-v)); }, -6, 6);
  expect_unary_matches([](const Tensor& x) { return relu(x); }, [](double v) { return v > 0 ? v : 0.0; }, -3, 3);
  expect_unary_matches([](const Tensor& x) { return gelu(x); }, [](double v) { return v * phi_cdf(v); }, -5, 5);
  expect_unary_matches([](const Tensor& x) { return silu(x); }, [](double v) { return v / (1 + std::exp(-v)); }, -6, 6);
  expect_unary_matches([](const Tensor& x) { return softplus(x); }, [](double v) { return std::log1p(std::exp(v)); }, -6, 6);
  expect_unary_matches([](const Tensor& x) { return softplus(x, 2.0, 5.0); },
                 [](double v) { return 2 * v > 5 ? v : std::log1p(std::exp(2 * v)) / 2; }, -6, 6);
  expect_unary_matches([](const Tensor& x) { return clamp(x, -0.5, 1.25); },
                 [](double v) { return std::min(std::max(v, -0.5), 1.25); }, -3, 3);
}

TEST(Activation, SoftplusIsStableAtTheExtremes) {
  auto v = values(softplus(from_vector({-1000, -40, 40, 1000, 1e-300}, {5})));
  EXPECT_EQ(v[0], 0.0);
  EXPECT_NEAR(v[1], std::exp(-40.0), 1e-30);  // not 0: log1p keeps the tiny value
  EXPECT_EQ(v[2], 40.0);                     // above the threshold: x itself
  EXPECT_EQ(v[3], 1000.0);
  EXPECT_NEAR(v[4], std::log(2.0), 1e-15);
  // with the threshold out of the way the stable form still does not overflow
  auto w = values(softplus(from_vector({1000, -1000}, {2}), 1.0, 1e9));
  EXPECT_EQ(w[0], 1000.0);
  EXPECT_EQ(w[1], 0.0);
  EXPECT_TRUE(std::isnan(values(softplus(from_vector({NAN}, {1})))[0]));
  auto s = values(sigmoid(from_vector({-1000, 1000}, {2})));
  EXPECT_EQ(s[0], 0.0);
  EXPECT_EQ(s[1], 1.0);
}

TEST(Activation, ReluPropagatesNanAndKeepsIntegers) {
  auto v = values(relu(from_vector({NAN, -1, 0, 2}, {4})));
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], 0);
  EXPECT_EQ(v[3], 2);
  Tensor i = relu(from_vector({-3, 4}, {2}, DType::Int32));
  EXPECT_EQ(i.dtype(), DType::Int32);
  EXPECT_EQ(values(i), (std::vector<double>{0, 4}));
  EXPECT_EQ(sigmoid(from_vector({1}, {1}, DType::Int64)).dtype(), DType::Float32);
  EXPECT_EQ(gelu(from_vector({1}, {1}, DType::Int64)).dtype(), DType::Float32);
}

TEST(Activation, ClampBoundsAndDtypes) {
  Tensor x = from_vector({-2, -0.5, 0.5, 3, NAN}, {5});
  auto lo_only = values(clamp(x, 0.0, std::nullopt));
  EXPECT_EQ(lo_only[0], 0);
  EXPECT_EQ(lo_only[3], 3);
  EXPECT_TRUE(std::isnan(lo_only[4]));  // NaN propagates
  auto hi_only = values(clamp(x, std::nullopt, 0.0));
  EXPECT_EQ(hi_only[0], -2);
  EXPECT_EQ(hi_only[3], 0);
  auto crossed = values(clamp(x, 1.0, -1.0));  // min > max: everything becomes max (PyTorch)
  EXPECT_EQ(crossed[0], -1);
  EXPECT_EQ(crossed[3], -1);
  Tensor i = from_vector({-5, 0, 9}, {3}, DType::Int64);
  EXPECT_EQ(clamp(i, -1.0, 4.0).dtype(), DType::Int64);
  EXPECT_EQ(values(clamp(i, -1.0, 4.0)), (std::vector<double>{-1, 0, 4}));
  EXPECT_EQ(values(clamp(i, -1e30, 1e30)), (std::vector<double>{-5, 0, 9}));  // bounds saturate
  Tensor f = clamp(i, -0.5, 2.5);  // a fractional bound makes it float32
  EXPECT_EQ(f.dtype(), DType::Float32);
  EXPECT_EQ(values(f), (std::vector<double>{-0.5, 0, 2.5}));
  EXPECT_THROW(clamp_(i, -0.5, 2.5), TypeError);
  try {
    clamp(x, std::nullopt, std::nullopt);
    ADD_FAILURE() << "clamp without bounds accepted";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("core::clamp"), std::string::npos) << e.what();
  }
}

TEST(Activation, InPlaceForms) {
  Tensor x = transpose(uniform({4, 3}, -2, 2, 9), 0, 1);
  auto before = values(x);
  uint64_t v0 = x.version();
  EXPECT_TRUE(relu_(x).is_same(x));
  EXPECT_EQ(x.version(), v0 + 1);
  auto after = values(x);
  for (size_t i = 0; i < before.size(); ++i) EXPECT_EQ(after[i], std::max(before[i], 0.0));
  Tensor y = uniform({5}, -2, 2, 10);
  before = values(y);
  clamp_(y, -1.0, 1.0);
  after = values(y);
  for (size_t i = 0; i < before.size(); ++i) EXPECT_EQ(after[i], std::min(std::max(before[i], -1.0), 1.0));
}

TEST(Activation, GradientsAtTheKinks) {
  Tensor x = from_vector({-1, 0, 2}, {3}).requires_grad_();
  sum(relu(x)).backward();
  EXPECT_EQ(values(x.grad()), (std::vector<double>{0, 0, 1}));  // relu'(0) = 0 (PyTorch)
  Tensor c = from_vector({-2, -1, 0, 1, 2}, {5}).requires_grad_();
  sum(clamp(c, -1.0, 1.0)).backward();
  EXPECT_EQ(values(c.grad()), (std::vector<double>{0, 1, 1, 1, 0}));  // bounds inclusive
  // the in-place forms differentiate through the value before the write
  Tensor w = from_vector({-1, 3}, {2}).requires_grad_();
  Tensor h = w * 1.0;
  relu_(h);
  sum(h).backward();
  EXPECT_EQ(values(w.grad()), (std::vector<double>{0, 1}));
}

TEST(Activation, BadInputsRaiseClearErrors) {
  Tensor z = Tensor::empty({1}, DType::Complex128);
  z.data<complex128>()[0] = {1, 1};
  EXPECT_THROW(relu(z), TypeError);
  EXPECT_THROW(gelu(z), TypeError);
  EXPECT_THROW(clamp(z, 0.0, 1.0), TypeError);
  EXPECT_THROW(relu(from_vector({1}, {1}, DType::Bool)), TypeError);
  try {
    softplus(from_vector({1}, {1}), 0.0);
    ADD_FAILURE() << "beta = 0 accepted";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("beta"), std::string::npos) << e.what();
  }
}

TEST(Activation, CheckOp) {
  Tensor x = from_vector({-1.7, -0.6, 0.4, 1.3, 2.2, -2.9}, {2, 3});
  Tensor z = Tensor::empty({3}, DType::Complex128);
  z.data<complex128>()[0] = {0.3, -0.4};
  z.data<complex128>()[1] = {-0.5, 0.7};
  z.data<complex128>()[2] = {1.1, 0.2};
  for (const char* name : {"core::sigmoid", "core::relu", "core::gelu", "core::silu"}) expect_check_op(name, {x});
  expect_check_op("core::sigmoid", {z});
  expect_check_op("core::relu_", {x});
  expect_check_op("core::softplus", {x, 1.0, 20.0});
  expect_check_op("core::softplus", {x, 1.5, 2.0});  // both sides of the threshold
  expect_check_op("core::softplus", {x, -0.7, 20.0});
  expect_check_op("core::clamp", {x, -1.0, 1.0});
  expect_check_op("core::clamp", {x, std::nan(""), 0.5});
  expect_check_op("core::clamp_", {x, -1.0, 1.0});
}
