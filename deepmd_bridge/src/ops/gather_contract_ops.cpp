// The se_e2_a contraction over gathered embedding rows (namespace `deepmd`): gather_contract and
// its transposes gather_contract_em_grad and gather_contract_g_grad. Kernels in
// src/kernels/gather_contract_kernels; this file checks arguments, dispatches on the dtype and
// writes the vjps.
//
// With B = gather_contract(em, g, rows), A1 = gather_contract_em_grad(h, g, rows) and
// A2 = gather_contract_g_grad(em, h, rows, R), all three are partial derivatives of the
// trilinear form <h, B(em, g)> = <em, A1(h, g)> = <g, A2(em, h)>, so
//   B  vjp (cotangent w): d em = A1(w, g),  d g = A2(em, w)
//   A1 vjp (cotangent w): d h  = B(w, g),   d g = A2(w, h)
//   A2 vjp (cotangent w): d em = A1(h, w),  d h = B(em, w)
// and the chain is differentiable to any order (force training needs the second).
#include <string>

#include "kernels/gather_contract_kernels.h"
#if defined(SAMPAN_CUDA_KERNELS)
#include "kernels/layer_kernels_cuda.h"
#include "run_on_device.h"
#endif
#include "sampan/dispatch.h"
#include "sampan/error.h"
#include "sampan/op.h"
#include "sampan/ops.h"
#include "sampan/testing/samples.h"
#include "op_samples.h"

namespace sampan::deepmd {

namespace {

Tensor c(const Tensor& t) { return t.is_contiguous() ? t : t.contiguous(); }

const OpHandle& contract_op() {
  static OpHandle op("deepmd::gather_contract");
  return op;
}
const OpHandle& em_grad_op() {
  static OpHandle op("deepmd::gather_contract_em_grad");
  return op;
}
const OpHandle& g_grad_op() {
  static OpHandle op("deepmd::gather_contract_g_grad");
  return op;
}

void check_float(const TensorSpec& t, const char* op, const char* name, int dim, const char* layout) {
  SAMPAN_CHECK(t.dtype == DType::Float32 || t.dtype == DType::Float64, TypeError, op, ": argument '", name,
               "' must be float32 or float64, got ", dtype_name(t.dtype));
  SAMPAN_CHECK(t.dim() == dim, ValueError, op, ": argument '", name, "' must have shape ", layout, ", got ",
               shape_str(t.shape));
}
void check_same_dtype(const TensorSpec& t, const TensorSpec& like, const char* op, const char* name) {
  SAMPAN_CHECK(t.dtype == like.dtype, TypeError, op, ": argument '", name, "' must have dtype ", dtype_name(like.dtype),
               ", got ", dtype_name(t.dtype));
}
// rows: int64 [A * K], one row of g per (a, k)
void check_rows(const TensorSpec& rows, int64_t A, int64_t K, const char* op) {
  SAMPAN_CHECK(rows.dtype == DType::Int64, TypeError, op, ": argument 'rows' must be int64, got ",
               dtype_name(rows.dtype));
  SAMPAN_CHECK(rows.shape == Shape{A * K}, ValueError, op, ": argument 'rows' must have shape [A*K] = [", A * K,
               "], got ", shape_str(rows.shape));
}
// every index names a row of g (checked on the data: a bad index would read or write out of bounds)
void check_row_values(const Tensor& rows, int64_t R, const char* op) {
  const int64_t* p = rows.data<int64_t>();
  for (int64_t j = 0; j < rows.numel(); ++j)
    SAMPAN_CHECK(p[j] >= 0 && p[j] < R, IndexError, op, ": rows[", j, "] = ", p[j], " is not a row of g (", R,
                 " rows)");
}

const std::vector<DType> kFloatTypes = {DType::Float32, DType::Float64};

#if defined(SAMPAN_CUDA_KERNELS)
// The CUDA twins (kernels/layer_kernels.cu): rows are checked on the host, as on the CPU.
Tensor host_rows(const Tensor& rows, int64_t R, const char* op) {
  Tensor host = to_device(rows, cpu_device());
  check_row_values(host, R, op);
  return host;
}

void contract_on_cuda(const Tensor& em_in, const Tensor& g_in, const Tensor& rows_in, Tensor& out) {
  Tensor em = c(em_in), g = c(g_in), rows = c(rows_in);
  host_rows(rows, g.size(0), "deepmd::gather_contract");
  visit_floating(em.dtype(), "deepmd::gather_contract", [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_device([&] {
      kernels::gather_contract_cuda<T>(static_cast<const T*>(em.raw_data()), static_cast<const T*>(g.raw_data()),
                                       static_cast<const int64_t*>(rows.raw_data()), em.size(0), em.size(1),
                                       em.size(2), g.size(1), static_cast<T*>(out.raw_data()));
    });
  });
}

void em_grad_on_cuda(const Tensor& h_in, const Tensor& g_in, const Tensor& rows_in, Tensor& dem) {
  Tensor h = c(h_in), g = c(g_in), rows = c(rows_in);
  host_rows(rows, g.size(0), "deepmd::gather_contract_em_grad");
  visit_floating(h.dtype(), "deepmd::gather_contract_em_grad", [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_device([&] {
      kernels::gather_contract_em_grad_cuda<T>(static_cast<const T*>(h.raw_data()), static_cast<const T*>(g.raw_data()),
                                               static_cast<const int64_t*>(rows.raw_data()), h.size(0), dem.size(1),
                                               h.size(1), h.size(2), static_cast<T*>(dem.raw_data()));
    });
  });
}

// The counting sort of rows on the host (row_entries, as the CPU kernel), then one thread per
// output element on the GPU.
void g_grad_on_cuda(const Tensor& em_in, const Tensor& h_in, const Tensor& rows_in, int64_t num_rows,
                                 Tensor& dg) {
  Tensor em = c(em_in), h = c(h_in);
  const Tensor rows = host_rows(c(rows_in), num_rows, "deepmd::gather_contract_g_grad");
  Tensor start = Tensor::empty({num_rows + 1}, DType::Int64), entries = Tensor::empty({rows.numel()}, DType::Int64);
  kernels::row_entries(rows.data<int64_t>(), rows.numel(), num_rows, start.data<int64_t>(), entries.data<int64_t>());
  const Tensor start_gpu = to_device(start, dg.device()), entries_gpu = to_device(entries, dg.device());
  visit_floating(em.dtype(), "deepmd::gather_contract_g_grad", [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_device([&] {
      kernels::gather_contract_g_grad_cuda<T>(static_cast<const T*>(em.raw_data()), static_cast<const T*>(h.raw_data()),
                                              static_cast<const int64_t*>(start_gpu.raw_data()),
                                              static_cast<const int64_t*>(entries_gpu.raw_data()), em.size(1),
                                              em.size(2), h.size(2), num_rows, static_cast<T*>(dg.raw_data()));
    });
  });
}
#endif

}  // namespace

SAMPAN_OP(deepmd, gather_contract)
    .doc("out[a] = em[a]^T g[rows[a]]: out[a, c, m] = sum_k em[a, k, c] g[rows[a*K + k], m] for em [A, K, C], "
         "g [R, M], rows int64 [A*K]; out [A, C, M]. The se_e2_a contraction em^T G with G's rows gathered from "
         "the embedding net's distinct rows as they are read (no dense G). Differentiable to any order (vjps: "
         "gather_contract_em_grad, gather_contract_g_grad).")
    .args("em", "g", "rows")
    .outputs("out")
    .shape([](const TensorSpec& em, const TensorSpec& g, const TensorSpec& rows) {
      const char* op = "deepmd::gather_contract";
      check_float(em, op, "em", 3, "[A, K, C]");
      check_float(g, op, "g", 2, "[R, M]");
      check_same_dtype(g, em, op, "g");
      check_rows(rows, em.shape[0], em.shape[1], op);
      return TensorSpec{{em.shape[0], em.shape[2], g.shape[1]}, em.dtype, em.device};
    })
    .cpu([](const Tensor& em_in, const Tensor& g_in, const Tensor& rows_in, Tensor& out) {
      Tensor em = c(em_in), g = c(g_in), rows = c(rows_in);
      check_row_values(rows, g.size(0), "deepmd::gather_contract");
      visit_floating(em.dtype(), "deepmd::gather_contract", [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernels::gather_contract_cpu<T>(em.data<T>(), g.data<T>(), rows.data<int64_t>(), em.size(0), em.size(1),
                                        em.size(2), g.size(1), out.data<T>());
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(contract_on_cuda)
#endif
    .vjp([](const VjpContext& ctx) -> Grads {
      Tensor w = ctx.grad_output(0), em = ctx.input(0), g = ctx.input(1), rows = ctx.input(2);
      return {ctx.needs_grad(0) ? em_grad_op()(w, g, rows)[0] : Tensor(),
              ctx.needs_grad(1) ? g_grad_op()(em, w, rows, g.size(0))[0] : Tensor(), Tensor()};
    })
    .dtypes(kFloatTypes)
    .sample([] { return Values{sample_args::uniform({3, 4, 4}, -1, 1, 32), sample_args::uniform({6, 3}, -1, 1, 33), samples::gather_rows()}; });  // 3 centres x 4 slots naming 5 of 6 rows, some shared, one never named

SAMPAN_OP(deepmd, gather_contract_em_grad)
    .doc("dem[a, k, c] = sum_m h[a, c, m] g[rows[a*K + k], m] for h [A, C, M], g [R, M], rows int64 [A*K]; "
         "dem [A, K, C]: the transpose of gather_contract in em. Differentiable to any order.")
    .args("h", "g", "rows")
    .outputs("dem")
    .shape([](const TensorSpec& h, const TensorSpec& g, const TensorSpec& rows) {
      const char* op = "deepmd::gather_contract_em_grad";
      check_float(h, op, "h", 3, "[A, C, M]");
      check_float(g, op, "g", 2, "[R, M]");
      check_same_dtype(g, h, op, "g");
      SAMPAN_CHECK(g.shape[1] == h.shape[2], ValueError, op, ": g ", shape_str(g.shape), " must have the M = ",
                   h.shape[2], " columns of h ", shape_str(h.shape));
      SAMPAN_CHECK(rows.dim() == 1 && h.shape[0] > 0 && rows.shape[0] % h.shape[0] == 0, ValueError, op,
                   ": argument 'rows' must have shape [A*K] with A = ", h.shape[0], ", got ", shape_str(rows.shape));
      const int64_t K = rows.shape[0] / h.shape[0];
      check_rows(rows, h.shape[0], K, op);
      return TensorSpec{{h.shape[0], K, h.shape[1]}, h.dtype, h.device};
    })
    .cpu([](const Tensor& h_in, const Tensor& g_in, const Tensor& rows_in, Tensor& dem) {
      Tensor h = c(h_in), g = c(g_in), rows = c(rows_in);
      check_row_values(rows, g.size(0), "deepmd::gather_contract_em_grad");
      visit_floating(h.dtype(), "deepmd::gather_contract_em_grad", [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernels::gather_contract_em_grad_cpu<T>(h.data<T>(), g.data<T>(), rows.data<int64_t>(), h.size(0), dem.size(1),
                                                h.size(1), h.size(2), dem.data<T>());
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(em_grad_on_cuda)
    .cuda_rounds_differently()  // the CPU sums over m in SIMD lanes
#endif
    .vjp([](const VjpContext& ctx) -> Grads {
      Tensor w = ctx.grad_output(0), h = ctx.input(0), g = ctx.input(1), rows = ctx.input(2);
      return {ctx.needs_grad(0) ? contract_op()(w, g, rows)[0] : Tensor(),
              ctx.needs_grad(1) ? g_grad_op()(w, h, rows, g.size(0))[0] : Tensor(), Tensor()};
    })
    .dtypes(kFloatTypes)
    .sample([] { return Values{sample_args::uniform({3, 4, 3}, -1, 1, 34), sample_args::uniform({6, 3}, -1, 1, 35), samples::gather_rows()}; });

SAMPAN_OP(deepmd, gather_contract_g_grad)
    .doc("dg[r, m] = sum over (a, k) with rows[a*K + k] = r of sum_c em[a, k, c] h[a, c, m], for em [A, K, C], "
         "h [A, C, M], rows int64 [A*K], R rows; dg [R, M]: the transpose of gather_contract in g (each row "
         "summed on its own, in increasing a*K + k). Differentiable to any order.")
    .args("em", "h", "rows", "num_rows")
    .outputs("dg")
    .shape([](const TensorSpec& em, const TensorSpec& h, const TensorSpec& rows, int64_t num_rows) {
      const char* op = "deepmd::gather_contract_g_grad";
      check_float(em, op, "em", 3, "[A, K, C]");
      check_float(h, op, "h", 3, "[A, C, M]");
      check_same_dtype(h, em, op, "h");
      SAMPAN_CHECK(h.shape[0] == em.shape[0] && h.shape[1] == em.shape[2], ValueError, op, ": h ",
                   shape_str(h.shape), " must be [A, C, M] for em ", shape_str(em.shape));
      check_rows(rows, em.shape[0], em.shape[1], op);
      SAMPAN_CHECK(num_rows >= 0, ValueError, op, ": num_rows must be >= 0, got ", num_rows);
      return TensorSpec{{num_rows, h.shape[2]}, em.dtype, em.device};
    })
    .cpu([](const Tensor& em_in, const Tensor& h_in, const Tensor& rows_in, int64_t num_rows, Tensor& dg) {
      Tensor em = c(em_in), h = c(h_in), rows = c(rows_in);
      check_row_values(rows, num_rows, "deepmd::gather_contract_g_grad");
      visit_floating(em.dtype(), "deepmd::gather_contract_g_grad", [&](auto tag) {
        using T = typename decltype(tag)::type;
        kernels::gather_contract_g_grad_cpu<T>(em.data<T>(), h.data<T>(), rows.data<int64_t>(), em.size(0),
                                               em.size(1), em.size(2), h.size(2), num_rows, dg.data<T>());
      });
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(g_grad_on_cuda)
#endif
    .vjp([](const VjpContext& ctx) -> Grads {
      Tensor w = ctx.grad_output(0), em = ctx.input(0), h = ctx.input(1), rows = ctx.input(2);
      return {ctx.needs_grad(0) ? em_grad_op()(h, w, rows)[0] : Tensor(),
              ctx.needs_grad(1) ? contract_op()(em, w, rows)[0] : Tensor(), Tensor()};
    })
    .dtypes(kFloatTypes)
    .sample([] { return Values{sample_args::uniform({3, 4, 4}, -1, 1, 36), sample_args::uniform({3, 4, 3}, -1, 1, 37), samples::gather_rows(), int64_t{6}}; });

}  // namespace sampan::deepmd
