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
