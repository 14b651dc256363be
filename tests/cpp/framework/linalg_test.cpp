// Tests of framework/src/ops/linalg.cpp (matmul, outer, dot, vdot) and linalg_decomp.cpp (inv,
// solve, det, eigh, svd): values against naive loops and known matrices, every float dtype,
// transposed and broadcast inputs, error messages, and check_op on every op.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <random>

#include "sampan/autograd.h"
#include "sampan/ops.h"
#include "sampan/testing/check_op.h"

using namespace sampan;

namespace {

using C = complex128;

std::vector<C> cvalues(const Tensor& t) {
  Tensor c = t.detach().to(DType::Complex128).contiguous();
  return std::vector<C>(c.data<C>(), c.data<C>() + c.numel());
}
std::vector<double> values(const Tensor& t) {
  Tensor c = t.detach().to(DType::Float64).contiguous();
  return std::vector<double>(c.data<double>(), c.data<double>() + c.numel());
}

// Random tensor of `dtype` (complex dtypes get random imaginary parts too).
Tensor random(const Shape& s, DType dtype, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  Tensor t = Tensor::empty(s, DType::Complex128);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<C>()[i] = {u(rng), is_complex(dtype) ? u(rng) : 0.0};
  return t.to(dtype);
}

// The NumPy matmul of a and b (both at least 2-D) by explicit loops, in complex128.
std::vector<C> naive_matmul(const Tensor& a, const Tensor& b, Shape* out_shape) {
  Shape ba(a.shape().begin(), a.shape().end() - 2), bb(b.shape().begin(), b.shape().end() - 2);
  Shape batch = broadcast_shapes(ba, bb);
  const int64_t m = a.shape()[a.dim() - 2], k = a.shape().back(), n = b.shape().back();
  auto av = cvalues(a), bv = cvalues(b);
  std::vector<C> out;
  const int64_t nb = shape_numel(batch);
  for (int64_t i = 0; i < nb; ++i) {
    // batch multi-index -> flat batch index of each operand (size-1 dims broadcast)
    auto flat = [&](const Shape& own) {
      int64_t rem = i, f = 0, mult = 1;
      for (int64_t d = static_cast<int64_t>(batch.size()) - 1; d >= 0; --d) {
        int64_t idx = rem % batch[d];
        rem /= batch[d];
        int64_t od = d - static_cast<int64_t>(batch.size() - own.size());
        if (od >= 0) {
          f += (own[od] == 1 ? 0 : idx) * mult;
          mult *= own[od];
        }
      }
      return f;
    };
    const int64_t ia = flat(ba), ib = flat(bb);
    for (int64_t r = 0; r < m; ++r)
      for (int64_t c = 0; c < n; ++c) {
        C s = 0;
        for (int64_t p = 0; p < k; ++p) s += av[ia * m * k + r * k + p] * bv[ib * k * n + p * n + c];
        out.push_back(s);
      }
  }
  *out_shape = batch;
  out_shape->push_back(m);
  out_shape->push_back(n);
  return out;
}

void expect_close(const std::vector<C>& got, const std::vector<C>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_LE(std::abs(got[i] - want[i]), tol * (1 + std::abs(want[i]))) << "element " << i;
}

void expect_ok(const std::string& op, const Values& args) {
  auto r = check_op(op, args);
  EXPECT_TRUE(r.ok) << op << ": " << r.summary();
}

// A float64 matrix from rows.
Tensor mat(const std::vector<std::vector<double>>& rows) {
  std::vector<double> v;
  for (auto& r : rows) v.insert(v.end(), r.begin(), r.end());
  return from_vector(v, {static_cast<int64_t>(rows.size()), static_cast<int64_t>(rows[0].size())});
}

// A well-conditioned float64 matrix with distinct eigenvalues / singular values.
Tensor well_conditioned(int64_t m, int64_t n, uint64_t seed) {
  Tensor r = random({m, n}, DType::Float64, seed);
  double* p = r.data<double>();
  for (int64_t i = 0; i < std::min(m, n); ++i) p[i * n + i] += 2.0 + 0.7 * static_cast<double>(i);
  return r;
}

}  // namespace

// ---- matmul ----

TEST(Matmul, AllFloatDtypesTransposedAndBroadcastBatches) {
  for (DType dt : {DType::Float32, DType::Float64, DType::Complex64, DType::Complex128}) {
    const double tol = (dt == DType::Float32 || dt == DType::Complex64) ? 1e-5 : 1e-12;
    // a: [2, 1, 3, 4] as a transposed view of [2, 1, 4, 3]; b: [5, 4, 2] as a transposed view.
    Tensor a = transpose(random({2, 1, 4, 3}, dt, 1), -1, -2);
    Tensor b = transpose(random({5, 2, 4}, dt, 2), -1, -2);
    ASSERT_FALSE(a.is_contiguous());
    Tensor c = matmul(a, b);
    EXPECT_EQ(c.dtype(), dt);
    Shape want_shape;
    auto want = naive_matmul(a, b, &want_shape);
    EXPECT_EQ(c.shape(), want_shape);
    expect_close(cvalues(c), want, tol);
    // Contiguous left operand with a shared right operand: the folded single-gemm path.
    Tensor x = random({3, 4, 5}, dt, 3), y = random({5, 2}, dt, 4);
    want = naive_matmul(x, y, &want_shape);
    expect_close(cvalues(matmul(x, y)), want, tol);
    // A broadcast (stride-0) operand is copied, and a sliced one is handled by its strides.
    Tensor z = broadcast_to(random({1, 5}, dt, 5), {4, 5});
    want = naive_matmul(z, y, &want_shape);
    expect_close(cvalues(matmul(z, y)), want, tol);
  }
}

TEST(Matmul, VectorsFollowNumPy) {
  Tensor m = mat({{1, 2, 3}, {4, 5, 6}});
  Tensor v3 = from_vector({1, 0, -1}, {3}), v2 = from_vector({2, -1}, {2});
  Tensor mv = matmul(m, v3);
  EXPECT_EQ(mv.shape(), (Shape{2}));
  EXPECT_EQ(values(mv), std::vector<double>({-2, -2}));
  Tensor vm = matmul(v2, m);
  EXPECT_EQ(vm.shape(), (Shape{3}));
  EXPECT_EQ(values(vm), std::vector<double>({-2, -1, 0}));
  Tensor vv = matmul(v3, v3);
  EXPECT_EQ(vv.shape(), Shape{});
  EXPECT_EQ(vv.item(), 2);
  // Batched matrix times a vector, and a vector times a batch.
  Tensor bm = broadcast_to(m, {4, 2, 3});
  EXPECT_EQ(matmul(bm, v3).shape(), (Shape{4, 2}));
  EXPECT_EQ(matmul(v2, bm).shape(), (Shape{4, 3}));
  EXPECT_EQ(values(matmul(v2, bm)), std::vector<double>({-2, -1, 0, -2, -1, 0, -2, -1, 0, -2, -1, 0}));
}

TEST(Matmul, IntegersMixedDtypesAndEmpty) {
  Tensor a = from_vector({1, 2, 3, 4}, {2, 2}, DType::Int32), b = from_vector({5, 6, 7, 8}, {2, 2}, DType::Int64);
  Tensor c = matmul(a, b);
  EXPECT_EQ(c.dtype(), DType::Int64);
  EXPECT_EQ(values(c), std::vector<double>({19, 22, 43, 50}));
  EXPECT_EQ(values(matmul(transpose(a, 0, 1), a)), std::vector<double>({10, 14, 14, 20}));
  EXPECT_EQ(matmul(a.to(DType::Float32), b.to(DType::Float64)).dtype(), DType::Float64);
  EXPECT_EQ(matmul(a.to(DType::Float32), b.to(DType::Complex64)).dtype(), DType::Complex64);
  for (DType half : {DType::Float16, DType::BFloat16}) {
    Tensor x = random({3, 4}, DType::Float32, 15), y = random({4, 2}, DType::Float32, 16);
    Tensor r = matmul(x.to(half), y.to(half));
    EXPECT_EQ(r.dtype(), half);
    expect_close(cvalues(r), cvalues(matmul(x.to(half).to(DType::Float32), y.to(half).to(DType::Float32))), 1e-2);
  }
  Tensor e = matmul(zeros({2, 0}, DType::Float64), zeros({0, 3}, DType::Float64));
  EXPECT_EQ(e.shape(), (Shape{2, 3}));
  EXPECT_EQ(values(e), std::vector<double>(6, 0.0));
  EXPECT_EQ(matmul(zeros({0, 4}), zeros({4, 3})).shape(), (Shape{0, 3}));
}

TEST(Matmul, ErrorsNameBothShapes) {
  try {
    matmul(zeros({2, 3}), zeros({4, 5}));
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {
    std::string w = e.what();
    EXPECT_NE(w.find("[2, 3]"), std::string::npos) << w;
    EXPECT_NE(w.find("[4, 5]"), std::string::npos) << w;
  }
  try {
    matmul(zeros({2, 2, 3}), zeros({3, 3, 4}));
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {
    std::string w = e.what();
    EXPECT_NE(w.find("[2, 2, 3]"), std::string::npos) << w;
    EXPECT_NE(w.find("[3, 3, 4]"), std::string::npos) << w;
  }
  EXPECT_THROW(matmul(scalar_tensor(1.0), zeros({2})), ValueError);
  EXPECT_THROW(matmul(zeros({2}, DType::Bool), zeros({2}, DType::Bool)), TypeError);
}

TEST(Matmul, GradientsMatchTheFormulas) {
  Tensor a = random({3, 4}, DType::Float64, 7).requires_grad_(), b = random({4, 2}, DType::Float64, 8).requires_grad_();
  Tensor g = random({3, 2}, DType::Float64, 9);
  backward({matmul(a, b)}, {g});
  expect_close(cvalues(a.grad()), cvalues(matmul(g, transpose(b, 0, 1))), 1e-14);
  expect_close(cvalues(b.grad()), cvalues(matmul(transpose(a, 0, 1), g)), 1e-14);
}

// Inner dimensions up to 8 skip the BLAS (gemm.cpp's short-k loop); 9 goes to it. Both must give
// the naive product, for float32 and float64, with a row stride larger than k (a column slice,
// as the neighbour-type blocks of the se_e2_a environment matrix are) and batches.
TEST(Matmul, ShortInnerDimensionMatchesLoops) {
  for (DType dt : {DType::Float64, DType::Float32}) {
    for (int64_t k = 1; k <= 9; ++k) {
      SCOPED_TRACE("k = " + std::to_string(k) + " " + dtype_name(dt));
      Tensor wide = random({3, 70, k + 3}, dt, 20 + k);
      Tensor a = slice(wide, 2, 1, k + 1);  // [3, 70, k], rows k + 3 apart
      Tensor b = random({3, k, 37}, dt, 40 + k);
      Shape shape;
      auto want = naive_matmul(a, b, &shape);
      Tensor got = matmul(a, b);
      EXPECT_EQ(got.shape(), shape);
      expect_close(cvalues(got), want, dt == DType::Float64 ? 1e-14 : 1e-5);
      expect_close(cvalues(matmul(contiguous(a), b)), want, dt == DType::Float64 ? 1e-14 : 1e-5);
    }
  }
}

// Tall products with a small right factor go to the BLAS in row panels where OpenBLAS has its
// small-matrix kernels and runs one thread (gemm.cpp, row_panels): the panels, the last one short,
// a transposed right factor (x W^T) and a row stride larger than k must all give the naive product.
TEST(Matmul, TallProductsInRowPanelsMatchLoops) {
  for (DType dt : {DType::Float64, DType::Float32}) {
    SCOPED_TRACE(dtype_name(dt));
    const double tol = dt == DType::Float64 ? 1e-12 : 1e-4;
    Tensor wide = random({1003, 53}, dt, 71);
    Tensor a = slice(wide, 1, 1, 51);  // [1003, 50], rows 53 apart; 1003 rows = 5 panels of 200 + 3
    Tensor w = random({100, 50}, dt, 72);  // [n, k]: panels of 10^6 / (n k) = 200 rows
    Shape shape;
    auto want = naive_matmul(a, transpose(w, 0, 1), &shape);
    expect_close(cvalues(matmul(a, transpose(w, 0, 1))), want, tol);
    expect_close(cvalues(matmul(a, contiguous(transpose(w, 0, 1)))), want, tol);
  }
}

// The gradient of a transposed view (x W^T, E^T G) is computed in the layout of the tensor it
// views, so it reaches that tensor contiguous (a strided add of it was a third of the adds of
// se_e2_a force training); the values are the formulas'.
TEST(Matmul, GradientOfTransposedViewIsContiguous) {
  Tensor w = random({3, 4}, DType::Float64, 31).requires_grad_();
  Tensor x = random({5, 4}, DType::Float64, 32), g = random({5, 3}, DType::Float64, 33);
  Tensor gw = grad({sum(mul(matmul(x, transpose(w, 0, 1)), g))}, {w})[0];
  EXPECT_TRUE(gw.is_contiguous());
  expect_close(cvalues(gw), cvalues(matmul(transpose(g, 0, 1), x)), 1e-14);

  Tensor e = random({2, 6, 4}, DType::Float64, 34).requires_grad_();
  Tensor gm = random({2, 6, 3}, DType::Float64, 35).requires_grad_();
  Tensor h = random({2, 4, 3}, DType::Float64, 36);
  auto grads = grad({sum(mul(matmul(transpose(e, -1, -2), gm), h))}, {e, gm});
  EXPECT_TRUE(grads[0].is_contiguous());
  expect_close(cvalues(grads[0]), cvalues(matmul(gm, transpose(h, -1, -2))), 1e-14);
  expect_close(cvalues(grads[1]), cvalues(matmul(e, h)), 1e-14);
}

TEST(Matmul, CheckOp) {
  {
    // transposed views with the product's batch (their gradients take the swapped-factor path)
    const DType f = DType::Float64;
    expect_ok("core::matmul", {transpose(random({2, 4, 3}, f, 15), -1, -2), random({2, 4, 5}, f, 16)});
    expect_ok("core::matmul", {random({2, 3, 4}, f, 17), transpose(random({2, 5, 4}, f, 18), -1, -2)});
    expect_ok("core::matmul", {random({6, 3}, f, 19), random({3, 5}, f, 20)});  // short k
  }
  const DType f = DType::Float64, z = DType::Complex128;
  expect_ok("core::matmul", {random({3, 4}, f, 1), random({4, 2}, f, 2)});
  expect_ok("core::matmul", {random({2, 1, 2, 3}, f, 3), transpose(random({3, 4, 3}, f, 4), -1, -2)});
  expect_ok("core::matmul", {random({3}, f, 5), random({2, 3, 2}, f, 6)});
  expect_ok("core::matmul", {random({2, 2, 3}, f, 7), random({3}, f, 8)});
  expect_ok("core::matmul", {random({3}, f, 9), random({3}, f, 10)});
  expect_ok("core::matmul", {random({2, 3}, z, 11), random({3, 2}, z, 12)});
  expect_ok("core::matmul", {random({2, 3}, f, 13), random({3, 2}, z, 14)});
}

TEST(Products, OuterDotVdot) {
  Tensor a = from_vector({1, 2}, {2}), b = from_vector({3, 4, 5}, {3});
  Tensor o = outer(a, b);
  EXPECT_EQ(o.shape(), (Shape{2, 3}));
  EXPECT_EQ(values(o), std::vector<double>({3, 4, 5, 6, 8, 10}));
  EXPECT_EQ(dot(b, b).item(), 50);
  EXPECT_THROW(dot(a, b), ValueError);
  EXPECT_THROW(dot(o, o), ValueError);
  Tensor x = Tensor::empty({2}, DType::Complex128), y = Tensor::empty({2}, DType::Complex128);
  x.data<C>()[0] = {1, 1};
  x.data<C>()[1] = {0, 2};
  y.data<C>()[0] = {2, 0};
  y.data<C>()[1] = {1, -1};
  // vdot conjugates its first argument; dot does not.
  EXPECT_EQ(cvalues(vdot(x, y))[0], std::conj(C(1, 1)) * C(2, 0) + std::conj(C(0, 2)) * C(1, -1));
  EXPECT_EQ(cvalues(dot(x, y))[0], C(1, 1) * C(2, 0) + C(0, 2) * C(1, -1));
  EXPECT_EQ(vdot(o, o).item(), 1 * (9 + 16 + 25) + 4 * (9 + 16 + 25));
}

TEST(Products, CheckOp) {
  const DType f = DType::Float64, z = DType::Complex128;
  expect_ok("core::outer", {random({3}, f, 1), random({2}, f, 2)});
  expect_ok("core::outer", {random({2}, z, 3), random({2, 2}, z, 4)});
  expect_ok("core::dot", {random({4}, f, 5), random({4}, f, 6)});
  expect_ok("core::dot", {random({3}, z, 7), random({3}, z, 8)});
  expect_ok("core::vdot", {random({2, 2}, f, 9), random({4}, f, 10)});
  expect_ok("core::vdot", {random({3}, z, 11), random({3}, z, 12)});
}

// ---- inv, solve, det ----

TEST(Inv, TimesAIsIdentity) {
  for (DType dt : {DType::Float32, DType::Float64, DType::Complex64, DType::Complex128}) {
    const double tol = (dt == DType::Float32 || dt == DType::Complex64) ? 1e-5 : 1e-12;
    Tensor a = add(random({2, 3, 3}, dt, 21), mul(broadcast_to(from_vector({3, 0, 0, 0, 3, 0, 0, 0, 3}, {3, 3}), {2, 3, 3}), ones({}, dt)));
    Tensor p = matmul(inv(a), a);
    auto v = cvalues(p);
    for (int b = 0; b < 2; ++b)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) EXPECT_LE(std::abs(v[b * 9 + i * 3 + j] - C(i == j ? 1 : 0)), tol);
  }
  EXPECT_EQ(inv(mat({{2, 0}, {0, 4}})).dtype(), DType::Float64);
  EXPECT_EQ(values(inv(mat({{2, 0}, {0, 4}}))), std::vector<double>({0.5, 0, 0, 0.25}));
  EXPECT_EQ(inv(from_vector({1, 2, 3, 4}, {2, 2}, DType::Int64)).dtype(), DType::Float32);
}

TEST(Inv, ErrorsNameTheProblem) {
  Tensor batch = Tensor::empty({2, 2, 2}, DType::Float64);
  std::vector<double> v = {1, 0, 0, 1, 1, 2, 2, 4};  // the second matrix is singular
  std::copy(v.begin(), v.end(), batch.data<double>());
  try {
    inv(batch);
    FAIL() << "expected ValueError";
  } catch (const ValueError& e) {
    EXPECT_NE(std::string(e.what()).find("matrix 1 of the batch is singular"), std::string::npos) << e.what();
  }
  EXPECT_THROW(inv(zeros({2, 3}, DType::Float64)), ValueError);
  EXPECT_THROW(inv(zeros({3}, DType::Float64)), ValueError);
}

TEST(Solve, VectorsMatricesAndBatches) {
  Tensor a = mat({{3, 1}, {1, 2}});
  Tensor x = solve(a, from_vector({9, 8}, {2}));
  EXPECT_EQ(x.shape(), (Shape{2}));
  auto xv = values(x);
  EXPECT_NEAR(xv[0], 2, 1e-14);
  EXPECT_NEAR(xv[1], 3, 1e-14);
  // A batch of matrices against one right-hand side matrix: a x = b for each.
  Tensor A = add(random({4, 3, 3}, DType::Float64, 31), from_vector({3, 0, 0, 0, 3, 0, 0, 0, 3}, {3, 3}));
  Tensor B = random({3, 2}, DType::Float64, 32);
  Tensor X = solve(A, B);
  EXPECT_EQ(X.shape(), (Shape{4, 3, 2}));
  expect_close(cvalues(matmul(A, X)), cvalues(broadcast_to(B, {4, 3, 2})), 1e-12);
  Tensor xb = solve(A, from_vector({1, 2, 3}, {3}));
  EXPECT_EQ(xb.shape(), (Shape{4, 3}));
  EXPECT_THROW(solve(a, from_vector({1, 2, 3}, {3})), ValueError);
  EXPECT_THROW(solve(mat({{1, 2}, {2, 4}}), from_vector({1, 2}, {2})), ValueError);
}

TEST(Det, KnownMatrices) {
  // Triangular: the product of the diagonal.
  EXPECT_NEAR(det(mat({{2, 5, 7}, {0, 3, 11}, {0, 0, -4}})).item(), -24, 1e-12);
  EXPECT_NEAR(det(mat({{0, 1}, {1, 0}})).item(), -1, 1e-15);  // a row swap
  EXPECT_EQ(det(mat({{1, 2}, {2, 4}})).item(), 0);             // singular
  Tensor batch = stack({mat({{2, 0}, {0, 3}}), mat({{1, 2}, {3, 4}})}, 0);
  auto d = values(det(batch));
  EXPECT_NEAR(d[0], 6, 1e-14);
  EXPECT_NEAR(d[1], -2, 1e-14);
  Tensor z = Tensor::empty({2, 2}, DType::Complex128);
  C* p = z.data<C>();
  p[0] = {1, 1};
  p[1] = {2, 0};
  p[2] = {0, 1};
  p[3] = {3, -1};
  EXPECT_LE(std::abs(cvalues(det(z))[0] - (C(1, 1) * C(3, -1) - C(2, 0) * C(0, 1))), 1e-14);
  EXPECT_EQ(det(zeros({0, 0}, DType::Float64)).item(), 1);
}

TEST(Decompositions, CheckOpInvSolveDet) {
  Tensor a = well_conditioned(3, 3, 41);
  expect_ok("core::inv", {a});
  expect_ok("core::inv", {random({2, 2, 2}, DType::Complex128, 42)});
  expect_ok("core::solve", {a, random({3}, DType::Float64, 43)});
  expect_ok("core::solve", {broadcast_to(a, {2, 3, 3}).contiguous(), random({3, 2}, DType::Float64, 44)});
  expect_ok("core::solve", {random({2, 2}, DType::Complex128, 45), random({2, 1}, DType::Complex128, 46)});
  expect_ok("core::det", {a});
  expect_ok("core::det", {random({2, 3, 3}, DType::Float64, 47)});
  expect_ok("core::det", {random({2, 2}, DType::Complex128, 48)});
}

// ---- eigh ----

TEST(Eigh, KnownSymmetricMatrix) {
  auto r = eigh(mat({{2, 1}, {1, 2}}));
  EXPECT_EQ(r.eigenvalues.dtype(), DType::Float64);
  auto w = values(r.eigenvalues);
  EXPECT_NEAR(w[0], 1, 1e-14);
  EXPECT_NEAR(w[1], 3, 1e-14);
  auto v = values(r.eigenvectors);  // columns: (1, -1)/sqrt2 and (1, 1)/sqrt2 up to sign
  const double h = 1 / std::sqrt(2.0);
  EXPECT_NEAR(std::abs(v[0]), h, 1e-14);
  EXPECT_NEAR(v[0] * v[2], -0.5, 1e-14);
  EXPECT_NEAR(v[1] * v[3], 0.5, 1e-14);
}

TEST(Eigh, ReconstructsHermitianBatches) {
  for (DType dt : {DType::Float32, DType::Float64, DType::Complex64, DType::Complex128}) {
    const double tol = (dt == DType::Float32 || dt == DType::Complex64) ? 1e-5 : 1e-12;
    Tensor r = random({3, 4, 4}, dt, 51);
    Tensor h = add(r, conj(transpose(r, -1, -2)));
    auto e = eigh(h);
    EXPECT_EQ(e.eigenvalues.dtype(), real_dtype(dt));
    EXPECT_EQ(e.eigenvectors.shape(), (Shape{3, 4, 4}));
    auto w = values(e.eigenvalues);
    for (int b = 0; b < 3; ++b)
      for (int i = 0; i + 1 < 4; ++i) EXPECT_LE(w[b * 4 + i], w[b * 4 + i + 1]);
    Tensor U = e.eigenvectors;
    Tensor back = matmul(mul(U, unsqueeze(e.eigenvalues.to(dt), -2)), conj(transpose(U, -1, -2)));
    expect_close(cvalues(back), cvalues(h), tol);
  }
  EXPECT_THROW(eigh(from_vector({1, NAN, NAN, 1}, {2, 2})), ValueError);
}

TEST(Eigh, CheckOpReal) {
  Tensor a = well_conditioned(3, 3, 52);
  expect_ok("core::eigh", {add(a, transpose(a, 0, 1))});
  // Any matrix: the op decomposes its symmetric part, and its gradient is symmetric.
  expect_ok("core::eigh", {random({2, 3, 3}, DType::Float64, 53)});
}

// ---- svd ----

TEST(Svd, ReconstructsTallWideAndBatched) {
  for (DType dt : {DType::Float32, DType::Float64, DType::Complex64, DType::Complex128}) {
    const double tol = (dt == DType::Float32 || dt == DType::Complex64) ? 1e-5 : 1e-12;
    for (Shape s : {Shape{5, 3}, Shape{3, 5}, Shape{2, 4, 4}}) {
      Tensor a = random(s, dt, 61);
      auto r = svd(a);
      const int64_t k = std::min(s[s.size() - 2], s.back());
      EXPECT_EQ(r.s.dtype(), real_dtype(dt));
      EXPECT_EQ(r.u.shape().back(), k);
      EXPECT_EQ(r.vh.shape()[r.vh.dim() - 2], k);
      auto sv = values(r.s);
      for (size_t i = 0; i + 1 < sv.size(); ++i)
        if ((i + 1) % k != 0) EXPECT_GE(sv[i], sv[i + 1]);
      Tensor back = matmul(mul(r.u, unsqueeze(r.s.to(dt), -2)), r.vh);
      expect_close(cvalues(back), cvalues(a), tol);
      // u has orthonormal columns.
      Tensor utu = matmul(conj(transpose(r.u, -1, -2)), r.u);
      auto v = cvalues(utu);
      for (int64_t i = 0; i < k; ++i) EXPECT_LE(std::abs(v[i * k + i] - C(1)), tol);
    }
  }
  EXPECT_THROW(svd(zeros({3})), ValueError);
}

TEST(Svd, CheckOpReal) {
  expect_ok("core::svd", {well_conditioned(3, 3, 71)});
  expect_ok("core::svd", {well_conditioned(4, 2, 72)});
  expect_ok("core::svd", {well_conditioned(2, 4, 73)});
}

TEST(Svd, SingularValueGradientWithRepeatedValues) {
  // d(sum s)/da = u vh, finite even for the identity (all singular values equal).
  Tensor a = mat({{1, 0}, {0, 1}}).requires_grad_();
  sum(svd(a).s).backward();
  auto g = values(a.grad());
  EXPECT_NEAR(g[0], 1, 1e-14);
  EXPECT_NEAR(g[1], 0, 1e-14);
  EXPECT_NEAR(g[3], 1, 1e-14);
}

// Complex eigenvectors and singular vectors are defined up to a phase, so their gradients are
// checked on phase-invariant losses against central finite differences.
namespace {

template <class F> void expect_fd_gradient(const Tensor& a0, F loss, double tol) {
  Tensor a = a0.detach().clone().requires_grad_();
  Tensor g = grad({loss(a)}, {a})[0];
  auto gv = cvalues(g);
  const double eps = 1e-6;
  for (int64_t i = 0; i < a0.numel(); ++i)
    for (int part = 0; part < 2; ++part) {
      auto at = [&](double d) {
        Tensor p = a0.detach().clone();
        p.data<C>()[i] += part ? C(0, d) : C(d, 0);
        return loss(p).item();
      };
      double fd = (at(eps) - at(-eps)) / (2 * eps);
      double an = part ? gv[i].imag() : gv[i].real();
      EXPECT_NEAR(an, fd, tol * (1 + std::abs(fd))) << "element " << i << (part ? " imag" : " real");
    }
}

}  // namespace

TEST(Eigh, ComplexGradientOnPhaseInvariantLoss) {
  Tensor r = random({3, 3}, DType::Complex128, 81);
  Tensor w = random({3, 3}, DType::Complex128, 82);
  // L = Re sum(W * U diag(w^2) U^H) + sum(w^3): depends on eigenvectors only through projectors.
  expect_fd_gradient(r, [&](const Tensor& a) {
    auto e = eigh(a);
    Tensor w2 = mul(e.eigenvalues, e.eigenvalues).to(DType::Complex128);
    Tensor m = matmul(mul(e.eigenvectors, unsqueeze(w2, -2)), conj(transpose(e.eigenvectors, -1, -2)));
    Tensor cube = mul(mul(e.eigenvalues, e.eigenvalues), e.eigenvalues);
    return add(real(sum(mul(w, m))), sum(cube));
  }, 1e-5);
}

TEST(Svd, ComplexGradientOnPhaseInvariantLoss) {
  for (Shape s : {Shape{3, 3}, Shape{4, 2}, Shape{2, 4}}) {
    Tensor a0 = random(s, DType::Complex128, 91);
    Tensor w = random(s, DType::Complex128, 92);
    // L = Re sum(W * u diag(s^2) vh): u and vh enter with opposite phases.
    expect_fd_gradient(a0, [&](const Tensor& a) {
      auto r = svd(a);
      Tensor s2 = mul(r.s, r.s).to(DType::Complex128);
      return real(sum(mul(w, matmul(mul(r.u, unsqueeze(s2, -2)), r.vh))));
    }, 1e-5);
  }
}
