// The tabulated embedding net of a compressed se_e2_a model (namespace `deepmd`; DeePMD-kit's
// `dp compress`, its TabulateFusionSeA table): tabulated_embedding and tabulated_embedding_dot.
// Kernels in src/kernels/tabulate_kernels (CPU) and tabulate_kernels.cu (CUDA twins over the
// per-element bodies of tabulate_element.h: the CPU's bits); this file checks arguments,
// dispatches on the device and dtype and writes the vjps. The grid attributes (lower, upper, stride0, stride1) and the table's layout are
// described in src/kernels/tabulate_slot.h; sampan/deepmd/embedding_table.h builds tables.
//
// How the derivatives chain (force training needs the derivative of a derivative), with
// D_k[A] = d^k G / ds^k of the table A:
//   G = tabulated_embedding(s, A, k) = D_k[A](s)       vjp: ds = tabulated_embedding_dot(s, g, A, k + 1),
//                                                           dA = tabulated_embedding_table_grad(s, g, k)
//   y = tabulated_embedding_dot(s, w, A, k)            vjp: ds = h * tabulated_embedding_dot(s, w, A, k + 1),
//     = sum_m w D_k[A](s)                                   dw = h * tabulated_embedding(s, A, k),
//                                                           dA = tabulated_embedding_table_grad(s, h * w, k)
//   B = tabulated_embedding_table_grad(s, w, k)        vjp (cotangent C, a table): dw = tabulated_embedding(s, C, k),
//     (linear in w: <C, B> = sum w D_k[C](s))               ds = tabulated_embedding_dot(s, w, C, k + 1)
// and the fused contraction with em (DeePMD-kit's TabulateFusionSeA, Grad, GradGrad), for X [A, J, C],
// s [A, J], H [A, C, M], never storing the [A, J, M] embedding:
//   O = tabulated_contract(X, s, k): O[a,c,m] = sum_j X[a,j,c] D_k(s[a,j])_m
//                       vjp (cotangent P): dX = tabulated_expand(P, s, k), ds = tabulated_pair(P, X, s, k + 1)
//   E = tabulated_expand(H, s, k):   E[a,j,c] = sum_m H[a,c,m] D_k(s[a,j])_m
//                       vjp (cotangent Q): dH = tabulated_contract(Q, s, k), ds = tabulated_pair(H, Q, s, k + 1)
//   p = tabulated_pair(H, X, s, k):  p[a,j] = sum_{c,m} H[a,c,m] X[a,j,c] D_k(s[a,j])_m
//                       vjp (cotangent w): dH = tabulated_contract(w X, s, k), dX = w tabulated_expand(H, s, k),
//                                          ds = w tabulated_pair(H, X, s, k + 1)
// (each one's table gradient is tabulated_embedding_table_grad of s and X P, Q H or w X H);
// so the three are closed under differentiation (D_6 = 0: a quintic). Models do not train their
// tables (DeePMD-kit's neither); the table's gradient is there so that every input has one.
#include <cmath>
#include <string>

#include "kernels/tabulate_kernels.h"
#if defined(SAMPAN_CUDA_KERNELS)
#include "kernels/tabulate_kernels_cuda.h"
#include "run_on_device.h"
#endif
#include "sampan/dispatch.h"
#include "sampan/error.h"
#include "sampan/op.h"
#include "sampan/ops.h"
#include "sampan/testing/samples.h"

namespace sampan::deepmd {

namespace {

Tensor c(const Tensor& t) { return t.is_contiguous() ? t : t.contiguous(); }

const OpHandle& table_op() {
  static OpHandle op("deepmd::tabulated_embedding");
  return op;
}
const OpHandle& dot_op() {
  static OpHandle op("deepmd::tabulated_embedding_dot");
  return op;
}
const OpHandle& table_grad_op() {
  static OpHandle op("deepmd::tabulated_embedding_table_grad");
  return op;
}

// The grid of a table with `intervals` rows: nint0 = (upper - lower) / stride0 (a whole number),
// the rest are the coarse intervals past upper.
kernels::TableGrid grid_of(int64_t intervals, double lower, double upper, double stride0, double stride1, const char* op) {
  SAMPAN_CHECK(stride0 > 0 && stride1 > 0 && upper > lower, ValueError, op,
               ": need lower < upper and strides > 0, got lower = ", lower, ", upper = ", upper, ", stride0 = ", stride0,
               ", stride1 = ", stride1);
  const double fine = (upper - lower) / stride0;
  const int64_t nint0 = std::llround(fine);
  SAMPAN_CHECK(std::abs(fine - static_cast<double>(nint0)) < 1e-6 && nint0 >= 1, ValueError, op,
               ": (upper - lower) / stride0 = ", fine, " must be a whole number of intervals");
  SAMPAN_CHECK(intervals >= nint0, ValueError, op, ": the table has ", intervals, " intervals but [lower, upper) needs ",
               nint0, " of stride0");
  return kernels::TableGrid{lower, upper, stride0, stride1, nint0, intervals - nint0};
}

void check_float(const TensorSpec& t, const char* op, const char* name) {
  SAMPAN_CHECK(t.dtype == DType::Float32 || t.dtype == DType::Float64, TypeError, op, ": argument '", name,
               "' must be float32 or float64, got ", dtype_name(t.dtype));
}

// s [rows, 1] and table [intervals, 6, M] of s's dtype; returns M
int64_t check_inputs(const TensorSpec& s, const TensorSpec& table, double lower, double upper, double stride0,
                     double stride1, int64_t order, const char* op) {
  check_float(s, op, "s");
  SAMPAN_CHECK(s.dim() == 2 && s.shape[1] == 1, ValueError, op, ": argument 's' must have shape [rows, 1], got ",
               shape_str(s.shape));
  SAMPAN_CHECK(table.dtype == s.dtype, TypeError, op, ": argument 'table' must have dtype ", dtype_name(s.dtype),
               ", got ", dtype_name(table.dtype));
  SAMPAN_CHECK(table.dim() == 3 && table.shape[1] == 6, ValueError, op,
               ": argument 'table' must have shape [intervals, 6, M], got ", shape_str(table.shape));
  SAMPAN_CHECK(order >= 0, ValueError, op, ": argument 'order' must be >= 0, got ", order);
  grid_of(table.shape[0], lower, upper, stride0, stride1, op);
  return table.shape[2];
}

const std::vector<DType> kFloatTypes = {DType::Float32, DType::Float64};

const OpHandle& contract_op() {
  static OpHandle op("deepmd::tabulated_contract");
  return op;
}
const OpHandle& expand_op() {
  static OpHandle op("deepmd::tabulated_expand");
  return op;
}
const OpHandle& pair_op() {
  static OpHandle op("deepmd::tabulated_pair");
  return op;
}

// The grid attributes of a fused op, read from its VjpContext starting at argument `first`.
struct GridArgs {
  double lower, upper, stride0, stride1;
  int64_t order;
};
GridArgs grid_args(const VjpContext& ctx, size_t first) {
  return {ctx.attr<double>(first), ctx.attr<double>(first + 1), ctx.attr<double>(first + 2),
          ctx.attr<double>(first + 3), ctx.attr<int64_t>(first + 4)};
}
// The table's gradient for the weights W [A, J, M] of the rows (a, j) at s [A, J].
Tensor fused_table_grad(const Tensor& s, const Tensor& W, const Tensor& table, const GridArgs& g) {
  const int64_t rows = s.numel();
  return table_grad_op()(reshape(s, {rows, 1}), reshape(W, {rows, W.size(2)}), table.size(0), g.lower, g.upper,
                         g.stride0, g.stride1, g.order)[0];
}

// X [A, J, C] and s [A, J] (and H [A, C, M] where given) against the table; returns M.
int64_t check_fused(const TensorSpec* H, const TensorSpec* X, const TensorSpec& s, const TensorSpec& table, double lower,
                    double upper, double stride0, double stride1, int64_t order, const char* op) {
  check_float(s, op, "s");
  SAMPAN_CHECK(s.dim() == 2, ValueError, op, ": argument 's' must have shape [A, J], got ", shape_str(s.shape));
  SAMPAN_CHECK(table.dtype == s.dtype && table.dim() == 3 && table.shape[1] == 6, ValueError, op,
               ": argument 'table' must be ", dtype_name(s.dtype), " [intervals, 6, M], got ", dtype_name(table.dtype),
               " ", shape_str(table.shape));
  SAMPAN_CHECK(order >= 0, ValueError, op, ": argument 'order' must be >= 0, got ", order);
  grid_of(table.shape[0], lower, upper, stride0, stride1, op);
  const int64_t M = table.shape[2];
  if (X)
    SAMPAN_CHECK(X->dtype == s.dtype && X->dim() == 3 && X->shape[0] == s.shape[0] && X->shape[1] == s.shape[1],
                 ValueError, op, ": argument 'X' must be ", dtype_name(s.dtype), " [A, J, C] = [", s.shape[0], ", ",
                 s.shape[1], ", C], got ", dtype_name(X->dtype), " ", shape_str(X->shape));
  if (H)
    SAMPAN_CHECK(H->dtype == s.dtype && H->dim() == 3 && H->shape[0] == s.shape[0] && H->shape[2] == M &&
                     (!X || H->shape[1] == X->shape[2]),
                 ValueError, op, ": argument 'H' must be ", dtype_name(s.dtype), " [A, C, M] with A = ", s.shape[0],
                 ", M = ", M, X ? " and C of X" : "", ", got ", dtype_name(H->dtype), " ", shape_str(H->shape));
  return M;
}

// The kernels of each device, with the CPU kernels' arguments (host or device pointers).
template <class T> const T* in(const Tensor& t) { return static_cast<const T*>(t.raw_data()); }
template <class T> T* at(Tensor& t) { return static_cast<T*>(t.raw_data()); }

struct Cpu {
  template <class T, class... A> static void embedding(A... a) { kernels::tabulated_embedding_cpu<T>(a...); }
  template <class T, class... A> static void embedding_dot(A... a) { kernels::tabulated_embedding_dot_cpu<T>(a...); }
  template <class T, class... A> static void table_grad(A... a) { kernels::tabulated_embedding_table_grad_cpu<T>(a...); }
  template <class T, class... A> static void contract(A... a) { kernels::tabulated_contract_cpu<T>(a...); }
  template <class T, class... A> static void expand(A... a) { kernels::tabulated_expand_cpu<T>(a...); }
  template <class T, class... A> static void pair(A... a) { kernels::tabulated_pair_cpu<T>(a...); }
};

#if defined(SAMPAN_CUDA_KERNELS)
// The CUDA twins (kernels/tabulate_kernels.cu): the CPU's bits (kernels/tabulate_element.h).
struct Cuda {
  template <class T, class... A> static void embedding(A... a) {
    run_device([&] { kernels::tabulated_embedding_cuda<T>(a...); });
  }
  template <class T, class... A> static void embedding_dot(A... a) {
    run_device([&] { kernels::tabulated_embedding_dot_cuda<T>(a...); });
  }
  template <class T, class... A> static void table_grad(A... a) {
    run_device([&] { kernels::tabulated_embedding_table_grad_cuda<T>(a...); });
  }
  template <class T>
  static void contract(const kernels::TableGrid& g, const T* table, int64_t M, const T* X, const T* s, int64_t A,
                       int64_t J, int64_t C, int order, T* out) {
    // Each centre's slots in the CPU's visiting order, made on the device.
    Tensor pair_order = Tensor::empty({A * J}, DType::Int64, Device{DeviceType::CUDA, 0});
    run_device([&] {
      kernels::tabulated_contract_cuda<T>(g, table, M, X, s, A, J, C, order, at<int64_t>(pair_order), out);
    });
  }
  template <class T, class... A> static void expand(A... a) {
    run_device([&] { kernels::tabulated_expand_cuda<T>(a...); });
  }
  template <class T, class... A> static void pair(A... a) { run_device([&] { kernels::tabulated_pair_cuda<T>(a...); }); }
};
#endif

template <class B>
void embedding_kernel(const Tensor& s_in, const Tensor& table_in, double lower, double upper, double stride0,
                      double stride1, int64_t order, Tensor& out) {
  Tensor s = c(s_in), table = c(table_in);
  const auto grid = grid_of(table.size(0), lower, upper, stride0, stride1, "deepmd::tabulated_embedding");
  visit_floating(s.dtype(), "deepmd::tabulated_embedding", [&](auto tag) {
    using T = typename decltype(tag)::type;
    B::template embedding<T>(grid, in<T>(table), table.size(2), in<T>(s), s.size(0), static_cast<int>(order), at<T>(out));
  });
}

template <class B>
void embedding_dot_kernel(const Tensor& s_in, const Tensor& w_in, const Tensor& table_in, double lower, double upper,
                          double stride0, double stride1, int64_t order, Tensor& out) {
  Tensor s = c(s_in), w = c(w_in), table = c(table_in);
  const auto grid = grid_of(table.size(0), lower, upper, stride0, stride1, "deepmd::tabulated_embedding_dot");
  visit_floating(s.dtype(), "deepmd::tabulated_embedding_dot", [&](auto tag) {
    using T = typename decltype(tag)::type;
    B::template embedding_dot<T>(grid, in<T>(table), table.size(2), in<T>(s), in<T>(w), s.size(0),
                                 static_cast<int>(order), at<T>(out));
  });
}

template <class B>
void table_grad_kernel(const Tensor& s_in, const Tensor& w_in, int64_t intervals, double lower, double upper,
                       double stride0, double stride1, int64_t order, Tensor& out) {
  Tensor s = c(s_in), w = c(w_in);
  const char* op = "deepmd::tabulated_embedding_table_grad";
  const auto grid = grid_of(intervals, lower, upper, stride0, stride1, op);
  visit_floating(s.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    B::template table_grad<T>(grid, intervals, w.size(1), in<T>(s), in<T>(w), s.size(0), static_cast<int>(order),
                              at<T>(out));
  });
}

template <class B>
void contract_kernel(const Tensor& X_in, const Tensor& s_in, const Tensor& table_in, double lower, double upper,
                     double stride0, double stride1, int64_t order, Tensor& out) {
  Tensor X = c(X_in), s = c(s_in), table = c(table_in);
  const auto grid = grid_of(table.size(0), lower, upper, stride0, stride1, "deepmd::tabulated_contract");
  visit_floating(s.dtype(), "deepmd::tabulated_contract", [&](auto tag) {
    using T = typename decltype(tag)::type;
    B::template contract<T>(grid, in<T>(table), table.size(2), in<T>(X), in<T>(s), X.size(0), X.size(1), X.size(2),
                            static_cast<int>(order), at<T>(out));
  });
}

template <class B>
void expand_kernel(const Tensor& H_in, const Tensor& s_in, const Tensor& table_in, double lower, double upper,
                   double stride0, double stride1, int64_t order, Tensor& out) {
  Tensor H = c(H_in), s = c(s_in), table = c(table_in);
  const auto grid = grid_of(table.size(0), lower, upper, stride0, stride1, "deepmd::tabulated_expand");
  visit_floating(s.dtype(), "deepmd::tabulated_expand", [&](auto tag) {
    using T = typename decltype(tag)::type;
    B::template expand<T>(grid, in<T>(table), table.size(2), in<T>(H), in<T>(s), s.size(0), s.size(1), H.size(1),
                          static_cast<int>(order), at<T>(out));
  });
}

template <class B>
void pair_kernel(const Tensor& H_in, const Tensor& X_in, const Tensor& s_in, const Tensor& table_in, double lower,
                 double upper, double stride0, double stride1, int64_t order, Tensor& out) {
  Tensor H = c(H_in), X = c(X_in), s = c(s_in), table = c(table_in);
  const auto grid = grid_of(table.size(0), lower, upper, stride0, stride1, "deepmd::tabulated_pair");
  visit_floating(s.dtype(), "deepmd::tabulated_pair", [&](auto tag) {
    using T = typename decltype(tag)::type;
    B::template pair<T>(grid, in<T>(table), table.size(2), in<T>(H), in<T>(X), in<T>(s), s.size(0), s.size(1),
                        H.size(1), static_cast<int>(order), at<T>(out));
  });
}

// A = 3 centres, J = 4 slots, C = 4 components, M = 3 columns of the 7-interval sample table;
// s has rows inside both parts of the table and outside it.
Tensor fused_s() {
  return from_vector({-1.7, -0.93, -0.41, 0.07, 0.62, 0.97, 1.33, 2.71, 3.8, 5.2, 0.33, -0.21}, {3, 4});
}
Tensor fused_table() { return sample_args::uniform({7, 6, 3}, -1, 1, 41); }

// A 7-interval table (4 of 0.5 on [-1, 1), 3 of 1.0 beyond) of random coefficients, and rows of s
// inside both parts and outside on either side (held values there).
Values sample_table_args(bool dot) {
  Tensor s = from_vector({-1.7, -0.93, -0.41, 0.07, 0.62, 0.97, 1.33, 2.71, 3.8, 5.2}, {10, 1});
  Tensor table = sample_args::uniform({7, 6, 3}, -1, 1, 41);
  if (dot) return Values{s, sample_args::uniform({10, 3}, -1, 1, 42), table, -1.0, 1.0, 0.5, 1.0, int64_t{0}};
  return Values{s, table, -1.0, 1.0, 0.5, 1.0, int64_t{0}};
}

}  // namespace

SAMPAN_OP(deepmd, tabulated_embedding)
    .doc("G[r, m] = d^order/ds^order of a tabulated embedding net at s[r]: the compressed se_e2_a embedding "
         "(DeePMD-kit's dp compress). s [rows, 1]; table [intervals, 6, M]: quintic coefficients per interval and "
         "output, intervals of stride0 from lower to upper, then of stride1; outside the table the value is held "
         "at the nearest end (derivatives 0). Returns [rows, M]. Differentiable to any order in s "
         "(vjp: tabulated_embedding_dot with order + 1); the table has no gradient.")
    .args("s", "table", "lower", "upper", "stride0", "stride1", "order")
    .defaults({{"order", int64_t{0}}})
    .outputs("G")
    .shape([](const TensorSpec& s, const TensorSpec& table, double lower, double upper, double stride0, double stride1,
              int64_t order) {
      const int64_t M = check_inputs(s, table, lower, upper, stride0, stride1, order, "deepmd::tabulated_embedding");
      return TensorSpec{{s.shape[0], M}, s.dtype, s.device};
    })
    .cpu(embedding_kernel<Cpu>)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(embedding_kernel<Cuda>)
#endif
    .vjp([](const VjpContext& ctx) -> Grads {
      const Tensor s = ctx.input(0), table = ctx.input(1), g = ctx.grad_output(0);
      const double lo = ctx.attr<double>(2), up = ctx.attr<double>(3), s0 = ctx.attr<double>(4), s1 = ctx.attr<double>(5);
      const int64_t k = ctx.attr<int64_t>(6);
      Tensor ds = ctx.needs_grad(0) ? dot_op()(s, g, table, lo, up, s0, s1, k + 1)[0] : Tensor();
      Tensor dA = ctx.needs_grad(1) ? table_grad_op()(s, g, table.size(0), lo, up, s0, s1, k)[0] : Tensor();
      return {ds, dA};
    })
    .dtypes(kFloatTypes)
    .sample([] { return sample_table_args(false); });

SAMPAN_OP(deepmd, tabulated_embedding_dot)
    .doc("y[r] = sum_m w[r, m] d^order G_m/ds^order at s[r] for a tabulated embedding (see tabulated_embedding): "
         "its vjp in s, one pass without the [rows, M] derivative. s [rows, 1], w [rows, M]; returns [rows, 1]. "
         "Differentiable to any order in s and w.")
    .args("s", "w", "table", "lower", "upper", "stride0", "stride1", "order")
    .defaults({{"order", int64_t{0}}})
    .outputs("y")
    .shape([](const TensorSpec& s, const TensorSpec& w, const TensorSpec& table, double lower, double upper,
              double stride0, double stride1, int64_t order) {
      const char* op = "deepmd::tabulated_embedding_dot";
      const int64_t M = check_inputs(s, table, lower, upper, stride0, stride1, order, op);
      SAMPAN_CHECK(w.dtype == s.dtype, TypeError, op, ": argument 'w' must have dtype ", dtype_name(s.dtype), ", got ",
                   dtype_name(w.dtype));
      SAMPAN_CHECK(w.shape == Shape({s.shape[0], M}), ValueError, op, ": argument 'w' must have shape [rows, M] = [",
                   s.shape[0], ", ", M, "], got ", shape_str(w.shape));
      return TensorSpec{{s.shape[0], 1}, s.dtype, s.device};
    })
    .cpu(embedding_dot_kernel<Cpu>)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(embedding_dot_kernel<Cuda>)
#endif
    .vjp([](const VjpContext& ctx) -> Grads {
      const Tensor s = ctx.input(0), w = ctx.input(1), table = ctx.input(2), h = ctx.grad_output(0);
      const double lo = ctx.attr<double>(3), up = ctx.attr<double>(4), s0 = ctx.attr<double>(5), s1 = ctx.attr<double>(6);
      const int64_t k = ctx.attr<int64_t>(7);
      Tensor ds = ctx.needs_grad(0) ? mul(h, dot_op()(s, w, table, lo, up, s0, s1, k + 1)[0]) : Tensor();
      Tensor dw = ctx.needs_grad(1) ? mul(h, table_op()(s, table, lo, up, s0, s1, k)[0]) : Tensor();
      Tensor dA = ctx.needs_grad(2) ? table_grad_op()(s, mul(h, w), table.size(0), lo, up, s0, s1, k)[0] : Tensor();
      return {ds, dw, dA};
    })
    .dtypes(kFloatTypes)
    .sample([] { return sample_table_args(true); });

SAMPAN_OP(deepmd, tabulated_embedding_table_grad)
    .doc("dA[i, c, m] = sum over the rows r with s[r] in interval i of w[r, m] d^order/dt^order (t_r^c): the "
         "gradient of tabulated_embedding in its table (see there). s [rows, 1], w [rows, M]; returns "
         "[intervals, 6, M]. Linear in w; differentiable to any order.")
    .args("s", "w", "intervals", "lower", "upper", "stride0", "stride1", "order")
    .defaults({{"order", int64_t{0}}})
    .outputs("dtable")
    .shape([](const TensorSpec& s, const TensorSpec& w, int64_t intervals, double lower, double upper, double stride0,
              double stride1, int64_t order) {
      const char* op = "deepmd::tabulated_embedding_table_grad";
      check_float(s, op, "s");
      SAMPAN_CHECK(s.dim() == 2 && s.shape[1] == 1, ValueError, op, ": argument 's' must have shape [rows, 1], got ",
                   shape_str(s.shape));
      SAMPAN_CHECK(w.dtype == s.dtype && w.dim() == 2 && w.shape[0] == s.shape[0], ValueError, op,
                   ": argument 'w' must be ", dtype_name(s.dtype), " [rows, M] with rows = ", s.shape[0], ", got ",
                   dtype_name(w.dtype), " ", shape_str(w.shape));
      SAMPAN_CHECK(order >= 0, ValueError, op, ": argument 'order' must be >= 0, got ", order);
      grid_of(intervals, lower, upper, stride0, stride1, op);
      return TensorSpec{{intervals, 6, w.shape[1]}, s.dtype, s.device};
    })
    .cpu(table_grad_kernel<Cpu>)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(table_grad_kernel<Cuda>)
#endif
    .vjp([](const VjpContext& ctx) -> Grads {
      const Tensor s = ctx.input(0), w = ctx.input(1), C = ctx.grad_output(0);
      const double lo = ctx.attr<double>(3), up = ctx.attr<double>(4), s0 = ctx.attr<double>(5), s1 = ctx.attr<double>(6);
      const int64_t k = ctx.attr<int64_t>(7);
      Tensor ds = ctx.needs_grad(0) ? dot_op()(s, w, C, lo, up, s0, s1, k + 1)[0] : Tensor();
      Tensor dw = ctx.needs_grad(1) ? table_op()(s, C, lo, up, s0, s1, k)[0] : Tensor();
      return {ds, dw};
    })
    .dtypes(kFloatTypes)
    .sample([] {
      Values v = sample_table_args(true);  // s, w, table, grid..., order: the table's shape as `intervals`
      return Values{v[0], v[1], int64_t{7}, -1.0, 1.0, 0.5, 1.0, int64_t{0}};
    });

SAMPAN_OP(deepmd, tabulated_contract)
    .doc("O[a, c, m] = sum_j X[a, j, c] D(s[a, j])_m with D = d^order G/ds^order of a tabulated embedding (see "
         "tabulated_embedding): the se_e2_a contraction em^T G fused with the table, G never stored (DeePMD-kit's "
         "TabulateFusionSeA). X [A, J, C] (em), s [A, J] (em's column 0); returns [A, C, M]. Differentiable to any "
         "order (vjps: tabulated_expand, tabulated_pair).")
    .args("X", "s", "table", "lower", "upper", "stride0", "stride1", "order")
    .defaults({{"order", int64_t{0}}})
    .outputs("O")
    .shape([](const TensorSpec& X, const TensorSpec& s, const TensorSpec& table, double lower, double upper,
              double stride0, double stride1, int64_t order) {
      const int64_t M = check_fused(nullptr, &X, s, table, lower, upper, stride0, stride1, order,
                                    "deepmd::tabulated_contract");
      return TensorSpec{{X.shape[0], X.shape[2], M}, s.dtype, s.device};
    })
    .cpu(contract_kernel<Cpu>)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(contract_kernel<Cuda>)
    .cuda_rounds_differently()  // the CPU's float64 clone for AVX-512 fuses multiply-adds
#endif
    .vjp([](const VjpContext& ctx) -> Grads {
      const Tensor X = ctx.input(0), s = ctx.input(1), table = ctx.input(2), P = ctx.grad_output(0);
      const GridArgs g = grid_args(ctx, 3);
      Tensor dX = ctx.needs_grad(0) ? expand_op()(P, s, table, g.lower, g.upper, g.stride0, g.stride1, g.order)[0] : Tensor();
      Tensor ds = ctx.needs_grad(1) ? pair_op()(P, X, s, table, g.lower, g.upper, g.stride0, g.stride1, g.order + 1)[0]
                                    : Tensor();
      Tensor dA = ctx.needs_grad(2) ? fused_table_grad(s, matmul(X, P), table, g) : Tensor();
      return {dX, ds, dA};
    })
    .dtypes(kFloatTypes)
    .sample([] {
      return Values{sample_args::uniform({3, 4, 4}, -1, 1, 43), fused_s(), fused_table(), -1.0, 1.0, 0.5, 1.0, int64_t{0}};
    });

SAMPAN_OP(deepmd, tabulated_expand)
    .doc("E[a, j, c] = sum_m H[a, c, m] D(s[a, j])_m with D = d^order G/ds^order of a tabulated embedding: the "
         "transpose of tabulated_contract in X. H [A, C, M], s [A, J]; returns [A, J, C]. Differentiable to any order.")
    .args("H", "s", "table", "lower", "upper", "stride0", "stride1", "order")
    .defaults({{"order", int64_t{0}}})
    .outputs("E")
    .shape([](const TensorSpec& H, const TensorSpec& s, const TensorSpec& table, double lower, double upper,
              double stride0, double stride1, int64_t order) {
      check_fused(&H, nullptr, s, table, lower, upper, stride0, stride1, order, "deepmd::tabulated_expand");
      return TensorSpec{{s.shape[0], s.shape[1], H.shape[1]}, s.dtype, s.device};
    })
    .cpu(expand_kernel<Cpu>)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(expand_kernel<Cuda>)
    .cuda_rounds_differently()  // the CPU's float64 clone for AVX-512 fuses multiply-adds
#endif
    .vjp([](const VjpContext& ctx) -> Grads {
      const Tensor H = ctx.input(0), s = ctx.input(1), table = ctx.input(2), Q = ctx.grad_output(0);
      const GridArgs g = grid_args(ctx, 3);
      Tensor dH = ctx.needs_grad(0) ? contract_op()(Q, s, table, g.lower, g.upper, g.stride0, g.stride1, g.order)[0] : Tensor();
      Tensor ds = ctx.needs_grad(1) ? pair_op()(H, Q, s, table, g.lower, g.upper, g.stride0, g.stride1, g.order + 1)[0]
                                    : Tensor();
      Tensor dA = ctx.needs_grad(2) ? fused_table_grad(s, matmul(Q, H), table, g) : Tensor();
      return {dH, ds, dA};
    })
    .dtypes(kFloatTypes)
    .sample([] {
      return Values{sample_args::uniform({3, 4, 3}, -1, 1, 44), fused_s(), fused_table(), -1.0, 1.0, 0.5, 1.0, int64_t{0}};
    });

SAMPAN_OP(deepmd, tabulated_pair)
    .doc("p[a, j] = sum_{c, m} H[a, c, m] X[a, j, c] D(s[a, j])_m with D = d^order G/ds^order of a tabulated "
         "embedding: the derivative of tabulated_contract in s (with order + 1). H [A, C, M], X [A, J, C], s [A, J]; "
         "returns [A, J]. Differentiable to any order.")
    .args("H", "X", "s", "table", "lower", "upper", "stride0", "stride1", "order")
    .defaults({{"order", int64_t{0}}})
    .outputs("p")
    .shape([](const TensorSpec& H, const TensorSpec& X, const TensorSpec& s, const TensorSpec& table, double lower,
              double upper, double stride0, double stride1, int64_t order) {
      check_fused(&H, &X, s, table, lower, upper, stride0, stride1, order, "deepmd::tabulated_pair");
      return TensorSpec{s.shape, s.dtype, s.device};
    })
    .cpu(pair_kernel<Cpu>)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(pair_kernel<Cuda>)
    .cuda_rounds_differently()  // the CPU's float64 clone for AVX-512 fuses multiply-adds
#endif
    .vjp([](const VjpContext& ctx) -> Grads {
      const Tensor H = ctx.input(0), X = ctx.input(1), s = ctx.input(2), table = ctx.input(3), w = ctx.grad_output(0);
      const GridArgs g = grid_args(ctx, 4);
      const Tensor w3 = unsqueeze(w, 2);  // [A, J, 1]
      Tensor dH = ctx.needs_grad(0)
                      ? contract_op()(mul(w3, X), s, table, g.lower, g.upper, g.stride0, g.stride1, g.order)[0]
                      : Tensor();
      Tensor dX = ctx.needs_grad(1)
                      ? mul(w3, expand_op()(H, s, table, g.lower, g.upper, g.stride0, g.stride1, g.order)[0])
                      : Tensor();
      Tensor ds = ctx.needs_grad(2)
                      ? mul(w, pair_op()(H, X, s, table, g.lower, g.upper, g.stride0, g.stride1, g.order + 1)[0])
                      : Tensor();
      Tensor dA = ctx.needs_grad(3) ? fused_table_grad(s, mul(w3, matmul(X, H)), table, g) : Tensor();
      return {dH, dX, ds, dA};
    })
    .dtypes(kFloatTypes)
    .sample([] {
      return Values{sample_args::uniform({3, 4, 3}, -1, 1, 45), sample_args::uniform({3, 4, 4}, -1, 1, 46), fused_s(),
                    fused_table(), -1.0, 1.0, 0.5, 1.0, int64_t{0}};
    });

}  // namespace sampan::deepmd
