// The engine sums the gradient contributions to a tensor used several times in place when the
// sum is not recorded and the buffer is seen by nothing else. These tests build graphs where a
// contribution is also held elsewhere (a tensor an identity-like vjp passed on, one gradient
// returned for two inputs, a captured or retained gradient, a user's grad_outputs or earlier
// .grad): writing into any of those would change a value the test checks. Expected values are
// the analytic derivatives.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>

#include "sampan/autograd.h"
#include "sampan/op.h"
#include "sampan/ops.h"

using namespace sampan;

namespace {

// y = x, whose vjp hands on the incoming gradient tensor itself (not a copy): the aliasing case.
SAMPAN_OP(test, pass_through)
    .args("x")
    .shape([](const TensorSpec& x) { return x; })
    .cpu([](const Tensor& x, Tensor& out) {
      Tensor c = x.contiguous();
      auto* i = c.data<double>();
      auto* o = out.data<double>();
      for (int64_t k = 0; k < x.numel(); ++k) o[k] = i[k];
    })
    .vjp([](const VjpContext& c) -> Grads { return {c.grad_output(0)}; });

Tensor pass_through(const Tensor& x) {
  static OpHandle op("test::pass_through");
  return op(x)[0];
}

Tensor values(std::initializer_list<double> v) { return from_vector(std::vector<double>(v), {int64_t(v.size())}); }

void expect_values(const Tensor& t, const std::vector<double>& want, const char* what) {
  ASSERT_TRUE(t.defined()) << what;
  ASSERT_EQ(t.numel(), int64_t(want.size())) << what;
  Tensor c = t.contiguous();
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(c.data<double>()[i], want[i], 1e-12) << what << " [" << i << "]";
}

}  // namespace

// h feeds an identity-like op (whose vjp passes on dL/dy itself) and a product: h's buffer first
// holds the very tensor captured as dL/dy; adding the second contribution into it would turn the
// captured dL/dy = w into w + v.
TEST(GradAccumulation, IdentityVjpOutputSharedWithCapture) {
  Tensor x = values({0.5, -1.0, 2.0}).requires_grad_();
  Tensor w = values({1.5, 2.5, -0.5}), v = values({3.0, -2.0, 0.25});
  Tensor h = x * 2.0;
  Tensor y = pass_through(h);
  Tensor loss = sum(y * w) + sum(h * v);
  auto g = grad({loss}, {y, h, x});
  expect_values(g[0], {1.5, 2.5, -0.5}, "dL/dy = w");
  expect_values(g[1], {4.5, 0.5, -0.25}, "dL/dh = w + v");
  expect_values(g[2], {9.0, 1.0, -0.5}, "dL/dx = 2 (w + v)");
}

// The same with retain_grad on y: y.grad holds the tensor the identity vjp passes on to h.
TEST(GradAccumulation, IdentityVjpOutputSharedWithRetainedGrad) {
  Tensor x = values({0.5, -1.0}).requires_grad_();
  Tensor h = x * 3.0;
  Tensor y = pass_through(h);
  y.retain_grad();
  Tensor loss = sum(y * values({2.0, 4.0})) + sum(h * h);  // dL/dh = w + 2h
  loss.backward();
  expect_values(y.grad(), {2.0, 4.0}, "y.grad = w");
  expect_values(x.grad(), {3 * (2.0 + 2 * 1.5), 3 * (4.0 + 2 * -3.0)}, "x.grad = 3 (w + 2h)");
}

// add's vjp returns one tensor for both of its inputs: a and b's buffers share it, and each gets
// a second contribution. Writing the first sum into the shared tensor would leak a's second
// contribution into b's gradient.
TEST(GradAccumulation, OneGradientReturnedForTwoInputs) {
  Tensor x = values({0.3, 1.2}).requires_grad_();
  Tensor a = exp(x), b = sin(x);
  Tensor loss = sum((a + b) * values({2.0, -1.0})) + sum(a * a) + sum(b * 5.0);
  auto g = grad({loss}, {a, b, x});
  for (int i = 0; i < 2; ++i) {
    double xi = i == 0 ? 0.3 : 1.2, wi = i == 0 ? 2.0 : -1.0;
    double da = wi + 2 * std::exp(xi), db = wi + 5.0;
    EXPECT_NEAR(g[0].data<double>()[i], da, 1e-12);
    EXPECT_NEAR(g[1].data<double>()[i], db, 1e-12);
    EXPECT_NEAR(g[2].data<double>()[i], da * std::exp(xi) + db * std::cos(xi), 1e-12);
  }
}

// A leaf and a non-leaf each used three times.
TEST(GradAccumulation, TensorUsedThreeTimes) {
  Tensor x = values({0.4, -0.7, 1.1}).requires_grad_();
  Tensor u = x * 1.5;
  Tensor loss = sum(sin(x) + cos(x) + x * x) + sum(exp(u) + u * u + u * 4.0);
  loss.backward();
  for (int i = 0; i < 3; ++i) {
    double xi = x.data<double>()[i], ui = 1.5 * xi;
    double want = std::cos(xi) - std::sin(xi) + 2 * xi + 1.5 * (std::exp(ui) + 2 * ui + 4.0);
    EXPECT_NEAR(x.grad().data<double>()[i], want, 1e-12);
  }
}

// Two roots on the same output: the caller's grad_outputs are summed, never written.
TEST(GradAccumulation, GradOutputsAreNotWritten) {
  Tensor x = values({1.0, 2.0}).requires_grad_();
  Tensor y = x * 3.0;
  Tensor g1 = values({1.0, 10.0}), g2 = values({0.5, 0.25});
  backward({y, y, sum(y * y)}, {g1, g2, Tensor()});
  expect_values(g1, {1.0, 10.0}, "g1");
  expect_values(g2, {0.5, 0.25}, "g2");
  expect_values(x.grad(), {3 * (1.5 + 2 * 3.0), 3 * (10.25 + 2 * 6.0)}, "x.grad");
}

// A .grad handed out earlier keeps its values when a later backward adds to the leaf's gradient;
// one that nobody holds is added to in place (same memory).
TEST(GradAccumulation, LeafGradAcrossBackwardCalls) {
  Tensor x = values({1.0, -2.0}).requires_grad_();
  sum(x * x).backward();  // 2x
  Tensor first = x.grad();
  sum(x * x * x).backward();  // + 3x^2
  expect_values(first, {2.0, -4.0}, "the .grad returned after the first backward");
  expect_values(x.grad(), {2.0 + 3.0, -4.0 + 12.0}, ".grad after two backward calls");
  EXPECT_FALSE(x.grad().is_same(first));

  first = Tensor();  // nothing else holds .grad now
  const auto before = reinterpret_cast<std::uintptr_t>(x.grad().raw_data());
  sum(x * 4.0).backward();
  expect_values(x.grad(), {9.0, 12.0}, ".grad after three backward calls");
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(x.grad().raw_data()), before) << "expected an in-place add";
}

// A .grad that views another tensor's memory (set by the user) is never written.
TEST(GradAccumulation, LeafGradViewIsNotWritten) {
  Tensor x = values({1.0, 2.0}).requires_grad_();
  Tensor base = values({7.0, 8.0, 9.0, 10.0});
  x.set_grad(select(reshape(base, {2, 2}), 0, 0));
  sum(x * 2.0).backward();
  expect_values(base, {7.0, 8.0, 9.0, 10.0}, "the tensor .grad was a view of");
  expect_values(x.grad(), {9.0, 10.0}, ".grad");
}

// create_graph: the sums stay recorded, so the second derivative of a tensor used several
// times is right (f = x^3 + sin x + x e^x: f'' = 6x - sin x + (2 + x) e^x).
TEST(GradAccumulation, DoubleBackwardUnchanged) {
  Tensor x = values({0.6, -0.3}).requires_grad_();
  Tensor f = sum(x * x * x + sin(x) + x * exp(x));
  auto g = grad({f}, {x}, {}, /*create_graph=*/true);
  auto h = grad({sum(g[0])}, {x});
  for (int i = 0; i < 2; ++i) {
    double xi = x.data<double>()[i];
    EXPECT_NEAR(g[0].data<double>()[i], 3 * xi * xi + std::cos(xi) + (1 + xi) * std::exp(xi), 1e-12);
    EXPECT_NEAR(h[0].data<double>()[i], 6 * xi - std::sin(xi) + (2 + xi) * std::exp(xi), 1e-12);
  }
}

// retain_graph: the second pass over the same graph gives the same gradients (no buffer or saved
// tensor of the first pass was written).
TEST(GradAccumulation, RetainGraphSecondPassSame) {
  Tensor x = values({0.2, 0.9}).requires_grad_();
  Tensor u = exp(x);
  Tensor loss = sum(u * u + u * x + sin(u));
  auto g1 = grad({loss}, {x, u}, {}, false, /*retain_graph=*/true);
  auto g2 = grad({loss}, {x, u}, {}, false, /*retain_graph=*/true);
  for (int i = 0; i < 2; ++i) {
    double xi = x.data<double>()[i], ui = std::exp(xi);
    double du = 2 * ui + xi + std::cos(ui);
    EXPECT_NEAR(g1[1].data<double>()[i], du, 1e-12);
    EXPECT_NEAR(g1[0].data<double>()[i], du * ui + ui, 1e-12);
    EXPECT_EQ(g1[0].data<double>()[i], g2[0].data<double>()[i]);
    EXPECT_EQ(g1[1].data<double>()[i], g2[1].data<double>()[i]);
  }
  loss.backward({}, true);
  loss.backward();
  for (int i = 0; i < 2; ++i) EXPECT_NEAR(x.grad().data<double>()[i], 2 * g1[0].data<double>()[i], 1e-12);
}
