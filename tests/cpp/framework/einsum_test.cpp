// Tests of framework/src/ops/einsum.cpp: the common equations against explicit loops, implicit
// output, ellipsis, diagonals, broadcasting, errors, and gradients (einsum is a composition of
// ops, so first and second derivatives come from them; checked against finite differences).
#include <gtest/gtest.h>

#include <random>

#include "sampan/autograd.h"
#include "sampan/ops.h"

using namespace sampan;

namespace {

std::vector<double> values(const Tensor& t) {
  Tensor c = t.detach().to(DType::Float64).contiguous();
  return std::vector<double>(c.data<double>(), c.data<double>() + c.numel());
}

Tensor random(const Shape& s, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(static_cast<size_t>(shape_numel(s)));
  for (auto& x : v) x = u(rng);
  return from_vector(v, s);
}

void expect_close(const Tensor& got, const Tensor& want, double tol = 1e-13) {
  ASSERT_EQ(got.shape(), want.shape());
  auto g = values(got), w = values(want);
  for (size_t i = 0; i < g.size(); ++i) EXPECT_NEAR(g[i], w[i], tol) << "element " << i;
}

}  // namespace

TEST(Einsum, MatrixProductsMatchMatmul) {
  Tensor a = random({3, 4}, 1), b = random({4, 5}, 2);
  expect_close(einsum("ij,jk->ik", {a, b}), matmul(a, b));
  expect_close(einsum("ij,jk", {a, b}), matmul(a, b));  // implicit output "ik"
  expect_close(einsum("ij,jk->ki", {a, b}), transpose(matmul(a, b), 0, 1));
  Tensor x = random({2, 3, 4}, 3), y = random({2, 4, 5}, 4);
  expect_close(einsum("bij,bjk->bik", {x, y}), matmul(x, y));
  expect_close(einsum("...ij,...jk->...ik", {x, b}), matmul(x, b));
  expect_close(einsum("bij , bjk -> bik", {x, y}), matmul(x, y));  // spaces are ignored
}

TEST(Einsum, ReductionsTransposesAndDiagonals) {
  Tensor v = random({4}, 5), w = random({4}, 6), m = random({3, 3}, 7);
  EXPECT_NEAR(einsum("i,i->", {v, w}).item(), dot(v, w).item(), 1e-14);
  expect_close(einsum("i,j->ij", {v, w}), outer(v, w));
  expect_close(einsum("ij->ji", {m}), transpose(m, 0, 1));
  expect_close(einsum("ij->j", {m}), sum(m, {0}));
  EXPECT_NEAR(einsum("ij->", {m}).item(), sum(m).item(), 1e-14);
  auto mv = values(m);
  auto d = values(einsum("ii->i", {m}));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(d[i], mv[i * 4]);
  EXPECT_NEAR(einsum("ii", {m}).item(), mv[0] + mv[4] + mv[8], 1e-14);  // implicit: the trace
  // A label summed within one operand only, and a three-operand chain.
  Tensor a = random({2, 3}, 8), b = random({3, 4}, 9), c = random({4, 2}, 10);
  expect_close(einsum("ij,jk,kl->il", {a, b, c}), matmul(matmul(a, b), c));
  expect_close(einsum("ij,kl->i", {a, c}), mul(sum(a, {1}), sum(c)));
}

TEST(Einsum, AgainstLoopsWithBatchAndBroadcast) {
  // out[b, i, k] = sum_j x[b, i, j] y[j, k] z[b]: a batch label shared with a 1-D operand.
  Tensor x = random({2, 3, 4}, 11), y = random({4, 5}, 12), z = random({2}, 13);
  Tensor r = einsum("bij,jk,b->bik", {x, y, z});
  auto xv = values(x), yv = values(y), zv = values(z), rv = values(r);
  ASSERT_EQ(r.shape(), (Shape{2, 3, 5}));
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 5; ++k) {
        double s = 0;
        for (int j = 0; j < 4; ++j) s += xv[(b * 3 + i) * 4 + j] * yv[j * 5 + k] * zv[b];
        EXPECT_NEAR(rv[(b * 3 + i) * 5 + k], s, 1e-13);
      }
  // Ellipsis dimensions broadcast like NumPy's (size 1 against size 2).
  Tensor p = random({1, 3, 4}, 14), q = random({2, 4, 2}, 15);
  expect_close(einsum("...ij,...jk->...ik", {p, q}), matmul(p, q));
}

TEST(Einsum, Errors) {
  Tensor a = random({2, 3}, 1), b = random({4, 5}, 2);
  EXPECT_THROW(einsum("ij,jk->ik", {a, b}), ValueError);   // j: 3 vs 4
  EXPECT_THROW(einsum("ij,jk->ik", {a}), ValueError);      // operand count
  EXPECT_THROW(einsum("ijk->i", {a}), ValueError);         // rank
  EXPECT_THROW(einsum("ij->iz", {a}), ValueError);         // unknown output label
  EXPECT_THROW(einsum("ij->ii", {a}), ValueError);         // repeated output label
  EXPECT_THROW(einsum("i1->i", {a}), ValueError);          // bad character
  EXPECT_THROW(einsum("ii->i", {a}), ValueError);          // diagonal of a non-square pair
}

TEST(Einsum, FirstAndSecondDerivatives) {
  // f(a, b) = sum(einsum("ij,jk->ik", a, b)^2): compare the gradient and a Hessian-vector
  // product with finite differences.
  Tensor a0 = random({2, 3}, 21), b0 = random({3, 2}, 22), dir = random({2, 3}, 23);
  auto f = [&](const Tensor& a) {
    Tensor p = einsum("ij,jk->ik", {a, b0});
    return sum(mul(p, p));
  };
  Tensor a = a0.clone().requires_grad_();
  Tensor g = grad({f(a)}, {a}, {}, true)[0];
  Tensor hv = grad({sum(mul(g, dir))}, {a})[0];
  const double eps = 1e-6;
  auto gv = values(g), hvv = values(hv), dv = values(dir);
  for (int64_t i = 0; i < a0.numel(); ++i) {
    auto shifted = [&](double d) {
      Tensor p = a0.clone();
      p.data<double>()[i] += d;
      return p;
    };
    double fd = (f(shifted(eps)).item() - f(shifted(-eps)).item()) / (2 * eps);
    EXPECT_NEAR(gv[i], fd, 1e-6);
  }
  // Hessian-vector product by differences of the gradient along `dir`.
  auto grad_at = [&](double d) {
    Tensor p = add(a0, mul(dir, scalar_tensor(d))).detach().requires_grad_();
    return values(grad({f(p)}, {p})[0]);
  };
  auto gp = grad_at(eps), gm = grad_at(-eps);
  for (size_t i = 0; i < gp.size(); ++i) EXPECT_NEAR(hvv[i], (gp[i] - gm[i]) / (2 * eps), 1e-5);
  (void)dv;
}
