// Tests of the fused training-mode batch normalization (normalization.cpp,
// kernels/batch_norm_kernels.h): the defining properties (each output column has mean `bias`
// and standard deviation |weight| * sqrt(var / (var + eps)), Ioffe and Szegedy 2015 Algorithm 1),
// agreement with the elementwise composition it replaces (values and gradients), gradients by
// finite differences (check_op, first and second order), double backward through the forward
// op, the once-differentiable backward op failing loudly, and thread-count independence.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>

#include "sampan/autograd.h"
#include "sampan/ops.h"

#include "../test_util.h"

using namespace sampan;
using sampan::test::expect_check_op;
using sampan::test::uniform;
using sampan::test::values;

namespace {

// The composition sampan.nn.functional.batch_norm used before the fused op (training, 2-D).
Tensor composite(const Tensor& x, const Tensor& w, const Tensor& b, double eps) {
  Tensor m = mean(x, {0}, false);
  Tensor centered = x - m;
  Tensor var = mean(centered * centered, {0}, false);
  return centered * rsqrt(var + eps) * w + b;
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  auto va = values(a), vb = values(b);
  double worst = 0;
  for (size_t i = 0; i < va.size(); ++i) worst = std::max(worst, std::abs(va[i] - vb[i]));
  return worst;
}

}  // namespace

TEST(BatchNormTrain, ColumnsAreNormalized) {
  const int64_t n = 50, c = 4;
  Tensor x = uniform({n, c}, -3, 5, 1) * from_vector({1, 10, 0.1, 3}, {c});
  Tensor w = from_vector({1.0, -2.0, 0.5, 3.0}, {c}), b = from_vector({0.0, 1.0, -1.0, 2.5}, {c});
  auto [out, mu, var] = batch_norm_train(x, w, b, 1e-5);
  auto xv = values(x), ov = values(out), mv = values(mu), vv = values(var), wv = values(w), bv = values(b);
  for (int64_t j = 0; j < c; ++j) {
    double s = 0, s2 = 0, o = 0, o2 = 0;
    for (int64_t r = 0; r < n; ++r) { s += xv[r * c + j]; o += ov[r * c + j]; }
    const double ref_mean = s / n, out_mean = o / n;
    for (int64_t r = 0; r < n; ++r) {
      s2 += (xv[r * c + j] - ref_mean) * (xv[r * c + j] - ref_mean);
      o2 += (ov[r * c + j] - out_mean) * (ov[r * c + j] - out_mean);
    }
    const double ref_var = s2 / n;  // biased, as in training
    EXPECT_NEAR(mv[j], ref_mean, 1e-12 * (1 + std::abs(ref_mean)));
    EXPECT_NEAR(vv[j], ref_var, 1e-12 * ref_var);
    EXPECT_NEAR(out_mean, bv[j], 1e-12);
    EXPECT_NEAR(std::sqrt(o2 / n), std::abs(wv[j]) * std::sqrt(ref_var / (ref_var + 1e-5)), 1e-12);
  }
}

TEST(BatchNormTrain, MatchesTheComposition) {
  // A GIN layer's size in float32: the forward as the composition (to the last accumulation's
  // rounding), the gradients to float32 reassociation.
  const int64_t n = 700, c = 300;
  Tensor x = cast(uniform({n, c}, -2, 3, 2), DType::Float32);
  Tensor w = cast(uniform({c}, 0.5, 1.5, 3), DType::Float32), b = cast(uniform({c}, -0.5, 0.5, 4), DType::Float32);
  Tensor gy = cast(uniform({n, c}, -1, 1, 5), DType::Float32);
  Tensor fused = std::get<0>(batch_norm_train(x, w, b, 1e-5));
  EXPECT_LE(max_abs_diff(fused, composite(x, w, b, 1e-5)), 2e-6);
  std::vector<Tensor> leaves = {x.detach().requires_grad_(), w.detach().requires_grad_(), b.detach().requires_grad_()};
  auto g_fused = grad({sum(std::get<0>(batch_norm_train(leaves[0], leaves[1], leaves[2], 1e-5)) * gy)}, leaves);
  auto g_comp = grad({sum(composite(leaves[0], leaves[1], leaves[2], 1e-5) * gy)}, leaves);
  EXPECT_LE(max_abs_diff(g_fused[0], g_comp[0]), 2e-5);
  EXPECT_LE(max_abs_diff(g_fused[1], g_comp[1]), 2e-3);  // sums of 700 products of size ~1
  EXPECT_LE(max_abs_diff(g_fused[2], g_comp[2]), 2e-3);
  // float64: the same up to double rounding
  Tensor x64 = uniform({n, 7}, -2, 3, 6), w64 = uniform({7}, 0.5, 1.5, 7), b64 = uniform({7}, -1, 1, 8);
  EXPECT_LE(max_abs_diff(std::get<0>(batch_norm_train(x64, w64, b64, 1e-5)), composite(x64, w64, b64, 1e-5)), 1e-12);
}

TEST(BatchNormTrain, Gradients) {
  Tensor x = uniform({6, 3}, -1, 2, 9), w = uniform({3}, 0.5, 1.5, 10), b = uniform({3}, -1, 1, 11);
  expect_check_op("core::batch_norm_train", {x, w, b, 1e-5});
  expect_check_op("core::batch_norm_train", {uniform({2, 4}, -1, 1, 12), uniform({4}, -2, 2, 13), uniform({4}, -1, 1, 14), 0.5});
  expect_check_op("core::batch_norm_train_backward",
                  {x, uniform({6, 3}, -1, 1, 15), uniform({3}, -0.5, 0.5, 16), uniform({3}, 0.5, 1.5, 17), w, 1e-5,
                   uniform({3}, -1, 1, 18), uniform({3}, -1, 1, 19)});
}

TEST(BatchNormTrain, DoubleBackwardAndOnceDifferentiableBackward) {
  Tensor x = uniform({5, 2}, -1, 2, 20).requires_grad_(), w = uniform({2}, 0.5, 1.5, 21), b = uniform({2}, -1, 1, 22);
  Tensor gy = uniform({5, 2}, -1, 1, 23);
  // d/dx of sum(grad_x^2), through the forward op, equals the composition's (to rounding).
  auto second = [&](bool fused) {
    Tensor y = fused ? std::get<0>(batch_norm_train(x, w, b, 1e-5)) : composite(x, w, b, 1e-5);
    Tensor gx = grad({sum(y * gy)}, {x}, {}, true)[0];
    return grad({sum(gx * gx)}, {x})[0];
  };
  EXPECT_LE(max_abs_diff(second(true), second(false)), 1e-10);
  // The backward op called with inputs that require grad: a second derivative raises, naming it.
  Tensor xd = x.detach().requires_grad_();
  auto r = sampan::OpHandle("core::batch_norm_train_backward")(xd, gy, mean(xd, {0}, false).detach(), from_vector({1.0, 2.0}, {2}), w, 1e-5,
                                                               zeros({2}, DType::Float64), zeros({2}, DType::Float64));
  Tensor g1 = grad({sum(r[0] * r[0])}, {xd}, {}, true)[0];
  try {
    grad({sum(g1)}, {xd});
    FAIL() << "expected the once-differentiable error";
  } catch (const RuntimeError& e) {
    EXPECT_NE(std::string(e.what()).find("batch_norm_train_backward"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("once-differentiable"), std::string::npos) << e.what();
  }
}

TEST(BatchNormTrain, IndependentOfThreadCountAndErrors) {
  Tensor x = cast(uniform({2000, 256}, -2, 3, 24), DType::Float32);
  Tensor w = ones({256}, DType::Float32), b = zeros({256}, DType::Float32), gy = cast(uniform({2000, 256}, -1, 1, 25), DType::Float32);
  auto run = [&] {
    Tensor xl = x.detach().requires_grad_();
    Tensor y = std::get<0>(batch_norm_train(xl, w, b, 1e-5));
    return std::vector<double>{values(y)[12345], values(grad({sum(y * gy)}, {xl})[0])[54321]};
  };
  const int saved = omp_get_max_threads();
  omp_set_num_threads(1);
  auto one = run();
  omp_set_num_threads(std::max(4, saved));
  auto many = run();
  omp_set_num_threads(saved);
  EXPECT_EQ(one, many);
  EXPECT_THROW(batch_norm_train(uniform({3, 2, 2}, 0, 1, 26), ones({2}, DType::Float64), zeros({2}, DType::Float64)), ValueError);
  try {
    batch_norm_train(uniform({3, 2}, 0, 1, 27), ones({3}, DType::Float64), zeros({2}, DType::Float64));
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("'weight' must be float64 [2]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(batch_norm_train(cast(uniform({3, 2}, 0, 1, 27), DType::Int64), ones({2}, DType::Int64), zeros({2}, DType::Int64)),
               TypeError);
  EXPECT_THROW(batch_norm_train(uniform({3, 2}, 0, 1, 27), ones({2}, DType::Float64), zeros({2}, DType::Float64), -1.0), ValueError);
}
