// Tests of the backward engine: first and second derivatives, accumulation, version counters.
#include <gtest/gtest.h>

#include "sampan/autograd.h"
#include "sampan/ops.h"

using namespace sampan;

TEST(Autograd, ProductRuleIntoLeaves) {
  Tensor x = from_vector({1, 2, 3}, {3});
  Tensor y = from_vector({4, 5, 6}, {3});
  x.requires_grad_();
  y.requires_grad_();
  Tensor loss = sum(x * y + x);
  loss.backward();
  for (int i = 0; i < 3; ++i) {
    EXPECT_DOUBLE_EQ(x.grad().data<double>()[i], y.data<double>()[i] + 1.0);
    EXPECT_DOUBLE_EQ(y.grad().data<double>()[i], x.data<double>()[i]);
  }
}

TEST(Autograd, SecondDerivativeOfExp) {
  Tensor x = from_vector({0.5}, {1});
  x.requires_grad_();
  Tensor y = sum(exp(x * x));  // y = exp(x^2): y' = 2x e^{x^2}, y'' = (2 + 4x^2) e^{x^2}
  auto g = grad({y}, {x}, {}, /*create_graph=*/true);
  double e = std::exp(0.25);
  EXPECT_NEAR(g[0].item(), 2 * 0.5 * e, 1e-12);
  auto h = grad({sum(g[0])}, {x});
  EXPECT_NEAR(h[0].item(), (2 + 4 * 0.25) * e, 1e-12);
}

TEST(Autograd, BroadcastGradientIsSummed) {
  Tensor x = ones({2, 3}, DType::Float64).requires_grad_();
  Tensor b = ones({3}, DType::Float64).requires_grad_();
  sum(x + b).backward();
  EXPECT_EQ(b.grad().shape(), (Shape{3}));
  EXPECT_DOUBLE_EQ(b.grad().data<double>()[0], 2.0);
}

TEST(Autograd, InplaceAfterSaveIsAnError) {
  Tensor x = ones({3}, DType::Float64).requires_grad_();
  Tensor a = x * 2.0;
  Tensor b = a * a;  // saves a
  add_(a, ones({3}, DType::Float64));
  EXPECT_THROW(sum(b).backward(), RuntimeError);
}

TEST(Autograd, InplaceOnLeafRequiringGradIsAnError) {
  Tensor x = ones({3}, DType::Float64).requires_grad_();
  EXPECT_THROW(add_(x, ones({3}, DType::Float64)), RuntimeError);
}

TEST(Autograd, InplaceOnAViewWhileRecordingIsRefused) {
  Tensor base = zeros({2, 3}, DType::Float64);
  Tensor v = reshape(base, {6});
  Tensor src = ones({6}, DType::Float64).requires_grad_();
  EXPECT_THROW(add_(v, src), NotImplementedError);
  // Without gradients in play it is an ordinary write through the view.
  add_(v, ones({6}, DType::Float64));
  EXPECT_DOUBLE_EQ(base.data<double>()[4], 1.0);
}

TEST(Autograd, GradOfNonLeafAndUnusedInputs) {
  Tensor x = from_vector({1.0, 2.0}, {2}).requires_grad_();
  Tensor y = x * x;          // non-leaf
  Tensor z = sum(y * 3.0);   // dz/dy = 3
  Tensor unused = ones({2}, DType::Float64).requires_grad_();
  auto g = grad({z}, {y, x, unused}, {}, false, false, /*allow_unused=*/true);
  EXPECT_DOUBLE_EQ(g[0].data<double>()[1], 3.0);
  EXPECT_DOUBLE_EQ(g[1].data<double>()[1], 12.0);  // 3 * 2x
  EXPECT_FALSE(g[2].defined());
  EXPECT_FALSE(x.grad().defined()) << "grad() must not accumulate into .grad";
  EXPECT_THROW(grad({sum(x * 1.0)}, {unused}), RuntimeError);
}

TEST(Autograd, HooksAndRetainGrad) {
  Tensor x = from_vector({1.0, 2.0}, {2}).requires_grad_();
  Tensor y = x * 2.0;
  y.retain_grad();
  int calls = 0;
  x.register_hook([&](const Tensor& g) { ++calls; return g * 10.0; });
  sum(y).backward();
  EXPECT_EQ(calls, 1);
  EXPECT_DOUBLE_EQ(y.grad().data<double>()[0], 1.0);
  EXPECT_DOUBLE_EQ(x.grad().data<double>()[0], 20.0);  // hook scaled 2 by 10
}

TEST(Autograd, SecondBackwardWithoutRetainGraphFails) {
  Tensor x = from_vector({1.0}, {1}).requires_grad_();
  Tensor y = sum(x * x);
  y.backward();
  EXPECT_THROW(y.backward(), RuntimeError);
  Tensor y2 = sum(x * x);
  y2.backward({}, /*retain_graph=*/true);
  y2.backward();
  EXPECT_DOUBLE_EQ(x.grad().data<double>()[0], 2.0 + 2.0 + 2.0);
}

TEST(Autograd, GradientAccumulatesAcrossUses) {
  Tensor x = from_vector({3.0}, {1}).requires_grad_();
  Tensor y = x * x + x * x * x;  // 2x + 3x^2 = 6 + 27
  sum(y).backward();
  EXPECT_DOUBLE_EQ(x.grad().data<double>()[0], 33.0);
}
