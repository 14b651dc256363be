// check_op itself: it passes correct ops and catches a wrong vjp, a lying shape function and a
// once-differentiable op that claims more.
#include <gtest/gtest.h>

#include "sampan/ops.h"
#include "sampan/testing/check_op.h"

using namespace sampan;

namespace {

Tensor sample(const Shape& s, double start = 0.3) {
  std::vector<double> v;
  for (int64_t i = 0; i < shape_numel(s); ++i) v.push_back(start + 0.17 * static_cast<double>(i));
  return from_vector(v, s);
}

// y = x^3 with a deliberately wrong gradient (2x instead of 3x^2).
SAMPAN_OP(test, wrong_cube)
    .args("x")
    .shape([](const TensorSpec& x) { return x; })
    .cpu([](const Tensor& x, Tensor& out) {
      auto* i = x.contiguous().data<double>();
      auto* o = out.data<double>();
      for (int64_t k = 0; k < x.numel(); ++k) o[k] = i[k] * i[k] * i[k];
    })
    .vjp([](const VjpContext& c) -> Grads { return {mul(c.grad_output(0), mul(c.input(0), 2.0 * ones_like(c.input(0))))}; });

// y = x^2 with the right gradient computed opaquely (once differentiable).
SAMPAN_OP(test, opaque_square)
    .args("x")
    .shape([](const TensorSpec& x) { return x; })
    .cpu([](const Tensor& x, Tensor& out) {
      auto* i = x.contiguous().data<double>();
      auto* o = out.data<double>();
      for (int64_t k = 0; k < x.numel(); ++k) o[k] = i[k] * i[k];
    })
    .vjp([](const VjpContext& c) -> Grads { return {mul(c.grad_output(0), c.input(0) * 2.0)}; })
    .once_differentiable();

}  // namespace

TEST(CheckOp, PassesCorrectOps) {
  for (const char* name : {"core::add", "core::mul", "core::div", "core::sub"}) {
    auto r = check_op(name, {sample({2, 3}), sample({3}, 1.1)});
    EXPECT_TRUE(r.ok) << name << ": " << r.summary();
  }
  auto r = check_op("core::exp", {sample({4})});
  EXPECT_TRUE(r.ok) << r.summary();
  r = check_op("core::sum", {sample({2, 3}), std::vector<int64_t>{1}, true});
  EXPECT_TRUE(r.ok) << r.summary();
  r = check_op("core::permute", {sample({2, 3, 2}), std::vector<int64_t>{2, 0, 1}});
  EXPECT_TRUE(r.ok) << r.summary();
}

Tensor complex_sample(const Shape& s, double start) {
  Tensor t = Tensor::empty(s, DType::Complex128);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<complex128>()[i] = {start + 0.3 * i, 0.5 - 0.2 * i};
  return t;
}

TEST(CheckOp, PassesComplexOps) {
  for (const char* name : {"core::mul", "core::div", "core::add"}) {
    auto r = check_op(name, {complex_sample({3}, 0.4), complex_sample({3}, -0.9)});
    EXPECT_TRUE(r.ok) << name << ": " << r.summary();
  }
  auto r = check_op("core::exp", {complex_sample({3}, 0.1)});
  EXPECT_TRUE(r.ok) << r.summary();
  // A real input times a complex one: the real input's gradient is the real part.
  r = check_op("core::mul", {sample({3}), complex_sample({3}, 0.2)});
  EXPECT_TRUE(r.ok) << r.summary();
}

TEST(CheckOp, CatchesAWrongGradient) {
  auto r = check_op("test::wrong_cube", {sample({3})});
  EXPECT_FALSE(r.ok);
  ASSERT_FALSE(r.failures.empty());
  EXPECT_NE(r.failures[0].find("first-order gradient"), std::string::npos) << r.summary();
}

TEST(CheckOp, OnceDifferentiableRaisesOnSecondOrder) {
  auto r = check_op("test::opaque_square", {sample({3})});
  EXPECT_TRUE(r.ok) << r.summary();
  bool noted = false;
  for (auto& n : r.notes) noted = noted || n.find("raised as declared") != std::string::npos;
  EXPECT_TRUE(noted) << r.summary();
}

TEST(CheckOp, InplaceOpBumpsVersion) {
  auto r = check_op("core::add_", {sample({2, 3}), sample({3})});
  EXPECT_TRUE(r.ok) << r.summary();
}
