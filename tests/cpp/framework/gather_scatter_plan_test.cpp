// The CUDA twins of gather, scatter_add and index_copy (framework/src/kernels/index_kernels.cu)
// cannot run here (no GPU), but everything they compute is host+device code in
// gather_scatter_element.h: the per-element bodies and, for the scatters, the host plan that
// groups the index elements by the output element they land on. These tests run that code in the
// GPU kernels' shape (one call per output element or byte, in any order: here, reversed) and
// require the same bits as the CPU ops. A wrong plan (wrong target, unstable order) or a wrong
// last-duplicate rule would show here before it shows on a GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "sampan/ops.h"

#include "../../../framework/src/kernels/gather_scatter_element.h"

using namespace sampan;

namespace {

// Values whose float32 sums depend on the order they are added in (magnitudes spread over 1e4).
Tensor spread_values(const Shape& shape, DType dtype, double phase) {
  std::vector<double> v(static_cast<size_t>(shape_numel(shape)));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(1.7 * static_cast<double>(i) + phase) * std::pow(10.0, static_cast<double>(i % 5) - 1.0);
  return from_vector(v, shape, dtype);
}

// Element offsets of every multi-index over shape[lo:hi] (row-major) under `strides`: the
// off_a / off_b of a gather or scatter along axis d (lo, hi = 0, d and d + 1, rank).
std::vector<int64_t> offsets_over(const Shape& shape, const Shape& strides, size_t lo, size_t hi) {
  std::vector<int64_t> off{0};
  for (size_t d = lo; d < hi; ++d) {
    std::vector<int64_t> next;
    for (int64_t base : off)
      for (int64_t i = 0; i < shape[d]; ++i) next.push_back(base + i * strides[d]);
    off.swap(next);
  }
  return off;
}

std::vector<int64_t> as_int64(const Tensor& t) {
  Tensor c = contiguous(cast(t, DType::Int64));
  return std::vector<int64_t>(c.data<int64_t>(), c.data<int64_t>() + c.numel());
}

bool same_bytes(const Tensor& a, const void* b) { return std::memcmp(contiguous(a).raw_data(), b, a.nbytes()) == 0; }

}  // namespace

// scatter_add along each axis of a 3-D float32 tensor, with many duplicates per output element.
// The GPU order (scatter_add_plan + scatter_add_element) must reproduce the CPU's sums bit for
// bit; the same plan walked backwards must not (so the check is sensitive to the order).
TEST(GatherScatterPlan, ScatterAddPlanFoldsInTheCpuOrder) {
  const Shape xs{3, 4, 5};
  for (size_t d = 0; d < xs.size(); ++d) {
    Shape is = xs;
    is[d] = 12;  // 12 contributions over xs[d] slots: duplicates everywhere
    std::vector<double> iv(static_cast<size_t>(shape_numel(is)));
    for (size_t i = 0; i < iv.size(); ++i) iv[i] = static_cast<double>((i * 7 + i / 3) % static_cast<size_t>(xs[d]));
    Tensor index = from_vector(iv, is, DType::Int64);
    Tensor x = spread_values(xs, DType::Float32, 0.3), src = spread_values(is, DType::Float32, 1.1);
    Tensor cpu = scatter_add(x, static_cast<int64_t>(d), index, src);

    const Shape strides = contiguous(x).strides();
    auto off_a = offsets_over(is, strides, 0, d), off_b = offsets_over(is, strides, d + 1, is.size());
    auto idx = as_int64(index);
    const int64_t numel = x.numel();
    auto plan = kernels::scatter_add_plan(static_cast<int64_t>(off_a.size()), is[d], static_cast<int64_t>(off_b.size()),
                                          off_a.data(), off_b.data(), idx.data(), strides[d], numel);
    ASSERT_EQ(plan.offsets.size(), static_cast<size_t>(numel + 1));
    ASSERT_EQ(plan.order.size(), static_cast<size_t>(shape_numel(is)));
    Tensor xc = contiguous(x), sc = contiguous(src);
    std::vector<float> gpu(xc.data<float>(), xc.data<float>() + numel), reversed = gpu;
    for (int64_t t = numel; t-- > 0;)  // threads run in any order
      gpu[t] = kernels::scatter_add_element(gpu[t], sc.data<float>(), plan.offsets.data(), plan.order.data(), t);
    EXPECT_TRUE(same_bytes(cpu, gpu.data())) << "axis " << d;

    auto backwards = plan;
    for (int64_t t = 0; t < numel; ++t)
      std::reverse(backwards.order.begin() + plan.offsets[t], backwards.order.begin() + plan.offsets[t + 1]);
    for (int64_t t = 0; t < numel; ++t)
      reversed[t] = kernels::scatter_add_element(reversed[t], sc.data<float>(), backwards.offsets.data(), backwards.order.data(), t);
    EXPECT_FALSE(same_bytes(cpu, reversed.data())) << "axis " << d << ": the test cannot tell the summation orders apart";
  }
}

// gather with an index smaller than x off the axis (allowed): the offsets come from x's strides
// and the index's shape. Each output byte read through axis_element_target, as the GPU does.
TEST(GatherScatterPlan, GatherTargetsMatchTheCpuGather) {
  Tensor x = spread_values({4, 6, 3}, DType::Float64, 0.7);
  for (int64_t d = 0; d < 3; ++d) {
    Shape is{3, 5, 2};
    is[d] = 7;
    std::vector<double> iv(static_cast<size_t>(shape_numel(is)));
    for (size_t i = 0; i < iv.size(); ++i) iv[i] = static_cast<double>((i * 5 + 1) % static_cast<size_t>(x.shape()[d]));
    Tensor index = from_vector(iv, is, DType::Int64);
    Tensor cpu = gather(x, d, index);

    const Shape strides = x.strides();
    auto off_a = offsets_over(is, strides, 0, static_cast<size_t>(d)), off_b = offsets_over(is, strides, d + 1, is.size());
    auto idx = as_int64(index);
    const int64_t b = static_cast<int64_t>(off_b.size()), itemsize = static_cast<int64_t>(x.itemsize());
    const auto* xb = static_cast<const unsigned char*>(x.raw_data());
    std::vector<unsigned char> gpu(static_cast<size_t>(cpu.nbytes()));
    for (int64_t q = static_cast<int64_t>(gpu.size()); q-- > 0;)
      gpu[q] = xb[kernels::axis_element_target(q / itemsize, is[d], b, off_a.data(), off_b.data(), idx.data(), strides[d]) * itemsize +
                  q % itemsize];
    EXPECT_TRUE(same_bytes(cpu, gpu.data())) << "axis " << d;
  }
}

// index_copy with duplicate indices: the GPU byte body (index_copy_byte over rows_by_bucket of
// the index) must keep the last duplicate, as the CPU loop does; untouched rows keep x.
TEST(GatherScatterPlan, IndexCopyBytesKeepTheLastDuplicate) {
  Tensor x = spread_values({2, 5, 3}, DType::Float64, 0.1), src = spread_values({2, 4, 3}, DType::Float64, 2.0);
  Tensor index = from_vector({3, 0, 3, 1}, {4}, DType::Int64);  // row 3 written twice, rows 2 and 4 not at all
  Tensor cpu = index_copy(x, 1, index, src);
  // The rule itself, from the definition: slot 3 holds src's 3rd row (j = 2), slot 2 x's.
  EXPECT_EQ(cpu.data<double>()[3 * 3 + 1], src.data<double>()[2 * 3 + 1]);
  EXPECT_EQ(cpu.data<double>()[2 * 3 + 1], x.data<double>()[2 * 3 + 1]);

  auto idx = as_int64(index);
  auto plan = kernels::rows_by_bucket(idx.data(), 4, 5);
  const int64_t row_bytes = 3 * 8;
  std::vector<unsigned char> gpu(static_cast<size_t>(cpu.nbytes()));
  for (int64_t q = static_cast<int64_t>(gpu.size()); q-- > 0;)
    gpu[q] = kernels::index_copy_byte(static_cast<const unsigned char*>(x.raw_data()),
                                      static_cast<const unsigned char*>(src.raw_data()), 5, 4, row_bytes, plan.offsets.data(),
                                      plan.order.data(), q);
  EXPECT_TRUE(same_bytes(cpu, gpu.data()));
}
