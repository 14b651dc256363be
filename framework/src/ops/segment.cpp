// sampan: segment reductions (core::segment_sum, segment_mean, segment_max, segment_min,
// segment_count): rows of `data` ([n, ...]) reduced into `num_segments` buckets by an int
// segment id per row, sorted or not. These carry message passing in the GNN module.
//
// num_segments = -1 means max(id) + 1 (the output size then depends on the data). Ids outside
// [0, num_segments) raise IndexError naming the id, its row and num_segments. Empty segments
// give 0 (sum, mean, max, min). Kernels: ../kernels/segment_kernels.h; the per-element folds
// (../kernels/segment_fold.h) are shared with the CUDA twins (../kernels/segment_kernels.cu),
// registered where sampan is built with nvcc (on an H200 they gave the CPU's bits, docs/gpu.md).
//
// core::gather_add_scatter is message passing's segment_sum(index_select(x, gather) + edge,
// scatter) in one pass (../kernels/gather_scatter_kernels.h), with no [E, f] temporaries; its
// gradient is the same op with the two indices swapped (and index_select for the edge term).
#include <algorithm>
#include <optional>

#include "sampan/ops.h"
#include "elementwise_support.h"
#include "../kernels/gather_scatter_kernels.h"
#include "../kernels/segment_kernels.h"
#include "cuda_support.h"
#include "sample_support.h"

using namespace sampan::op_samples;  // the samples' f64, c128, IntList

namespace sampan {

namespace {

TensorSpec segment_spec(const char* op, const TensorSpec& data, const TensorSpec& ids, int64_t num_segments,
                        DType dtype) {
  if (!is_integral(ids.dtype))
    SAMPAN_THROW(TypeError, op, ": segment_ids must be an int32 or int64 tensor, got ", dtype_name(ids.dtype));
  SAMPAN_CHECK(ids.dim() == 1, ValueError, op, ": segment_ids must be 1-D, got shape ", shape_str(ids.shape));
  SAMPAN_CHECK(data.dim() >= 1, ValueError, op, ": data must have at least one dimension (the rows), got a 0-d tensor");
  SAMPAN_CHECK(data.shape[0] == ids.shape[0], ValueError, op, ": data has ", data.shape[0], " rows but segment_ids has ",
               ids.shape[0], " entries");
  SAMPAN_CHECK(num_segments >= -1, ValueError, op, ": num_segments must be >= 0 (or -1 to infer it), got ", num_segments);
  Shape s = data.shape;
  s[0] = num_segments;  // -1: known only from the data
  return TensorSpec{s, dtype, data.device};
}

// Checks ids (as int64) and resolves num_segments = -1 to max(id) + 1.
void check_segment_ids(const char* op, const std::vector<int64_t>& r, int64_t& num_segments) {
  if (num_segments < 0) {
    num_segments = 0;
    for (auto v : r) num_segments = std::max(num_segments, v + 1);
  }
  for (size_t k = 0; k < r.size(); ++k)
    if (r[k] < 0 || r[k] >= num_segments)
      SAMPAN_THROW(IndexError, op, ": segment id ", r[k], " (row ", k,
                   ") is out of range for num_segments ", num_segments);
}

// The ids (a CPU tensor) as int64, validated; resolves num_segments = -1 to max(id) + 1.
std::vector<int64_t> read_segment_ids(const char* op, const Tensor& ids, int64_t& num_segments) {
  Tensor c = cast(ids, DType::Int64).contiguous();
  const int64_t* p = c.data<int64_t>();
  std::vector<int64_t> r(p, p + c.numel());
  check_segment_ids(op, r, num_segments);
  return r;
}

struct Prepared {
  Tensor data;  // contiguous, in the kernel's dtype
  int64_t n, f, num_segments;
  std::vector<int64_t> ids;
  kernels::SegmentCounts counts;
  Shape out_shape;
};
Prepared prepare(const char* op, const Tensor& data, const Tensor& ids, int64_t num_segments, DType dtype) {
  Prepared p;
  p.num_segments = num_segments;
  p.ids = read_segment_ids(op, ids, p.num_segments);
  p.data = data.to(dtype).contiguous();
  p.n = data.shape()[0];
  p.f = p.n ? data.numel() / p.n : shape_numel(Shape(data.shape().begin() + 1, data.shape().end()));
  p.counts = kernels::count_segments(p.ids.data(), p.n, p.num_segments);
  p.out_shape = data.shape();
  p.out_shape[0] = p.num_segments;
  return p;
}

void sum_kernel(const char* op, const Tensor& data, const Tensor& ids, int64_t num_segments, bool mean, Tensor& out) {
  Prepared p = prepare(op, data, ids, num_segments, mean ? to_floating(data.dtype()) : data.dtype());
  if (!out.defined()) out = Tensor::empty(p.out_shape, p.data.dtype(), data.device());
  visit_numeric(p.data.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    kernels::segment_sum_rows(p.data.data<T>(), p.ids.data(), p.n, p.f, p.counts, p.num_segments, mean, out.data<T>());
  });
}

void extreme_kernel(const char* op, const Tensor& data, const Tensor& ids, int64_t num_segments, bool want_max,
                    Tensor& out, Tensor& arg) {
  Prepared p = prepare(op, data, ids, num_segments, data.dtype());
  if (!out.defined()) out = Tensor::empty(p.out_shape, data.dtype(), data.device());
  if (!arg.defined()) arg = Tensor::empty(p.out_shape, DType::Int64, data.device());
  visit_real(data.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    kernels::segment_extreme_rows(p.data.data<T>(), p.ids.data(), p.n, p.f, p.counts, p.num_segments, want_max, out.data<T>(),
                                  arg.data<int64_t>());
  });
}

#if defined(SAMPAN_CUDA_KERNELS)
// ---- CUDA twins: the ids come back to the host to be checked (and to order the rows) ----
struct CudaPrepared {
  std::vector<int64_t> ids;
  int64_t n, f, num_segments;
  Shape out_shape;
};
CudaPrepared prepare_cuda(const char* op, const Tensor& data, const Tensor& ids, int64_t num_segments) {
  CudaPrepared p;
  p.num_segments = num_segments;
  p.ids = read_segment_ids(op, cuda_support::index_to_host(op, "segment_ids", ids), p.num_segments);
  cuda_support::require_contiguous(op, "data", data);
  p.n = data.shape()[0];
  p.f = p.n ? data.numel() / p.n : shape_numel(Shape(data.shape().begin() + 1, data.shape().end()));
  p.out_shape = data.shape();
  p.out_shape[0] = p.num_segments;
  return p;
}

void sum_kernel_cuda(const char* op, const Tensor& data, const Tensor& ids, int64_t num_segments, bool mean, Tensor& out) {
  CudaPrepared p = prepare_cuda(op, data, ids, num_segments);
  // segment_mean of integers gives float32 on the CPU (a cast there); the CUDA twin takes floats only.
  cuda_support::visit_cuda_dtype(data.dtype(), op, mean, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (!out.defined()) out = Tensor::empty(p.out_shape, data.dtype(), data.device());
    cuda_support::run_device([&] {
      kernels::segment_sum_rows_cuda<T>(data.data<T>(), p.ids.data(), p.n, p.f, p.num_segments, mean, out.data<T>());
    });
  });
}

void extreme_kernel_cuda(const char* op, const Tensor& data, const Tensor& ids, int64_t num_segments, bool want_max,
                         Tensor& out, Tensor& arg) {
  CudaPrepared p = prepare_cuda(op, data, ids, num_segments);
  cuda_support::visit_cuda_dtype(data.dtype(), op, false, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (!out.defined()) out = Tensor::empty(p.out_shape, data.dtype(), data.device());
    if (!arg.defined()) arg = Tensor::empty(p.out_shape, DType::Int64, data.device());
    cuda_support::run_device([&] {
      kernels::segment_extreme_rows_cuda<T>(data.data<T>(), p.ids.data(), p.n, p.f, p.num_segments, want_max,
                                            out.data<T>(), arg.data<int64_t>());
    });
  });
}
#endif

// ---- gather_add_scatter ----

TensorSpec gather_add_scatter_spec(const TensorSpec& x, const TensorSpec& gather, const TensorSpec& scatter,
                                   int64_t num_segments, const std::optional<TensorSpec>& edge) {
  const char* op = "gather_add_scatter";
  SAMPAN_CHECK(x.dim() >= 1, ValueError, op, ": x must have at least one dimension (the rows), got a 0-d tensor");
  if (!is_integral(gather.dtype))
    SAMPAN_THROW(TypeError, op, ": gather_index must be an int32 or int64 tensor, got ", dtype_name(gather.dtype));
  SAMPAN_CHECK(gather.dim() == 1, ValueError, op, ": gather_index must be 1-D, got shape ", shape_str(gather.shape));
  if (scatter.dim() == 1 && scatter.shape[0] != gather.shape[0])
    SAMPAN_THROW(ValueError, op, ": gather_index has ", gather.shape[0],
                 " entries but scatter_index has ", scatter.shape[0],
                 " (one source and one destination per message)");
  TensorSpec rows{Shape{gather.shape[0]}, x.dtype, x.device};  // one message per gather entry
  TensorSpec s = segment_spec(op, rows, scatter, num_segments, x.dtype);
  Shape out = x.shape;
  out[0] = s.shape[0];
  if (edge) {
    Shape want = x.shape;
    want[0] = gather.shape[0];
    SAMPAN_CHECK(edge->shape == want, ValueError, op, ": edge must have shape ", shape_str(want),
                 " (one row per gather_index entry, x's trailing shape), got ", shape_str(edge->shape));
    SAMPAN_CHECK(edge->dtype == x.dtype, TypeError, op, ": edge has dtype ", dtype_name(edge->dtype), " but x has ", dtype_name(x.dtype));
  }
  return TensorSpec{out, x.dtype, x.device};
}

// gather_index entries as rows of x, each in [0, rows): no negative indices (unlike index_select),
// since the gradient uses them as segment ids.
std::vector<int64_t> read_gather_index(const char* op, const Tensor& index, int64_t rows) {
  Tensor c = cast(index, DType::Int64).contiguous();
  const int64_t* p = c.data<int64_t>();
  std::vector<int64_t> r(p, p + c.numel());
  for (size_t k = 0; k < r.size(); ++k)
    if (r[k] < 0 || r[k] >= rows)
      SAMPAN_THROW(IndexError, op, ": gather_index ", r[k], " (at position ", k,
                   ") is out of range [0, ", rows, ") for x with ", rows, " rows");
  return r;
}

int64_t trailing_numel(const Tensor& x) { return shape_numel(Shape(x.shape().begin() + 1, x.shape().end())); }

void gather_add_scatter_kernel(const Tensor& x, const Tensor& gather, const Tensor& scatter, int64_t num_segments,
                               const std::optional<Tensor>& edge, Tensor& out) {
  const char* op = "core::gather_add_scatter";
  std::vector<int64_t> ids = read_segment_ids(op, scatter, num_segments);
  std::vector<int64_t> rows = read_gather_index(op, gather, x.shape()[0]);
  const int64_t m = static_cast<int64_t>(rows.size()), f = trailing_numel(x);
  Shape out_shape = x.shape();
  out_shape[0] = num_segments;
  if (!out.defined()) out = Tensor::empty(out_shape, x.dtype(), x.device());
  Tensor xc = x.contiguous();
  Tensor ec = edge ? edge->contiguous() : Tensor();
  kernels::SegmentCounts counts = kernels::count_segments(ids.data(), m, num_segments);
  visit_numeric(x.dtype(), op, [&](auto tag) {
    using T = typename decltype(tag)::type;
    kernels::gather_add_scatter_rows(xc.data<T>(), rows.data(), ec.defined() ? ec.data<T>() : nullptr, ids.data(), m, f,
                                     counts, num_segments, out.data<T>());
  });
}

#if defined(SAMPAN_CUDA_KERNELS)
void gather_add_scatter_kernel_cuda(const Tensor& x, const Tensor& gather, const Tensor& scatter, int64_t num_segments,
                                    const std::optional<Tensor>& edge, Tensor& out) {
  const char* op = "core::gather_add_scatter";
  std::vector<int64_t> ids = read_segment_ids(op, cuda_support::index_to_host(op, "scatter_index", scatter), num_segments);
  std::vector<int64_t> rows = read_gather_index(op, cuda_support::index_to_host(op, "gather_index", gather), x.shape()[0]);
  cuda_support::require_contiguous(op, "x", x);
  if (edge) cuda_support::require_contiguous(op, "edge", *edge);
  const int64_t m = static_cast<int64_t>(rows.size()), f = trailing_numel(x);
  Shape out_shape = x.shape();
  out_shape[0] = num_segments;
  cuda_support::visit_cuda_dtype(x.dtype(), op, false, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (!out.defined()) out = Tensor::empty(out_shape, x.dtype(), x.device());
    cuda_support::run_device([&] {
      kernels::gather_add_scatter_rows_cuda<T>(x.data<T>(), rows.data(), edge ? edge->data<T>() : nullptr, ids.data(), m, f,
                                               num_segments, out.data<T>());
    });
  });
}
#endif

// Count per segment as data's dtype, shaped [num_segments, 1, ...] to broadcast against rows.
Tensor count_column(const Tensor& counts, const Tensor& like) {
  Shape s(like.dim(), 1);
  s[0] = counts.numel();
  return reshape(counts.to(like.dtype()), s);
}

// The gradient of max/min: each output's gradient goes to the row it came from. Empty
// segments (arg -1) have their gradient masked to 0 first, so where -1 points does not matter.
Grads extreme_vjp(const VjpContext& c) {
  Tensor data = c.input(0), ids = c.input(1), g = c.grad_output(0), arg = c.output(1);
  if (data.shape()[0] == 0) return {zeros(data.shape(), g.dtype()), Tensor()};
  Tensor nonempty = count_column(cast(segment_count(ids, g.shape()[0]), DType::Bool), g);
  return {scatter_add(zeros(data.shape(), g.dtype()), 0, arg, mul(g, nonempty)), Tensor()};
}

}  // namespace

SAMPAN_OP(core, segment_sum)
    .amp(AmpCast::Float32)
    .doc("out[s] = sum of data[r] over the rows r with segment_ids[r] == s (0 for an empty "
         "segment); ids may be unsorted; num_segments = -1 infers max(id) + 1.")
    .args("data", "segment_ids", "num_segments")
    .defaults({{"num_segments", -1}})  // -1: max(id) + 1
    .outputs("out")
    .shape([](const TensorSpec& data, const TensorSpec& ids, int64_t num_segments) {
      return segment_spec("segment_sum", data, ids, num_segments, data.dtype);
    })
    .cpu([](const Tensor& data, const Tensor& ids, int64_t num_segments, Tensor& out) {
      sum_kernel("core::segment_sum", data, ids, num_segments, false, out);
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& data, const Tensor& ids, int64_t num_segments, Tensor& out) {
      sum_kernel_cuda("core::segment_sum", data, ids, num_segments, false, out);
    })
#endif
    .vjp([](const VjpContext& c) -> Grads { return {index_select(c.grad_output(0), 0, c.input(1)), Tensor()}; })
    .samples([] { return std::vector<Values>{{f64({5, 3}), from_vector({2, 0, 2, 3, 0}, {5}, DType::Int64), int64_t(4)}, {f64({4}), from_vector({0, 0, 1, 1}, {4}, DType::Int64), int64_t(-1)}}; })
    .saves_for_vjp({"segment_ids"});

SAMPAN_OP(core, gather_add_scatter)
    .amp(AmpCast::Float32)
    .doc("Message passing in one pass: out[s] = sum over the entries e with scatter_index[e] == s of "
         "x[gather_index[e]] + edge[e] (edge optional: [E, ...] like x's rows; gather_index in [0, rows of "
         "x)), i.e. "
         "segment_sum(index_select(x, 0, gather_index) + edge, scatter_index, num_segments) with the "
         "same bits and no [E, ...] temporaries. num_segments = -1 infers max(id) + 1. Gradient: the "
         "same op with the indices swapped for x, index_select(grad, 0, scatter_index) for edge.")
    .args("x", "gather_index", "scatter_index", "num_segments", "edge")
    .defaults({{"num_segments", -1}})
    .outputs("out")
    .shape(gather_add_scatter_spec)
    .cpu(gather_add_scatter_kernel)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(gather_add_scatter_kernel_cuda)
#endif
    .vjp([](const VjpContext& c) -> Grads {
      Tensor x = c.input(0), gather = c.input(1), scatter = c.input(2), g = c.grad_output(0);
      // d out[s] / d x[r] counts the entries e with gather[e] = r and scatter[e] = s: the
      // transpose gathers grad rows by scatter_index and sums them onto the gather rows.
      Tensor gx = c.needs_grad(0) ? gather_add_scatter(g, scatter, gather, x.shape()[0]) : Tensor();
      if (!c.input(4).defined()) return {gx, Tensor(), Tensor()};  // an absent edge has no slot
      return {gx, Tensor(), Tensor(), c.needs_grad(3) ? index_select(g, 0, scatter) : Tensor()};
    })
    .samples([] { return std::vector<Values>{{f64({4, 3}), from_vector({3, 0, 1, 3, 2}, {5}, DType::Int64), from_vector({1, 0, 1, 3, 0}, {5}, DType::Int64), int64_t(4), f64({5, 3}, -1.0, 0.31)},
                                                                   {f64({3, 2}), from_vector({2, 0, 2}, {3}, DType::Int64), from_vector({0, 0, 1}, {3}, DType::Int64), int64_t(-1), Value()}}; })
    .saves_for_vjp({"gather_index", "scatter_index"});

SAMPAN_OP(core, segment_mean)
    .amp(AmpCast::Float32)
    .doc("out[s] = mean of data[r] over the rows r with segment_ids[r] == s (0 for an empty "
         "segment); integer data gives float32.")
    .args("data", "segment_ids", "num_segments")
    .defaults({{"num_segments", -1}})
    .outputs("out")
    .shape([](const TensorSpec& data, const TensorSpec& ids, int64_t num_segments) {
      return segment_spec("segment_mean", data, ids, num_segments, to_floating(data.dtype));
    })
    .cpu([](const Tensor& data, const Tensor& ids, int64_t num_segments, Tensor& out) {
      sum_kernel("core::segment_mean", data, ids, num_segments, true, out);
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& data, const Tensor& ids, int64_t num_segments, Tensor& out) {
      sum_kernel_cuda("core::segment_mean", data, ids, num_segments, true, out);
    })
#endif
    .vjp([](const VjpContext& c) -> Grads {
      Tensor ids = c.input(1), g = c.grad_output(0);
      // Each row's gradient is its segment's divided by that segment's size, which is >= 1 for
      // every row (so no 0/0 even in higher derivatives).
      Tensor per_row = index_select(segment_count(ids, g.shape()[0]), 0, ids);
      return {div(index_select(g, 0, ids), count_column(per_row, g)), Tensor()};
    })
    .samples([] { return std::vector<Values>{{f64({5, 3}), from_vector({2, 0, 2, 3, 0}, {5}, DType::Int64), int64_t(4)}}; })
    .saves_for_vjp({"segment_ids"});

SAMPAN_OP(core, segment_max)
    .doc("out[s] = elementwise max of data[r] over the rows with segment_ids[r] == s, and the row "
         "it came from (first on ties, NaN propagates); empty segments give 0 and row -1. The "
         "gradient goes to that row.")
    .args("data", "segment_ids", "num_segments")
    .defaults({{"num_segments", -1}})
    .outputs("out", "argmax")
    .shape([](const TensorSpec& data, const TensorSpec& ids, int64_t num_segments) {
      TensorSpec s = segment_spec("segment_max", data, ids, num_segments, data.dtype);
      return std::vector<TensorSpec>{s, TensorSpec{s.shape, DType::Int64, data.device}};
    })
    .cpu([](const Tensor& data, const Tensor& ids, int64_t num_segments, Tensor& out, Tensor& arg) {
      extreme_kernel("core::segment_max", data, ids, num_segments, true, out, arg);
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& data, const Tensor& ids, int64_t num_segments, Tensor& out, Tensor& arg) {
      extreme_kernel_cuda("core::segment_max", data, ids, num_segments, true, out, arg);
    })
#endif
    .vjp(extreme_vjp)
    .samples([] { return std::vector<Values>{{f64({5, 3}), from_vector({2, 0, 2, 3, 0}, {5}, DType::Int64), int64_t(4)}}; });

SAMPAN_OP(core, segment_min)
    .doc("As segment_max, with the minimum.")
    .args("data", "segment_ids", "num_segments")
    .defaults({{"num_segments", -1}})
    .outputs("out", "argmin")
    .shape([](const TensorSpec& data, const TensorSpec& ids, int64_t num_segments) {
      TensorSpec s = segment_spec("segment_min", data, ids, num_segments, data.dtype);
      return std::vector<TensorSpec>{s, TensorSpec{s.shape, DType::Int64, data.device}};
    })
    .cpu([](const Tensor& data, const Tensor& ids, int64_t num_segments, Tensor& out, Tensor& arg) {
      extreme_kernel("core::segment_min", data, ids, num_segments, false, out, arg);
    })
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda([](const Tensor& data, const Tensor& ids, int64_t num_segments, Tensor& out, Tensor& arg) {
      extreme_kernel_cuda("core::segment_min", data, ids, num_segments, false, out, arg);
    })
#endif
    .vjp(extreme_vjp)
    .samples([] { return std::vector<Values>{{f64({5, 3}), from_vector({2, 0, 2, 3, 0}, {5}, DType::Int64), int64_t(4)}}; });

SAMPAN_OP(core, segment_count)
    .doc("The number of rows in each segment, int64 [num_segments] (-1 infers max(id) + 1).")
    .args("segment_ids", "num_segments")
    .defaults({{"num_segments", -1}})
    .outputs("out")
    .nondifferentiable()
    .shape([](const TensorSpec& ids, int64_t num_segments) {
      TensorSpec data{{ids.dim() == 1 ? ids.shape[0] : 0}, DType::Int64, ids.device};
      return segment_spec("segment_count", data, ids, num_segments, DType::Int64);
    })
    .cpu([](const Tensor& ids, int64_t num_segments, Tensor& out) {
      auto v = read_segment_ids("core::segment_count", ids, num_segments);
      if (!out.defined()) out = Tensor::empty({num_segments}, DType::Int64, ids.device());
      int64_t* o = out.data<int64_t>();
      std::fill(o, o + num_segments, int64_t(0));
      for (auto s : v) ++o[s];
    })
#if defined(SAMPAN_CUDA_KERNELS)
    // The CUDA twin (../kernels/segment_kernels.cu): the ids come back to the host to be checked;
    // the GPU counts with integer atomics (any order, the same counts).
    .cuda([](const Tensor& ids, int64_t num_segments, Tensor& out) {
      const char* op = "core::segment_count";
      auto v = read_segment_ids(op, cuda_support::index_to_host(op, "segment_ids", ids), num_segments);
      if (!out.defined()) out = Tensor::empty({num_segments}, DType::Int64, ids.device());
      cuda_support::run_device([&] {
        kernels::segment_count_cuda(v.data(), static_cast<int64_t>(v.size()), num_segments, out.data<int64_t>());
      });
    })
#endif
    
    .samples([] { return std::vector<Values>{{from_vector({2, 0, 2, 3, 0}, {5}, DType::Int64), int64_t(5)}}; });

Tensor segment_sum(const Tensor& data, const Tensor& segment_ids, int64_t num_segments) {
  static OpHandle op("core::segment_sum");
  return op(data, segment_ids, num_segments)[0];
}
Tensor segment_mean(const Tensor& data, const Tensor& segment_ids, int64_t num_segments) {
  static OpHandle op("core::segment_mean");
  return op(data, segment_ids, num_segments)[0];
}
std::pair<Tensor, Tensor> segment_max_with_arg(const Tensor& data, const Tensor& segment_ids, int64_t num_segments) {
  static OpHandle op("core::segment_max");
  auto r = op(data, segment_ids, num_segments);
  return {r[0], r[1]};
}
std::pair<Tensor, Tensor> segment_min_with_arg(const Tensor& data, const Tensor& segment_ids, int64_t num_segments) {
  static OpHandle op("core::segment_min");
  auto r = op(data, segment_ids, num_segments);
  return {r[0], r[1]};
}
Tensor segment_max(const Tensor& data, const Tensor& segment_ids, int64_t num_segments) {
  return segment_max_with_arg(data, segment_ids, num_segments).first;
}
Tensor segment_min(const Tensor& data, const Tensor& segment_ids, int64_t num_segments) {
  return segment_min_with_arg(data, segment_ids, num_segments).first;
}
Tensor gather_add_scatter(const Tensor& x, const Tensor& gather_index, const Tensor& scatter_index,
                          int64_t num_segments, const std::optional<Tensor>& edge) {
  static OpHandle op("core::gather_add_scatter");
  return op(x, gather_index, scatter_index, num_segments, edge)[0];
}
Tensor segment_count(const Tensor& segment_ids, int64_t num_segments) {
  static OpHandle op("core::segment_count");
  return op(segment_ids, num_segments)[0];
}

}  // namespace sampan
