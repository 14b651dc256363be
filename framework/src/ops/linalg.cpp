// sampan: products (core::matmul, outer, dot, vdot).
//
// matmul follows NumPy: 1-D operands are promoted to a row (left) or a column (right) and the
// added dimension is removed from the result; leading (batch) dimensions broadcast. Float and
// complex products go to the BLAS (kernels/gemm.h); an operand whose last two dimensions are a
// transposed view is passed with the transpose flag instead of being copied; integer products
// use the loop kernel; bfloat16 products go to oneDNN (kernels/gemm_bf16.h: float32 accumulation,
// the bfloat16 result rounded once) where the build has it; float16, and bfloat16 without oneDNN,
// are multiplied in float32 and rounded once. Complex gradients follow PyTorch: grad_a = g @ b^H, grad_b = a^H @ g.
#include <algorithm>
#include <type_traits>

#include "sampan/ops.h"
#include "elementwise_support.h"
#include "linalg_support.h"
#include "../kernels/gemm.h"
#include "../kernels/gemm_bf16.h"
#include "sample_support.h"
#if defined(SAMPAN_CUDA_KERNELS)
#include "cuda_support.h"
#include "device_elements.h"
#include "../kernels/gemm_cuda.h"
#endif

using namespace sampan::op_samples;  // the samples' f64, c128, IntList

namespace sampan {

namespace {

// ---- matmul geometry ----

// Batch dimensions of an operand: everything but its matrix dimensions.
Shape batch_dims(const Shape& s, bool vector) {
  size_t keep = s.size() - (vector ? 1 : 2);
  return Shape(s.begin(), s.begin() + static_cast<int64_t>(keep));
}

TensorSpec matmul_spec(const TensorSpec& a, const TensorSpec& b) {
  if (a.dim() == 0 || b.dim() == 0)
    SAMPAN_THROW(ValueError, "matmul needs operands with at least one dimension, got shapes ", shape_str(a.shape),
                 " and ", shape_str(b.shape), " (use mul for scalars)");
  if (a.dtype == DType::Bool || b.dtype == DType::Bool)
    SAMPAN_THROW(TypeError, "matmul: bool operands are not supported (got ", dtype_name(a.dtype), " and ",
                 dtype_name(b.dtype), "); cast them to an integer or floating dtype");
  const int64_t ka = a.shape.back();
  const int64_t kb = b.dim() == 1 ? b.shape[0] : b.shape[b.dim() - 2];
  SAMPAN_CHECK(ka == kb, ValueError, "matmul: shapes ", shape_str(a.shape), " and ", shape_str(b.shape),
               " do not align: the last dimension of a (", ka, ") must equal ",
               (b.dim() == 1 ? "the length of b (" : "the second-to-last dimension of b ("),
               kb, ")");
  Shape batch;
  try {
    batch = broadcast_shapes(batch_dims(a.shape, a.dim() == 1), batch_dims(b.shape, b.dim() == 1));
  } catch (const ValueError&) {
    SAMPAN_THROW(ValueError, "matmul: the batch dimensions of shapes ", shape_str(a.shape), " and ",
                 shape_str(b.shape), " do not broadcast");
  }
  Shape out = batch;
  if (a.dim() >= 2) out.push_back(a.shape[a.dim() - 2]);
  if (b.dim() >= 2) out.push_back(b.shape.back());
  return TensorSpec{out, promote_types(a.dtype, b.dtype), a.device};
}

// One operand as a batch of matrices: element (batch b, i, j) at base + offset(b) + i*rs + j*cs.
struct MatrixBatch {
  Tensor t;            // keeps the data alive; its dtype is the compute dtype
  int64_t rows = 0, cols = 0, rs = 0, cs = 0;
  Shape batch_strides;  // over the broadcast batch shape (0 where broadcast)
  bool trans = false;   // BLAS layout: op(X) = X^T when the storage is column-major
  int64_t ld = 0;
};

// Whether a rows x cols matrix with strides (rs, cs) is a BLAS operand as it is: row-major with
// unit column stride, or column-major (a transposed view) with unit row stride. A stride along a
// dimension of size 1 is irrelevant and may be anything.
bool blas_layout(MatrixBatch& m) {
  const int64_t r1 = std::max<int64_t>(m.rows, 1), c1 = std::max<int64_t>(m.cols, 1);
  if (m.cs == 1 || m.cols == 1) {
    int64_t ld = m.rows == 1 ? c1 : m.rs;
    if (ld >= c1) { m.trans = false; m.ld = ld; return true; }
  }
  if (m.rs == 1 || m.rows == 1) {
    int64_t ld = m.cols == 1 ? r1 : m.cs;
    if (ld >= r1) { m.trans = true; m.ld = ld; return true; }
  }
  return false;
}

// Describes `t` (already in the compute dtype) as a batch of matrices over `batch`; a 1-D `t` is a
// row when `left`, a column otherwise. Copies only when the matrix layout is not a BLAS layout.
MatrixBatch describe(Tensor t, bool left, const Shape& batch) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    MatrixBatch m;
    m.t = t;
    const Shape& s = t.shape();
    const Shape& st = t.strides();
    const int64_t nd = t.dim();
    if (nd == 1) {
      m.rows = left ? 1 : s[0];
      m.cols = left ? s[0] : 1;
      m.rs = left ? 0 : st[0];
      m.cs = left ? st[0] : 0;
    } else {
      m.rows = s[nd - 2];
      m.cols = s[nd - 1];
      m.rs = st[nd - 2];
      m.cs = st[nd - 1];
    }
    if (blas_layout(m)) {
      const int64_t nb = nd - (nd == 1 ? 1 : 2);
      m.batch_strides.assign(batch.size(), 0);
      const size_t lead = batch.size() - static_cast<size_t>(nb);
      for (int64_t d = 0; d < nb; ++d)
        if (s[d] != 1) m.batch_strides[lead + d] = st[d];
      return m;
    }
    t = t.clone();  // contiguous: always a BLAS layout
  }
  SAMPAN_THROW(RuntimeError, "matmul: internal error describing an operand layout");
}

// When b is the same matrix for every batch and a's batch dimensions are evenly spaced rows
// (e.g. a contiguous [B, M, K] times [K, N]), the whole batch is one [B*M, K] x [K, N] product.
bool foldable(const MatrixBatch& a, const MatrixBatch& b, const Shape& batch) {
  if (a.trans) return false;
  for (auto s : b.batch_strides)
    if (s != 0) return false;
  int64_t expect = a.rows * a.ld;
  for (size_t d = batch.size(); d-- > 0;) {
    if (batch[d] == 1) continue;
    if (a.batch_strides[d] != expect) return false;
    expect *= batch[d];
  }
  return true;
}

// The GEMM of T: the BLAS's (gemm.h) for float and complex, oneDNN's for bfloat16.
template <class T>
void gemm_of(bool ta, bool tb, int64_t m, int64_t n, int64_t k, const T* a, int64_t lda, const T* b, int64_t ldb,
             T* c, int64_t ldc) {
  if constexpr (std::is_same_v<T, BFloat16>)
    kernels::gemm_bf16(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
  else
    kernels::gemm(ta, tb, m, n, k, a, lda, b, ldb, c, ldc);
}

// The batch of products out = a b, one GEMM per batch element (or one for a foldable batch);
// `gemm` has gemm_of's signature over element type T (the CPU's, or the GPU's gemm_cuda).
template <class T, class Gemm>
void matmul_batches(const MatrixBatch& a, const MatrixBatch& b, const Shape& batch, Tensor& out, Gemm gemm_of) {
  const T* pa = static_cast<const T*>(a.t.raw_data());
  const T* pb = static_cast<const T*>(b.t.raw_data());
  T* pc = static_cast<T*>(out.raw_data());
  const int64_t m = a.rows, n = b.cols, k = a.cols;
  const int64_t nbatch = shape_numel(batch);
  if (nbatch == 0) return;
  if (foldable(a, b, batch)) {
    gemm_of(false, b.trans, nbatch * m, n, k, pa, a.ld, pb, b.ld, pc, n);
    return;
  }
  // Walk the batch multi-index, advancing each operand's offset by its batch strides.
  std::vector<int64_t> idx(batch.size(), 0);
  int64_t oa = 0, ob = 0;
  for (int64_t i = 0; i < nbatch; ++i) {
    gemm_of(a.trans, b.trans, m, n, k, pa + oa, a.ld, pb + ob, b.ld, pc + i * m * n, n);
    for (size_t d = batch.size(); d-- > 0;) {
      oa += a.batch_strides[d];
      ob += b.batch_strides[d];
      if (++idx[d] < batch[d]) break;
      oa -= batch[d] * a.batch_strides[d];
      ob -= batch[d] * b.batch_strides[d];
      idx[d] = 0;
    }
  }
}

template <class T> void matmul_typed(const MatrixBatch& a, const MatrixBatch& b, const Shape& batch, Tensor& out) {
  matmul_batches<T>(a, b, batch, out, [](auto... args) { gemm_of<T>(args...); });
}

#if defined(SAMPAN_CUDA_KERNELS)
// core::matmul on the GPU: the CPU kernel's geometry (describe, the batch walk), each product
// through cuBLAS (kernels/gemm_cuda.h). Float, complex and the 16-bit floats (float32
// accumulation); the integers stay on the CPU.
void matmul_cuda_kernel(const Tensor& a, const Tensor& b, Tensor& out) {
  const DType dt = out.dtype();
  SAMPAN_CHECK(is_floating(dt) || is_complex(dt), NotImplementedError, "core::matmul: no CUDA kernel for dtype ",
               dtype_name(dt), " (floating and complex only)");
  Shape batch = broadcast_shapes(batch_dims(a.shape(), a.dim() == 1), batch_dims(b.shape(), b.dim() == 1));
  MatrixBatch ma = describe(a.to(dt), true, batch);
  MatrixBatch mb = describe(b.to(dt), false, batch);
  detail::visit_storage_element(dt, "core::matmul", [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!std::is_integral_v<T>) {
      cuda_support::run_device([&] {
        matmul_batches<T>(ma, mb, batch, out, [](auto... args) { kernels::gemm_cuda<T>(args...); });
      });
    }
  });
}
#endif

void matmul_kernel(const Tensor& a, const Tensor& b, Tensor& out) {
  const DType dt = out.dtype();
  Shape batch = broadcast_shapes(batch_dims(a.shape(), a.dim() == 1), batch_dims(b.shape(), b.dim() == 1));
  if (dt == DType::BFloat16 && kernels::gemm_bf16_available()) {
    MatrixBatch ma = describe(a.to(dt), true, batch);
    MatrixBatch mb = describe(b.to(dt), false, batch);
    matmul_typed<BFloat16>(ma, mb, batch, out);
    return;
  }
  if (dt == DType::Float16 || dt == DType::BFloat16) {
    // No half-precision GEMM here: multiply in float32 and round once.
    Tensor wide = Tensor::empty(out.shape(), DType::Float32, out.device());
    matmul_kernel(a.to(DType::Float32), b.to(DType::Float32), wide);
    copy_(out, wide);
    return;
  }
  MatrixBatch ma = describe(a.to(dt), true, batch);
  MatrixBatch mb = describe(b.to(dt), false, batch);
  visit_numeric(dt, "core::matmul", [&](auto tag) {
    using T = typename decltype(tag)::type;
    matmul_typed<T>(ma, mb, batch, out);
  });
}

// x is the transpose (last two dimensions) of a contiguous tensor: a view that transpose() made.
bool is_transposed_contiguous(const Tensor& x) {
  return x.dim() >= 2 && !x.is_contiguous() && transpose(x, -1, -2).is_contiguous();
}

// x's batch dimensions are the product's own (x was not broadcast against the other operand).
bool has_batch_of(const Tensor& x, const Shape& product) {
  return x.dim() == static_cast<int64_t>(product.size()) &&
         std::equal(x.shape().begin(), x.shape().end() - 2, product.begin());
}

Grads matmul_vjp(const VjpContext& c) {
  Tensor a = c.input(0), b = c.input(1), g = c.grad_output(0);
  // A real operand that is a transposed view (x W^T, em^T G ...) gets its gradient computed in
  // the layout of the tensor it views, (dL/dx^T)^T = a product with the factors swapped and
  // transposed: the same numbers, but the transpose's vjp then hands back a contiguous tensor,
  // and adding it to the tensor's other gradients (double backward) is a plain contiguous add
  // instead of a strided one (a third of the adds of the se_e2_a force training).
  const bool real = !is_complex(a.dtype()) && !is_complex(b.dtype()) && !is_complex(g.dtype());
  if (real && a.dim() >= 2 && b.dim() >= 2 && (is_transposed_contiguous(a) || is_transposed_contiguous(b))) {
    Tensor ga, gb;
    if (c.needs_grad(0))
      ga = is_transposed_contiguous(a) && has_batch_of(a, g.shape()) ? transpose(matmul(b, transpose(g, -1, -2)), -1, -2)
                                                                     : matmul(g, transpose(b, -1, -2));
    if (c.needs_grad(1))
      gb = is_transposed_contiguous(b) && has_batch_of(b, g.shape()) ? transpose(matmul(transpose(g, -1, -2), a), -1, -2)
                                                                     : matmul(transpose(a, -1, -2), g);
    return {ga, gb};
  }
  const bool a_vec = a.dim() == 1, b_vec = b.dim() == 1;
  // Restore the dimensions NumPy removed, so that everything is a batch of matrices.
  Tensor a2 = a_vec ? unsqueeze(a, 0) : a;
  Tensor b2 = b_vec ? unsqueeze(b, 1) : b;
  Shape gs = g.shape();
  if (a_vec) gs.insert(gs.end() - (b_vec ? 0 : 1), 1);
  if (b_vec) gs.push_back(1);
  Tensor g2 = reshape(g, gs);
  Tensor ga, gb;
  if (c.needs_grad(0)) {
    ga = matmul(g2, detail::mH(b2));  // batch + [M, K]; the dispatcher sums broadcast batch dims
    if (a_vec) ga = reshape(sum_to(ga, {1, a.shape()[0]}), a.shape());
  }
  if (c.needs_grad(1)) {
    gb = matmul(detail::mH(a2), g2);  // batch + [K, N]
    if (b_vec) gb = reshape(sum_to(gb, {b.shape()[0], 1}), b.shape());
  }
  return {ga, gb};
}

// ---- outer, dot, vdot ----

void check_vector(const char* op, const char* arg, const TensorSpec& t) {
  SAMPAN_CHECK(t.dim() == 1, ValueError, op, ": argument '", arg, "' must be 1-D, got shape ", shape_str(t.shape));
}

}  // namespace

SAMPAN_OP(core, matmul)
    .amp(AmpCast::LowPrecision)
    .doc("Matrix product with NumPy semantics: 1-D operands become a row (left) or column (right) "
         "that is removed again; leading batch dimensions broadcast. BLAS for float and complex.")
    .args("a", "b")
    .outputs("out")
    .dtypes({DType::Int32, DType::Int64, DType::Float16, DType::BFloat16, DType::Float32, DType::Float64,
             DType::Complex64, DType::Complex128})
    .shape(matmul_spec)
    .cpu(matmul_kernel)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(matmul_cuda_kernel)
    .cuda_rounds_differently()  // cuBLAS orders the k sums its own way
#endif
    .vjp(matmul_vjp)
    .samples([] { return std::vector<Values>{{f64({2, 3}), f64({3, 2})}, {c128({2, 2}), c128({2})}, {f64({3}), f64({2, 3, 2})}}; })
    .saves_for_vjp({"a", "b"});

SAMPAN_OP(core, outer)
    .doc("Outer product out[i, j] = a[i] * b[j] of the flattened operands.")
    .args("a", "b")
    .outputs("out")
    .dtypes({DType::Int32, DType::Int64, DType::Float32, DType::Float64, DType::Complex64, DType::Complex128})
    .shape([](const TensorSpec& a, const TensorSpec& b) {
      return TensorSpec{{shape_numel(a.shape), shape_numel(b.shape)}, promote_types(a.dtype, b.dtype), a.device};
    })
    .cpu([](const Tensor& a, const Tensor& b, Tensor& out) {
      Tensor col = reshape(a.to(out.dtype()), {-1, 1}), row = reshape(b.to(out.dtype()), {1, -1});
      visit_all(out.dtype(), "core::outer", [&](auto tag) {
        using T = typename decltype(tag)::type;
        detail::binary_loop<T, T>(col, row, out, [](T x, T y) { return static_cast<T>(x * y); });
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& a, const Tensor& b, Tensor& out) {  // one product per element, as on the CPU
      copy_(out, mul(reshape(a.to(out.dtype()), {-1, 1}), reshape(b.to(out.dtype()), {1, -1})));
    })
#endif
    .vjp([](const VjpContext& c) -> Grads {
      Tensor a = c.input(0), b = c.input(1), g = c.grad_output(0);
      // grad_a[i] = sum_j g[i, j] conj(b[j]); grad_b[j] = sum_i g[i, j] conj(a[i]).
      return {c.needs_grad(0) ? reshape(matmul(g, conj(reshape(b, {-1}))), a.shape()) : Tensor(),
              c.needs_grad(1) ? reshape(matmul(transpose(g, 0, 1), conj(reshape(a, {-1}))), b.shape()) : Tensor()};
    })
    .samples([] { return std::vector<Values>{{f64({3}), f64({2})}}; })
    .saves_for_vjp({"a", "b"});

SAMPAN_OP(core, dot)
    .doc("Inner product sum(a * b) of two 1-D tensors of equal length (no conjugation; see vdot).")
    .args("a", "b")
    .outputs("out")
    .dtypes({DType::Int32, DType::Int64, DType::Float32, DType::Float64, DType::Complex64, DType::Complex128})
    .shape([](const TensorSpec& a, const TensorSpec& b) {
      check_vector("dot", "a", a);
      check_vector("dot", "b", b);
      SAMPAN_CHECK(a.shape == b.shape, ValueError, "dot: shapes ", shape_str(a.shape), " and ", shape_str(b.shape), " differ");
      return matmul_spec(a, b);
    })
    .cpu([](const Tensor& a, const Tensor& b, Tensor& out) { matmul_kernel(a, b, out); })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(matmul_cuda_kernel)  // cuBLAS: the CPU's value to rounding
    .cuda_rounds_differently()
#endif
    .vjp([](const VjpContext& c) -> Grads {
      Tensor g = c.grad_output(0);
      return {c.needs_grad(0) ? mul(g, conj(c.input(1))) : Tensor(),
              c.needs_grad(1) ? mul(g, conj(c.input(0))) : Tensor()};
    })
    .samples([] { return std::vector<Values>{{f64({3}), f64({3}, 0.9)}}; })
    .saves_for_vjp({"a", "b"});

SAMPAN_OP(core, vdot)
    .doc("sum(conj(a) * b) over the flattened operands (equal sizes): the inner product that is "
         "linear in b and conjugate-linear in a, as NumPy's vdot.")
    .args("a", "b")
    .outputs("out")
    .dtypes({DType::Int32, DType::Int64, DType::Float32, DType::Float64, DType::Complex64, DType::Complex128})
    .shape([](const TensorSpec& a, const TensorSpec& b) {
      detail::check_linalg_dtype("vdot", "a", a.dtype);
      detail::check_linalg_dtype("vdot", "b", b.dtype);
      SAMPAN_CHECK(shape_numel(a.shape) == shape_numel(b.shape), ValueError, "vdot: shapes ", shape_str(a.shape), " and ", shape_str(b.shape),
                   " have different sizes");
      return TensorSpec{{}, promote_types(a.dtype, b.dtype), a.device};
    })
    .cpu([](const Tensor& a, const Tensor& b, Tensor& out) {
      matmul_kernel(conj(reshape(a, {-1})), reshape(b, {-1}), out);
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& a, const Tensor& b, Tensor& out) {
      matmul_cuda_kernel(conj(reshape(a, {-1})), reshape(b, {-1}), out);
    })
    .cuda_rounds_differently()
#endif
    .vjp([](const VjpContext& c) -> Grads {
      // out is conjugate-linear in a: grad_a = conj(g) * b, grad_b = g * a.
      Tensor a = c.input(0), b = c.input(1), g = c.grad_output(0);
      return {c.needs_grad(0) ? reshape(mul(conj(g), b), a.shape()) : Tensor(),
              c.needs_grad(1) ? reshape(mul(g, a), b.shape()) : Tensor()};
    })
    .samples([] { return std::vector<Values>{{c128({3}), c128({3}, -0.5)}}; });

Tensor matmul(const Tensor& a, const Tensor& b) {
  static OpHandle op("core::matmul");
  return op(a, b)[0];
}
Tensor outer(const Tensor& a, const Tensor& b) {
  static OpHandle op("core::outer");
  return op(a, b)[0];
}
Tensor dot(const Tensor& a, const Tensor& b) {
  static OpHandle op("core::dot");
  return op(a, b)[0];
}
Tensor vdot(const Tensor& a, const Tensor& b) {
  static OpHandle op("core::vdot");
  return op(a, b)[0];
}

}  // namespace sampan
