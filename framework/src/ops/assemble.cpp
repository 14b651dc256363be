// sampan: assembling tensors (core::concat, stack, pad, repeat_index) and the C++ compositions
// on top (split, chunk, tile, repeat_interleave, reflect padding).
#include <algorithm>
#include <cstring>

#include "sampan/ops.h"
#include "elementwise_support.h"
#include "index_support.h"
#include "../kernels/axis_loop.h"
#include "sample_support.h"

using namespace sampan::op_samples;  // the samples' f64, c128, IntList

namespace sampan {

namespace {

using detail::axis_of;
using detail::check_index_dtype;

// The interior of a padded tensor: x's region inside `out`.
Tensor unpad(const Tensor& g, const std::vector<int64_t>& pads) {
  Tensor r = g;
  for (int64_t d = 0; d < g.dim(); ++d) {
    int64_t before = pads[2 * d], after = pads[2 * d + 1];
    if (before || after) r = slice(r, d, before, g.shape()[d] - after, 1);
  }
  return r;
}

void check_pads(const Shape& x, const std::vector<int64_t>& pads) {
  if (pads.size() != 2 * x.size())
    SAMPAN_THROW(ValueError, "pad: pads must hold (before, after) for each of the ", x.size(),
                 " dimensions, i.e. ", 2 * x.size(), " numbers, got ", pads.size());
  for (size_t i = 0; i < pads.size(); ++i)
    SAMPAN_CHECK(pads[i] >= 0, ValueError, "pad: pad widths must be >= 0, got ", pads[i], " at position ", i);
}

Shape concat_shape(const std::vector<TensorSpec>& ts, int64_t axis, int64_t& d, DType& dtype) {
  SAMPAN_CHECK(!ts.empty(), ValueError, "concat: needs at least one tensor");
  const Shape& first = ts[0].shape;
  d = axis_of("concat", axis, static_cast<int64_t>(first.size()));
  Shape out = first;
  out[d] = 0;
  dtype = ts[0].dtype;
  for (size_t i = 0; i < ts.size(); ++i) {
    const Shape& s = ts[i].shape;
    bool ok = s.size() == first.size();
    for (size_t k = 0; ok && k < s.size(); ++k) ok = static_cast<int64_t>(k) == d || s[k] == first[k];
    SAMPAN_CHECK(ok, ValueError, "concat along axis ", axis, ": tensor ", i, " has shape ",
                 shape_str(s), " but tensor 0 has shape ", shape_str(first),
                 " (all sizes must match except along the axis)");
    out[d] += s[d];
    dtype = promote_types(dtype, ts[i].dtype);
  }
  return out;
}

int64_t stack_axis(int64_t axis, int64_t ndim) {
  if (axis < -(ndim + 1) || axis > ndim)
    SAMPAN_THROW(IndexError, "stack: axis ", axis, " is out of range for inputs of rank ", ndim,
                 " (expected ", -(ndim + 1), "..", ndim, ")");
  return axis < 0 ? axis + ndim + 1 : axis;
}
}  // namespace

namespace {

// The kernels write the inputs into views of out with copy_, which has a kernel on every device
// with tensors (the CPU's, CUDA's): one function serves both.
void concat_kernel(const std::vector<Tensor>& ts, int64_t axis, Tensor& out) {
  const int64_t d = normalize_axis(axis, out.dim());
  int64_t off = 0;
  for (const Tensor& t : ts) {
    Tensor dst(out.storage(), t.shape(), out.strides(), out.offset() + off * out.strides()[d], out.dtype());
    copy_(dst, t);
    off += t.shape()[d];
  }
}

void stack_kernel(const std::vector<Tensor>& ts, int64_t axis, Tensor& out) {
  const int64_t d = stack_axis(axis, ts[0].dim());
  Shape st = out.strides();
  st.erase(st.begin() + d);
  for (size_t i = 0; i < ts.size(); ++i) {
    Tensor dst(out.storage(), ts[i].shape(), st, out.offset() + static_cast<int64_t>(i) * out.strides()[d], out.dtype());
    copy_(dst, ts[i]);
  }
}

void pad_kernel(const Tensor& x, const std::vector<int64_t>& pads, double value, Tensor& out) {
  copy_(out, scalar_tensor(value, x.dtype(), out.device()));
  copy_(unpad(out, pads), x);
}

}  // namespace

SAMPAN_OP(core, concat)
    .doc("Joins tensors along an existing `axis`; sizes must match elsewhere; dtypes promote.")
    .args("tensors", "axis")
    .defaults({{"axis", 0}})
    .outputs("out")
    .shape([](const std::vector<TensorSpec>& ts, int64_t axis) {
      int64_t d;
      DType t;
      Shape s = concat_shape(ts, axis, d, t);
      return TensorSpec{s, t, ts[0].device};
    })
    .cpu(concat_kernel)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(concat_kernel)  // views of out and copy_: the same on every device
#endif
    .vjp([](const VjpContext& c) -> Grads {
      auto ts = c.inputs(0);
      Tensor g = c.grad_output(0);
      const int64_t d = normalize_axis(c.attr<int64_t>(1), g.dim());
      Grads r;
      int64_t off = 0;
      for (size_t i = 0; i < ts.size(); ++i) {
        const int64_t n = ts[i].shape()[d];
        r.push_back(c.needs_grad(i) ? slice(g, d, off, off + n, 1) : Tensor());
        off += n;
      }
      return r;
    })
    .samples([] { return std::vector<Values>{{std::vector<Tensor>{f64({2, 3}), f64({2, 1}, 0.9)}, int64_t(1)}}; })
    .saves_for_vjp({});

SAMPAN_OP(core, stack)
    .doc("Joins tensors of one shape along a new `axis` (in -(rank+1) .. rank); dtypes promote.")
    .args("tensors", "axis")
    .defaults({{"axis", 0}})
    .outputs("out")
    .shape([](const std::vector<TensorSpec>& ts, int64_t axis) {
      SAMPAN_CHECK(!ts.empty(), ValueError, "stack: needs at least one tensor");
      DType t = ts[0].dtype;
      for (size_t i = 0; i < ts.size(); ++i) {
        SAMPAN_CHECK(ts[i].shape == ts[0].shape, ValueError, "stack: tensor ", i, " has shape ", shape_str(ts[i].shape),
                     " but tensor 0 has shape ", shape_str(ts[0].shape));
        t = promote_types(t, ts[i].dtype);
      }
      Shape s = ts[0].shape;
      s.insert(s.begin() + stack_axis(axis, ts[0].dim()), static_cast<int64_t>(ts.size()));
      return TensorSpec{s, t, ts[0].device};
    })
    .cpu(stack_kernel)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(stack_kernel)
#endif
    .vjp([](const VjpContext& c) -> Grads {
      auto ts = c.inputs(0);
      Tensor g = c.grad_output(0);
      const int64_t d = stack_axis(c.attr<int64_t>(1), ts[0].dim());
      Grads r;
      for (size_t i = 0; i < ts.size(); ++i) r.push_back(c.needs_grad(i) ? select(g, d, static_cast<int64_t>(i)) : Tensor());
      return r;
    })
    .samples([] { return std::vector<Values>{{std::vector<Tensor>{f64({2, 3}), f64({2, 3}, 0.9)}, int64_t(-1)}}; })
    .saves_for_vjp({});

SAMPAN_OP(core, pad)
    .doc("x surrounded by `value`: pads = (before_0, after_0, before_1, after_1, ...) for every "
         "dimension, each >= 0 (constant mode; see sampan::pad for reflect/replicate/circular).")
    .args("x", "pads", "value")
    .defaults({{"value", 0.0}})
    .outputs("out")
    .shape([](const TensorSpec& x, const std::vector<int64_t>& pads, double) {
      check_pads(x.shape, pads);
      Shape s = x.shape;
      for (size_t d = 0; d < s.size(); ++d) s[d] += pads[2 * d] + pads[2 * d + 1];
      return TensorSpec{s, x.dtype, x.device};
    })
    .cpu(pad_kernel)
#if defined(SAMPAN_CUDA_KERNELS)
    .cuda(pad_kernel)
#endif
    .vjp([](const VjpContext& c) -> Grads { return {unpad(c.grad_output(0), c.attr<std::vector<int64_t>>(1))}; })
    .samples([] { return std::vector<Values>{{f64({2, 3}), IntList{1, 0, 2, 1}, 0.5}}; })
    .saves_for_vjp({});

SAMPAN_OP(core, repeat_index)
    .doc("[0]*repeats[0] + [1]*repeats[1] + ... as int64: the index behind repeat_interleave. Its "
         "length depends on the data.")
    .args("repeats")
    .outputs("out")
    .nondifferentiable()
    .shape([](const TensorSpec& repeats) {
      check_index_dtype("repeat_index", repeats.dtype);
      SAMPAN_CHECK(repeats.dim() == 1, ValueError, "repeat_index: repeats must be 1-D, got shape ", shape_str(repeats.shape));
      return TensorSpec{{-1}, DType::Int64, repeats.device};
    })
    .cpu([](const Tensor& repeats, Tensor& out) {
      Tensor r = cast(repeats, DType::Int64).contiguous();
      const int64_t* p = r.data<int64_t>();
      int64_t total = 0;
      for (int64_t i = 0; i < r.numel(); ++i) {
        SAMPAN_CHECK(p[i] >= 0, ValueError, "repeat_index: repeats must be >= 0, got ", p[i], " at position ", i);
        total += p[i];
      }
      out = Tensor::empty({total}, DType::Int64, repeats.device());
      int64_t* o = out.data<int64_t>();
      for (int64_t i = 0, k = 0; i < r.numel(); ++i)
        for (int64_t j = 0; j < p[i]; ++j) o[k++] = i;
    })
    .samples([] { return std::vector<Values>{{from_vector({2, 0, 1}, {3}, DType::Int64)}}; });

// ------------------------------------------------------------------------------------------
// C++ API
// ------------------------------------------------------------------------------------------

Tensor concat(const std::vector<Tensor>& tensors, int64_t axis) {
  static OpHandle op("core::concat");
  return op(tensors, axis)[0];
}
Tensor stack(const std::vector<Tensor>& tensors, int64_t axis) {
  static OpHandle op("core::stack");
  return op(tensors, axis)[0];
}

std::vector<Tensor> split(const Tensor& x, const std::vector<int64_t>& sizes, int64_t axis) {
  const int64_t d = axis_of("split", axis, x.dim());
  int64_t total = 0;
  for (auto s : sizes) {
    SAMPAN_CHECK(s >= 0, ValueError, "split: sizes must be >= 0, got ", s);
    total += s;
  }
  SAMPAN_CHECK(total == x.shape()[d], ValueError, "split: sizes add up to ", total, " but axis ", axis,
               " has size ", x.shape()[d]);
  std::vector<Tensor> r;
  int64_t off = 0;
  for (auto s : sizes) {
    r.push_back(slice(x, d, off, off + s, 1));
    off += s;
  }
  return r;
}
std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t axis) {
  const int64_t d = axis_of("split", axis, x.dim());
  SAMPAN_CHECK(split_size > 0, ValueError, "split: split_size must be > 0, got ", split_size);
  const int64_t n = x.shape()[d];
  std::vector<int64_t> sizes;
  for (int64_t off = 0; off < n; off += split_size) sizes.push_back(std::min(split_size, n - off));
  if (sizes.empty()) sizes.push_back(0);
  return split(x, sizes, d);
}
std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t axis) {
  SAMPAN_CHECK(chunks > 0, ValueError, "chunk: chunks must be > 0, got ", chunks);
  const int64_t n = x.size(axis);
  return split(x, std::max<int64_t>((n + chunks - 1) / chunks, 1), axis);
}

Tensor pad(const Tensor& x, const std::vector<int64_t>& pads, const std::string& mode, double value) {
  if (mode == "constant") {
    static OpHandle op("core::pad");
    return op(x, pads, value)[0];
  }
  check_pads(x.shape(), pads);
  if (mode != "reflect" && mode != "replicate" && mode != "circular")
    SAMPAN_THROW(ValueError, "pad: mode must be 'constant', 'reflect', 'replicate' or 'circular', got '", mode, "'");
  // The other modes are a gather per padded dimension, so their gradient is index_add's.
  Tensor r = x;
  for (int64_t d = 0; d < x.dim(); ++d) {
    const int64_t before = pads[2 * d], after = pads[2 * d + 1], n = x.shape()[d];
    if (!before && !after) continue;
    SAMPAN_CHECK(n != 0, ValueError, "pad: cannot ", mode, "-pad dimension ", d, " of size 0");
    Tensor idx = Tensor::empty({before + n + after}, DType::Int64);
    int64_t* p = idx.data<int64_t>();
    for (int64_t i = -before; i < n + after; ++i) {
      int64_t j;
      if (mode == "replicate") {
        j = std::min(std::max<int64_t>(i, 0), n - 1);
      } else if (mode == "circular") {
        j = ((i % n) + n) % n;
      } else {  // reflect about the edge elements without repeating them (NumPy 'reflect')
        const int64_t period = 2 * (n - 1);
        j = period == 0 ? 0 : ((i % period) + period) % period;
        if (j >= n) j = period - j;
      }
      p[i + before] = j;
    }
    r = index_select(r, d, idx);
  }
  return r;
}

Tensor tile(const Tensor& x, const std::vector<int64_t>& reps) {
  for (auto r : reps)
    SAMPAN_CHECK(r >= 0, ValueError, "tile: repetitions must be >= 0, got ", r);
  const size_t nd = std::max(reps.size(), static_cast<size_t>(x.dim()));
  std::vector<int64_t> rp(nd - reps.size(), 1);
  rp.insert(rp.end(), reps.begin(), reps.end());
  Shape xs(nd - x.dim(), 1);
  xs.insert(xs.end(), x.shape().begin(), x.shape().end());
  // [s0, s1] -> [1, s0, 1, s1] -> broadcast [r0, s0, r1, s1] -> [r0*s0, r1*s1]
  Shape inter, expanded, out;
  for (size_t d = 0; d < nd; ++d) {
    inter.insert(inter.end(), {1, xs[d]});
    expanded.insert(expanded.end(), {rp[d], xs[d]});
    out.push_back(rp[d] * xs[d]);
  }
  return reshape(broadcast_to(reshape(x, inter), expanded), out);
}

Tensor repeat_interleave(const Tensor& x, int64_t repeats, int64_t axis) {
  SAMPAN_CHECK(repeats >= 0, ValueError, "repeat_interleave: repeats must be >= 0, got ", repeats);
  const int64_t d = axis_of("repeat_interleave", axis, x.dim());
  // [.., n, ..] -> [.., n, 1, ..] -> broadcast [.., n, r, ..] -> [.., n*r, ..]
  Shape expanded = x.shape();
  expanded.insert(expanded.begin() + d + 1, repeats);
  Shape out = x.shape();
  out[d] *= repeats;
  return reshape(broadcast_to(unsqueeze(x, d + 1), expanded), out);
}
Tensor repeat_interleave(const Tensor& x, const Tensor& repeats, int64_t axis) {
  const int64_t d = axis_of("repeat_interleave", axis, x.dim());
  Tensor r = repeats.dim() == 0 ? reshape(repeats, {1}) : repeats;
  if (r.numel() == 1 && x.shape()[d] != 1) r = broadcast_to(r, {x.shape()[d]});
  if (r.dim() != 1 || r.numel() != x.shape()[d])
    SAMPAN_THROW(ValueError, "repeat_interleave: repeats of shape ", shape_str(repeats.shape()), " does not match axis ",
                 axis, " of size ", x.shape()[d]);
  static OpHandle op("core::repeat_index");
  return index_select(x, d, op(r)[0]);
}


}  // namespace sampan
