// sampan: matrix decompositions through Eigen (core::inv, solve, det, eigh, svd). Eigen stays
// in this file; each op works on the last two dimensions and loops over the batch (in parallel
// when there are many matrices). vjps are written with ops, so they are differentiable again.
//
// References for the vjps: M. B. Giles, "An extended collection of matrix derivative results
// for forward and reverse mode AD" (2008), sections 2.2-2.3 (inverse, solve, determinant,
// symmetric eigenproblem); J. Townsend, "Differentiating the singular value decomposition"
// (2016), and PyTorch's linalg derivations for the complex conventions.
#include <Eigen/Dense>
#include <algorithm>
#include <atomic>
#include <cmath>

#include "sampan/ops.h"
#include "linalg_support.h"
#include "../kernels/strided_loop.h"
#include "sample_support.h"
#if defined(SAMPAN_CUDA_KERNELS)
#include "../kernels/solver_cuda.h"
#include "cuda_support.h"
#include "device_elements.h"
#endif

using namespace sampan::op_samples;  // the samples' f64, c128, IntList

namespace sampan {

namespace {

template <class T> using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T> using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;

// Runs f(b) for b in [0, n): in parallel when the work is large enough. f returns false to report
// a failing matrix; the smallest failing index is returned (-1 if none), since exceptions must
// not leave an OpenMP region.
template <class F> int64_t for_each_batch(int64_t n, int64_t work_per_item, F f) {
  std::atomic<int64_t> first_bad{n};
#pragma omp parallel for if (n > 1 && n * work_per_item > kernels::kParallelGrain) schedule(dynamic)
  for (int64_t b = 0; b < n; ++b)
    if (!f(b)) {
      int64_t cur = first_bad.load();
      while (b < cur && !first_bad.compare_exchange_weak(cur, b)) {
      }
    }
  return first_bad.load() < n ? first_bad.load() : -1;
}

Shape batch_of(const Shape& s) { return Shape(s.begin(), s.end() - 2); }

Shape with_matrix(Shape batch, int64_t rows, int64_t cols) {
  batch.push_back(rows);
  batch.push_back(cols);
  return batch;
}

std::string matrix_name(int64_t b, const Shape& batch) {
  return batch.empty() ? std::string("the matrix") : "matrix " + std::to_string(b) + " of the batch";
}

// float32/64 and complex64/128 stay; integers become float32.
DType decomp_dtype(const char* op, const TensorSpec& a) {
  detail::check_linalg_dtype(op, "a", a.dtype);
  return to_floating(a.dtype);
}

template <class T> bool all_finite(const T* p, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    if (!std::isfinite(std::abs(p[i]))) return false;
  return true;
}

// ---- inv, solve, det ----

// LU with partial pivoting reports singularity as an exactly zero pivot (LAPACK's getrf rule).
template <class T> bool lu_singular(const Eigen::PartialPivLU<Mat<T>>& lu) {
  auto d = lu.matrixLU().diagonal();
  for (Eigen::Index i = 0; i < d.size(); ++i)
    if (d[i] == T(0)) return true;
  return false;
}

void inv_kernel(const Tensor& a, Tensor& out) {
  Tensor ac = a.to(out.dtype()).contiguous();
  const int64_t n = ac.shape().back(), nb = shape_numel(batch_of(ac.shape()));
  if (n == 0) return;
  visit_floating_complex(out.dtype(), "core::inv", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* pa = ac.data<T>();
    T* po = out.data<T>();
    int64_t bad = for_each_batch(nb, n * n * n, [&](int64_t b) {
      Eigen::PartialPivLU<Mat<T>> lu(Eigen::Map<const Mat<T>>(pa + b * n * n, n, n));
      if (lu_singular(lu)) return false;
      Eigen::Map<Mat<T>>(po + b * n * n, n, n) = lu.inverse();
      return true;
    });
    SAMPAN_CHECK(bad < 0, ValueError, "inv: ", matrix_name(bad, batch_of(ac.shape())), " is singular");
  });
}

// solve(a, b): b is a vector only when it is 1-D (NumPy 2's rule); else [..., n, k].
TensorSpec solve_spec(const TensorSpec& a, const TensorSpec& b) {
  detail::check_square("solve", "a", a);
  detail::check_linalg_dtype("solve", "b", b.dtype);
  const int64_t n = a.shape.back();
  const bool vec = b.dim() == 1;
  if (b.dim() == 0 || (vec ? b.shape[0] : b.shape[b.dim() - 2]) != n)
    SAMPAN_THROW(ValueError, "solve: a of shape ", shape_str(a.shape), " needs b of shape [", n,
                 "] or [..., ", n, ", k], got ", shape_str(b.shape));
  Shape batch;
  try {
    batch = broadcast_shapes(batch_of(a.shape), vec ? Shape{} : batch_of(b.shape));
  } catch (const ValueError&) {
    SAMPAN_THROW(ValueError, "solve: the batch dimensions of shapes ", shape_str(a.shape), " and ", shape_str(b.shape),
                 " do not broadcast");
  }
  Shape out = batch;
  out.push_back(n);
  if (!vec) out.push_back(b.shape.back());
  return TensorSpec{out, to_floating(promote_types(a.dtype, b.dtype)), a.device};
}

void solve_kernel(const Tensor& a, const Tensor& b, Tensor& x) {
  const int64_t n = a.shape().back();
  const bool vec = b.dim() == 1;
  const int64_t k = vec ? 1 : b.shape().back();
  const Shape batch = vec ? batch_of(a.shape()) : batch_of(x.shape());
  const int64_t nb = shape_numel(batch);
  Tensor ac = broadcast_to(a.to(x.dtype()), with_matrix(batch, n, n)).contiguous();
  Tensor bc = broadcast_to(reshape(b.to(x.dtype()), vec ? Shape{n, 1} : b.shape()), with_matrix(batch, n, k)).contiguous();
  if (n == 0 || k == 0) return;
  visit_floating_complex(x.dtype(), "core::solve", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T *pa = ac.data<T>(), *pb = bc.data<T>();
    T* px = x.data<T>();
    int64_t bad = for_each_batch(nb, n * n * (n + k), [&](int64_t i) {
      Eigen::PartialPivLU<Mat<T>> lu(Eigen::Map<const Mat<T>>(pa + i * n * n, n, n));
      if (lu_singular(lu)) return false;
      Eigen::Map<Mat<T>>(px + i * n * k, n, k) = lu.solve(Eigen::Map<const Mat<T>>(pb + i * n * k, n, k));
      return true;
    });
    SAMPAN_CHECK(bad < 0, ValueError, "solve: ", matrix_name(bad, batch), " of a is singular");
  });
}

Grads solve_vjp(const VjpContext& c) {
  // x = a^-1 b: grad_b = a^-H g, grad_a = -grad_b x^H (Giles 2.2).
  Tensor a = c.input(0), b = c.input(1), x = c.output(0), g = c.grad_output(0);
  const bool vec = b.dim() == 1;
  Tensor gm = vec ? unsqueeze(g, -1) : g, xm = vec ? unsqueeze(x, -1) : x;
  Tensor gb = solve(detail::mH(a), gm);
  Tensor ga = c.needs_grad(0) ? neg(matmul(gb, detail::mH(xm))) : Tensor();
  if (vec) gb = reshape(sum_to(gb, {b.shape()[0], 1}), b.shape());
  return {ga, c.needs_grad(1) ? gb : Tensor()};
}

void det_kernel(const Tensor& a, Tensor& out) {
  Tensor ac = a.to(out.dtype()).contiguous();
  const int64_t n = ac.shape().back(), nb = out.numel();
  visit_floating_complex(out.dtype(), "core::det", [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* pa = ac.data<T>();
    T* po = out.data<T>();
    for_each_batch(nb, n * n * n, [&](int64_t b) {
      // A zero pivot gives a zero determinant, which is the right value for a singular matrix.
      po[b] = n == 0 ? T(1) : Eigen::PartialPivLU<Mat<T>>(Eigen::Map<const Mat<T>>(pa + b * n * n, n, n)).determinant();
      return true;
    });
  });
}

// ---- eigh, svd ----

// Eigenvectors and singular vectors are unique only up to a phase (a sign, for real matrices).
// Fixing it (the largest-magnitude component of each column real and positive, the first one on
// ties) makes results reproducible across dtypes and library versions; `other` (V of an SVD)
// gets the same phase so that U S V^H is unchanged.
template <class T, class M, class O>
void fix_phases(M& u, O* other) {
  using R = typename Eigen::NumTraits<T>::Real;
  for (Eigen::Index j = 0; j < u.cols(); ++j) {
    Eigen::Index best = 0;
    R big = R(-1);
    for (Eigen::Index i = 0; i < u.rows(); ++i)
      if (std::abs(u(i, j)) > big) { big = std::abs(u(i, j)); best = i; }
    if (big <= R(0)) continue;
    const T phase = Eigen::numext::conj(u(best, j) / big);
    u.col(j) *= phase;
    if (other) other->col(j) *= phase;
  }
}

void eigh_kernel(const Tensor& a, Tensor& w, Tensor& v) {
  Tensor ac = a.to(v.dtype()).contiguous();
  const int64_t n = ac.shape().back(), nb = shape_numel(batch_of(ac.shape()));
  if (n == 0) return;
  visit_floating_complex(v.dtype(), "core::eigh", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using R = typename Eigen::NumTraits<T>::Real;
    const T* pa = ac.data<T>();
    R* pw = w.data<R>();
    T* pv = v.data<T>();
    int64_t bad = for_each_batch(nb, n * n * n, [&](int64_t b) {
      if (!all_finite(pa + b * n * n, n * n)) return false;
      Eigen::Map<const Mat<T>> m(pa + b * n * n, n, n);
      // The Hermitian part, so that the function (and its gradient) is defined for any matrix.
      Mat<T> h = (m + m.adjoint()) * R(0.5);
      Eigen::SelfAdjointEigenSolver<Mat<T>> es(h);
      if (es.info() != Eigen::Success) return false;
      Mat<T> vecs = es.eigenvectors();
      fix_phases<T>(vecs, static_cast<Mat<T>*>(nullptr));
      Eigen::Map<Vec<R>>(pw + b * n, n) = es.eigenvalues();
      Eigen::Map<Mat<T>>(pv + b * n * n, n, n) = vecs;
      return true;
    });
    SAMPAN_CHECK(bad < 0, ValueError, "eigh: ", matrix_name(bad, batch_of(ac.shape())),
                 " has non-finite entries or the eigensolver did not converge");
  });
}

// Whether a gradient can be skipped: all zeros, and not part of a graph being differentiated.
bool inert_zero(const Tensor& g) {
  if (g.requires_grad()) return false;
  NoGradGuard no_grad;
  return norm(g).item() == 0;
}

Grads eigh_vjp(const VjpContext& c) {
  // a = U diag(w) U^H: grad = U (diag(gw) + F o (U^H gU)) U^H with F_ij = 1 / (w_j - w_i) off the
  // diagonal (Giles 2.3), made Hermitian because the kernel used (a + a^H) / 2.
  Tensor w = c.output(0), U = c.output(1), gw = c.grad_output(0), gU = c.grad_output(1);
  const int64_t n = w.shape().back();
  Tensor inner = detail::diag_embed(gw.to(U.dtype()));
  if (!inert_zero(gU)) {
    Tensor I = detail::eye(n, w.dtype(), w.device());
    Tensor E = sub(unsqueeze(w, -2), unsqueeze(w, -1));        // w_j - w_i
    Tensor F = div(sub(ones_like(I), I), add(E, I));           // 0 on the diagonal
    inner = add(inner, mul(F, matmul(detail::mH(U), gU)));
  }
  Tensor G = matmul(matmul(U, inner), detail::mH(U));
  return {mul(add(G, detail::mH(G)), scalar_tensor(0.5, real_dtype(G.dtype())))};
}

// ---- svd ----

void svd_kernel(const Tensor& a, Tensor& u, Tensor& s, Tensor& vh) {
  Tensor ac = a.to(u.dtype()).contiguous();
  const int64_t m = ac.shape()[ac.dim() - 2], n = ac.shape().back(), k = std::min(m, n);
  const int64_t nb = shape_numel(batch_of(ac.shape()));
  if (k == 0) return;
  visit_floating_complex(u.dtype(), "core::svd", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using R = typename Eigen::NumTraits<T>::Real;
    const T* pa = ac.data<T>();
    T *pu = u.data<T>(), *pvh = vh.data<T>();
    R* ps = s.data<R>();
    int64_t bad = for_each_batch(nb, m * n * k, [&](int64_t b) {
      if (!all_finite(pa + b * m * n, m * n)) return false;
      // One-sided Jacobi (QR-preconditioned): accurate small singular values, and much lighter to
      // compile than the divide-and-conquer BDCSVD, which only pays off past ~16 x 16 anyway.
      Eigen::JacobiSVD<Mat<T>> svd(Eigen::Map<const Mat<T>>(pa + b * m * n, m, n),
                                   Eigen::ComputeThinU | Eigen::ComputeThinV);
      if (svd.info() != Eigen::Success) return false;
      Mat<T> uu = svd.matrixU(), vv = svd.matrixV();
      fix_phases<T>(uu, &vv);
      Eigen::Map<Mat<T>>(pu + b * m * k, m, k) = uu;
      Eigen::Map<Vec<R>>(ps + b * k, k) = svd.singularValues();
      Eigen::Map<Mat<T>>(pvh + b * k * n, k, n) = vv.adjoint();
      return true;
    });
    SAMPAN_CHECK(bad < 0, ValueError, "svd: ", matrix_name(bad, batch_of(ac.shape())),
                 " has non-finite entries or the decomposition did not converge");
  });
}

Grads svd_vjp(const VjpContext& c) {
  Tensor U = c.output(0), S = c.output(1), Vh = c.output(2);
  Tensor gU = c.grad_output(0), gS = c.grad_output(1), gVh = c.grad_output(2);
  const int64_t m = U.shape()[U.dim() - 2], n = Vh.shape().back(), k = S.shape().back();
  const DType dt = U.dtype();
  Tensor Sc = S.to(dt);
  const bool use_u = !inert_zero(gU), use_v = !inert_zero(gVh);
  // Singular values only: grad = U diag(gS) Vh (exact even for repeated or zero values).
  Tensor core = detail::diag_embed(gS.to(dt));
  if (!use_u && !use_v) return {matmul(matmul(U, core), Vh)};
  // With J = skew(U^H gU) and K = skew(V^H gV), skew(X) = X - X^H, and E_ij = s_j^2 - s_i^2:
  //   core = diag(gS) + (J diag(s) + diag(s) K) / E  (off the diagonal)
  //          + i Im(diag(U^H gU)) / s on the diagonal for complex inputs (the phase term),
  // then the parts of gU, gV outside the spans of U, V when a is not square (Townsend 2016).
  Tensor V = detail::mH(Vh), gV = detail::mH(gVh);
  Tensor I = detail::eye(k, S.dtype(), S.device());
  Tensor S2 = mul(S, S);
  Tensor E = add(sub(unsqueeze(S2, -2), unsqueeze(S2, -1)), I);  // 1 on the diagonal
  Tensor offdiag = sub(ones_like(I), I);
  Tensor s_row = unsqueeze(Sc, -2), s_col = unsqueeze(Sc, -1);
  Tensor skew_sum;
  if (use_u) {
    Tensor UhgU = matmul(detail::mH(U), gU);
    Tensor J = sub(UhgU, detail::mH(UhgU));
    skew_sum = mul(J, s_row);
    if (is_complex(dt)) {
      // diag(UhgU - UhgU^H) = 2i Im(diag(U^H gU)); the phase term is i Im(diag(U^H gU)) / s.
      Tensor d = diagonal(J, 0, -2, -1);
      core = add(core, detail::diag_embed(div(d, mul(Sc, scalar_tensor(2.0, real_dtype(dt))))));
    }
  }
  if (use_v) {
    Tensor VhgV = matmul(Vh, gV);
    Tensor K = sub(VhgV, detail::mH(VhgV));
    Tensor term = mul(s_col, K);
    skew_sum = skew_sum.defined() ? add(skew_sum, term) : term;
  }
  core = add(core, mul(div(skew_sum, E), offdiag));
  Tensor ga;
  if (m > k && use_u) {
    // gU's part outside span(U): (I - U U^H) gU diag(1/s) Vh.
    Tensor gUs = div(gU, s_row);
    ga = matmul(add(matmul(U, core), sub(gUs, matmul(U, matmul(detail::mH(U), gUs)))), Vh);
  } else if (n > k && use_v) {
    // gV's part outside span(V): U diag(1/s) gV^H (I - V V^H).
    Tensor gVs = div(gV, s_row);
    ga = matmul(U, add(matmul(core, Vh), sub(detail::mH(gVs), matmul(matmul(detail::mH(gVs), V), Vh))));
  } else {
    ga = matmul(matmul(U, core), Vh);
  }
  return {ga};
}

#if defined(SAMPAN_CUDA_KERNELS)
// ---- the CUDA twins: cuSOLVER (kernels/solver_cuda.h) ----
// cuSOLVER is column-major: a row-major matrix's buffer is its transpose there. inv and det factor
// that transpose as it is (det a^T = det a, and inv(a^T) read row-major is inv(a)); solve solves
// with the transposed factors; eigh and svd read the layouts back as the comments say. The
// CPU's checks and errors, and its phase convention for the vectors (fix_phases above, as
// kernels::fix_phases_cuda), so the two devices agree to rounding.

// f(tag) with tag::T the device element type and tag::R its real type.
template <class T_, class R_> struct SolverTag { using T = T_; using R = R_; };
template <class F> void visit_solver_dtype(DType dt, const char* op, F f) {
  visit_floating_complex(dt, op, [&](auto tag) {
    using C = typename decltype(tag)::type;
    f(SolverTag<typename detail::device_element<C>::type, typename Eigen::NumTraits<C>::Real>{});
  });
}

template <class T> T* device_ptr(Tensor& t) { return static_cast<T*>(t.raw_data()); }

// A fresh contiguous copy (cuSOLVER works in place).
Tensor scratch(const Tensor& t) { return clone(t).contiguous(); }

// The first matrix whose info word is non-zero, or -1.
int64_t first_failed(const std::vector<int>& info) {
  for (size_t b = 0; b < info.size(); ++b)
    if (info[b] != 0) return static_cast<int64_t>(b);
  return -1;
}

// The first matrix of a [..., m, n] batch with a non-finite entry, or -1 (one count per matrix
// on the device, nb numbers back).
int64_t first_non_finite(const Tensor& a) {
  const int64_t per = a.shape()[a.dim() - 2] * a.shape().back();
  Tensor counts = to_device(sum(cast(isfinite(a), DType::Float64), {-2, -1}), cpu_device()).contiguous();
  const double* c = counts.data<double>();
  for (int64_t b = 0; b < counts.numel(); ++b)
    if (c[b] != static_cast<double>(per)) return b;
  return -1;
}

Tensor factor_lu(Tensor& lu, int64_t nb, int64_t n, std::vector<int>& info) {
  Tensor ipiv = Tensor::empty({nb, n}, DType::Int64, lu.device());
  info.assign(static_cast<size_t>(nb), 0);
  visit_solver_dtype(lu.dtype(), "core::lu (CUDA)", [&](auto tag) {
    using T = typename decltype(tag)::T;
    cuda_support::run_device([&] { kernels::lu_factor_cuda<T>(nb, n, device_ptr<T>(lu), device_ptr<int64_t>(ipiv), info.data()); });
  });
  return ipiv;
}

void inv_cuda_kernel(const Tensor& a, Tensor& out) {
  Tensor lu = scratch(a.to(out.dtype()));
  const int64_t n = lu.shape().back(), nb = shape_numel(batch_of(lu.shape()));
  if (n == 0) return;
  std::vector<int> info;
  Tensor ipiv = factor_lu(lu, nb, n, info);
  const int64_t bad = first_failed(info);
  SAMPAN_CHECK(bad < 0, ValueError, "inv: ", matrix_name(bad, batch_of(lu.shape())), " is singular");
  copy_(out, broadcast_to(detail::eye(n, out.dtype(), out.device()), out.shape()));
  visit_solver_dtype(out.dtype(), "core::inv", [&](auto tag) {
    using T = typename decltype(tag)::T;
    cuda_support::run_device([&] {
      kernels::lu_solve_cuda<T>(false, nb, n, n, device_ptr<T>(lu), device_ptr<int64_t>(ipiv), device_ptr<T>(out));
    });
  });
}

void solve_cuda_kernel(const Tensor& a, const Tensor& b, Tensor& x) {
  const int64_t n = a.shape().back();
  const bool vec = b.dim() == 1;
  const int64_t k = vec ? 1 : b.shape().back();
  const Shape batch = vec ? batch_of(a.shape()) : batch_of(x.shape());
  const int64_t nb = shape_numel(batch);
  if (n == 0 || k == 0) return;
  Tensor lu = scratch(broadcast_to(a.to(x.dtype()), with_matrix(batch, n, n)));
  // b's columns, column-major: the row-major [..., k, n] transpose
  Tensor bt = scratch(transpose(broadcast_to(reshape(b.to(x.dtype()), vec ? Shape{n, 1} : b.shape()), with_matrix(batch, n, k)), -1, -2));
  std::vector<int> info;
  Tensor ipiv = factor_lu(lu, nb, n, info);
  const int64_t bad = first_failed(info);
  SAMPAN_CHECK(bad < 0, ValueError, "solve: ", matrix_name(bad, batch), " of a is singular");
  visit_solver_dtype(x.dtype(), "core::solve", [&](auto tag) {
    using T = typename decltype(tag)::T;
    cuda_support::run_device([&] {
      kernels::lu_solve_cuda<T>(true, nb, n, k, device_ptr<T>(lu), device_ptr<int64_t>(ipiv), device_ptr<T>(bt));
    });
  });
  copy_(x, reshape(transpose(bt, -1, -2), x.shape()));
}

void det_cuda_kernel(const Tensor& a, Tensor& out) {
  Tensor lu = scratch(a.to(out.dtype()));
  const int64_t n = lu.shape().back(), nb = out.numel();
  if (nb == 0) return;
  if (n == 0) {
    copy_(out, ones_like(out));
    return;
  }
  std::vector<int> info;  // a zero pivot gives a zero determinant: no error
  Tensor ipiv = to_device(factor_lu(lu, nb, n, info), cpu_device()).contiguous();
  // det = (-1)^(row swaps) * the product of U's diagonal, on the host (n numbers per matrix)
  Tensor diag = to_device(diagonal(lu, 0, -2, -1), cpu_device()).contiguous();
  Tensor sign = Tensor::empty({nb}, DType::Float64);
  const int64_t* p = ipiv.data<int64_t>();
  for (int64_t b = 0; b < nb; ++b) {
    int64_t swaps = 0;
    for (int64_t i = 0; i < n; ++i) swaps += p[b * n + i] != i + 1;
    sign.data<double>()[b] = swaps % 2 ? -1.0 : 1.0;
  }
  copy_(out, to_device(reshape(mul(prod(diag, {-1}), sign.to(out.dtype())), out.shape()), out.device()));
}

void eigh_cuda_kernel(const Tensor& a, Tensor& w, Tensor& v) {
  const Tensor ac = a.to(v.dtype());
  const int64_t n = ac.shape().back(), nb = shape_numel(batch_of(ac.shape()));
  if (n == 0) return;
  int64_t bad = first_non_finite(ac);
  // The Hermitian part h, as on the CPU; its row-major buffer is h^T = conj(h) column-major, whose
  // eigenvectors are conj(V): read back row-major that is V^H.
  Tensor work = scratch(mul(add(ac, detail::mH(ac)), scalar_tensor(0.5, real_dtype(v.dtype()))));
  std::vector<int> info(static_cast<size_t>(nb), 0);
  if (bad < 0) {
    visit_solver_dtype(v.dtype(), "core::eigh", [&](auto tag) {
      using T = typename decltype(tag)::T;
      using R = typename decltype(tag)::R;
      cuda_support::run_device([&] { kernels::eigh_cuda<T, R>(nb, n, device_ptr<T>(work), device_ptr<R>(w), info.data()); });
    });
    bad = first_failed(info);
  }
  SAMPAN_CHECK(bad < 0, ValueError, "eigh: ", matrix_name(bad, batch_of(ac.shape())),
               " has non-finite entries or the eigensolver did not converge");
  copy_(v, detail::mH(work));
  visit_solver_dtype(v.dtype(), "core::eigh", [&](auto tag) {
    using T = typename decltype(tag)::T;
    cuda_support::run_device([&] { kernels::fix_phases_cuda<T>(nb, n, n, device_ptr<T>(v), n, 1, n * n, nullptr, 0, 0); });
  });
}

void svd_cuda_kernel(const Tensor& a, Tensor& u, Tensor& s, Tensor& vh) {
  const Tensor ac = a.to(u.dtype());
  const int64_t m = ac.shape()[ac.dim() - 2], n = ac.shape().back(), k = std::min(m, n);
  const int64_t nb = shape_numel(batch_of(ac.shape()));
  if (k == 0) return;
  int64_t bad = first_non_finite(ac);
  std::vector<int> info(static_cast<size_t>(nb), 0);
  if (bad < 0) {
    visit_solver_dtype(u.dtype(), "core::svd", [&](auto tag) {
      using T = typename decltype(tag)::T;
      using R = typename decltype(tag)::R;
      if (n >= m) {
        // The buffer is a^T (n x m) column-major = X = Ux S Vx^H, so a = conj(Vx) S Ux^T: gesvd's
        // VT (m x m column-major) read row-major is u, its U (n x m column-major) read row-major is vh.
        Tensor x = scratch(ac);
        cuda_support::run_device([&] {
          kernels::svd_cuda<T, R>(nb, n, m, device_ptr<T>(x), device_ptr<R>(s), device_ptr<T>(vh), device_ptr<T>(u), info.data());
        });
      } else {
        // a column-major is the row-major [n, m] transpose; U (m x n) and VT (n x n) come back
        // column-major, transposed into u and vh.
        Tensor x = scratch(transpose(ac, -1, -2));
        Tensor ucol = Tensor::empty(with_matrix(batch_of(ac.shape()), n, m), u.dtype(), u.device());
        Tensor vtcol = Tensor::empty(with_matrix(batch_of(ac.shape()), n, n), u.dtype(), u.device());
        cuda_support::run_device([&] {
          kernels::svd_cuda<T, R>(nb, m, n, device_ptr<T>(x), device_ptr<R>(s), device_ptr<T>(ucol), device_ptr<T>(vtcol),
                                  info.data());
        });
        if (first_failed(info) < 0) {
          copy_(u, transpose(ucol, -1, -2));
          copy_(vh, transpose(vtcol, -1, -2));
        }
      }
    });
    bad = first_failed(info);
  }
  SAMPAN_CHECK(bad < 0, ValueError, "svd: ", matrix_name(bad, batch_of(ac.shape())),
               " has non-finite entries or the decomposition did not converge");
  visit_solver_dtype(u.dtype(), "core::svd", [&](auto tag) {
    using T = typename decltype(tag)::T;
    cuda_support::run_device([&] {
      kernels::fix_phases_cuda<T>(nb, m, k, device_ptr<T>(u), k, 1, m * k, device_ptr<T>(vh), n, k * n);
    });
  });
}
#endif

}  // namespace

SAMPAN_OP(core, inv)
    .doc("Inverse of a (batch of) square matrices; ValueError names the first singular one.")
    .args("a")
    .outputs("out")
    .dtypes({DType::Float32, DType::Float64, DType::Complex64, DType::Complex128})
    .shape([](const TensorSpec& a) {
      detail::check_square("inv", "a", a);
      return TensorSpec{a.shape, decomp_dtype("inv", a), a.device};
    })
    .cpu(inv_kernel)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(inv_cuda_kernel)
    .cuda_rounds_differently()  // cuSOLVER's algorithms, not Eigen's
#endif
    .vjp([](const VjpContext& c) -> Grads {
      // d(a^-1) = -a^-1 da a^-1, so grad = -inv^H g inv^H (Giles 2.2).
      Tensor ih = detail::mH(c.output(0));
      return {neg(matmul(matmul(ih, c.grad_output(0)), ih))};
    })
    .samples([] { return std::vector<Values>{{from_vector({2.0, 0.3, -0.4, 0.1, 1.5, 0.2, 0.5, -0.3, 1.8}, {3, 3})}}; });

SAMPAN_OP(core, solve)
    .doc("x with a x = b for a (batch of) square matrices a; b is a vector when 1-D, else [..., n, k]. "
         "Batch dimensions broadcast.")
    .args("a", "b")
    .outputs("x")
    .dtypes({DType::Float32, DType::Float64, DType::Complex64, DType::Complex128})
    .shape(solve_spec)
    .cpu(solve_kernel)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(solve_cuda_kernel)
    .cuda_rounds_differently()  // cuSOLVER's algorithms, not Eigen's
#endif
    .vjp(solve_vjp)
    .samples([] { Tensor a = from_vector({2.0, 0.3, -0.4, 0.1, 1.5, 0.2, 0.5, -0.3, 1.8}, {3, 3}); return std::vector<Values>{{a, f64({3})}, {a, f64({3, 2})}}; });

SAMPAN_OP(core, det)
    .doc("Determinant of a (batch of) square matrices, by LU with partial pivoting.")
    .args("a")
    .outputs("out")
    .dtypes({DType::Float32, DType::Float64, DType::Complex64, DType::Complex128})
    .shape([](const TensorSpec& a) {
      detail::check_square("det", "a", a);
      return TensorSpec{batch_of(a.shape), decomp_dtype("det", a), a.device};
    })
    .cpu(det_kernel)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(det_cuda_kernel)
    .cuda_rounds_differently()  // cuSOLVER's algorithms, not Eigen's
#endif
    .vjp([](const VjpContext& c) -> Grads {
      // d det = det tr(a^-1 da): grad = g conj(det) a^-H (needs an invertible a).
      Tensor a = c.input(0);
      Tensor scale = unsqueeze(unsqueeze(mul(c.grad_output(0), conj(c.output(0))), -1), -1);
      return {mul(scale, detail::mH(inv(a)))};
    })
    .samples([] { return std::vector<Values>{{from_vector({2.0, 0.3, -0.4, 0.1, 1.5, 0.2, 0.5, -0.3, 1.8}, {3, 3})}, {c128({2, 2})}}; });

SAMPAN_OP(core, eigh)
    .doc("Eigenvalues (ascending, real) and eigenvectors (columns) of the Hermitian part (a + a^H)/2 "
         "of a (batch of) square matrices.")
    .args("a")
    .outputs("eigenvalues", "eigenvectors")
    .dtypes({DType::Float32, DType::Float64, DType::Complex64, DType::Complex128})
    .shape([](const TensorSpec& a) {
      detail::check_square("eigh", "a", a);
      DType d = decomp_dtype("eigh", a);
      Shape w(a.shape.begin(), a.shape.end() - 1);
      return std::vector<TensorSpec>{TensorSpec{w, real_dtype(d), a.device}, TensorSpec{a.shape, d, a.device}};
    })
    .cpu(eigh_kernel)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(eigh_cuda_kernel)
    .cuda_rounds_differently()  // cuSOLVER's algorithms, not Eigen's
#endif
    .vjp(eigh_vjp)
    .samples([] { return std::vector<Values>{{from_vector({2.0, 0.3, -0.4, 0.3, 1.0, 0.2, -0.4, 0.2, -0.5}, {3, 3})}}; });

SAMPAN_OP(core, svd)
    .doc("Reduced singular value decomposition a = u diag(s) vh: u [..., m, k], s [..., k] "
         "(descending, real), vh [..., k, n], k = min(m, n).")
    .args("a")
    .outputs("u", "s", "vh")
    .dtypes({DType::Float32, DType::Float64, DType::Complex64, DType::Complex128})
    .shape([](const TensorSpec& a) {
      SAMPAN_CHECK(a.dim() >= 2, ValueError, "svd: argument 'a' must be a matrix or a batch of matrices, got shape ", shape_str(a.shape));
      DType d = decomp_dtype("svd", a);
      const Shape batch = batch_of(a.shape);
      const int64_t m = a.shape[a.dim() - 2], n = a.shape.back(), k = std::min(m, n);
      Shape s = batch;
      s.push_back(k);
      return std::vector<TensorSpec>{TensorSpec{with_matrix(batch, m, k), d, a.device},
                                     TensorSpec{s, real_dtype(d), a.device},
                                     TensorSpec{with_matrix(batch, k, n), d, a.device}};
    })
    .cpu(svd_kernel)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(svd_cuda_kernel)
    .cuda_rounds_differently()  // cuSOLVER's algorithms, not Eigen's
#endif
    .vjp(svd_vjp)
    .samples([] { return std::vector<Values>{{from_vector({2.0, 0.3, -0.4, 0.1, 1.5, 0.2}, {2, 3})}}; });

Tensor inv(const Tensor& a) {
  static OpHandle op("core::inv");
  return op(a)[0];
}
Tensor solve(const Tensor& a, const Tensor& b) {
  static OpHandle op("core::solve");
  return op(a, b)[0];
}
Tensor det(const Tensor& a) {
  static OpHandle op("core::det");
  return op(a)[0];
}
EighResult eigh(const Tensor& a) {
  static OpHandle op("core::eigh");
  auto r = op(a);
  return {r[0], r[1]};
}
SvdResult svd(const Tensor& a) {
  static OpHandle op("core::svd");
  auto r = op(a);
  return {r[0], r[1], r[2]};
}

}  // namespace sampan
