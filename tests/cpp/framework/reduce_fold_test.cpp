// The folds of core::sum's and core::amax / amin's CUDA twins (kernels/reduce_fold.h), run on the
// CPU: every output of sliced, permuted, broadcast and multi-axis reductions goes through the fold
// with the layout the op layer builds, and must have the CPU op's bits (the same order, the same
// accumulator, NaN kept). A GPU runs the same function per thread. The large full sum's
// partition is checked too.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "sampan/ops.h"
#include "sampan/threads.h"
#include "../../../framework/src/kernels/reduce_fold.h"
#include "../../../framework/src/kernels/strided_loop.h"
#include "../../../framework/src/ops/device_elements.h"

#include "../test_util.h"

using namespace sampan;
using sampan::test::uniform;

namespace {

template <class T> struct fold_accum { using type = T; };
template <> struct fold_accum<float> { using type = double; };
template <> struct fold_accum<kernels::ComplexElement<float>> { using type = kernels::ComplexElement<double>; };
template <> struct fold_accum<Half> { using type = float; };
template <> struct fold_accum<BFloat16> { using type = float; };

kernels::ReduceLayout layout_of(const Tensor& x, const std::vector<int64_t>& axes) {
  std::vector<char> mask(x.dim(), axes.empty());
  for (auto a : axes) mask[a < 0 ? a + x.dim() : a] = 1;
  bool m[kernels::kMaxStridedDims] = {};
  for (int64_t d = 0; d < x.dim(); ++d) m[d] = mask[d];
  return kernels::reduce_layout(x.dim(), x.shape().data(), x.strides().data(), m);
}

// The sum as the CUDA threads compute it: sum_fold per output, in x's dtype's device element.
Tensor through_sum_fold(const Tensor& x, const std::vector<int64_t>& axes) {
  Tensor want = sum(x, axes);
  Tensor out = Tensor::empty(want.shape(), want.dtype());
  const auto l = layout_of(x, axes);
  detail::visit_storage_element(x.dtype(), "test", [&](auto tag) {
    using T = typename decltype(tag)::type;
    using Acc = typename fold_accum<T>::type;
    const T* px = static_cast<const T*>(x.raw_data());
    T* po = static_cast<T*>(out.raw_data());
    for (int64_t o = 0; o < l.nout; ++o) po[o] = kernels::narrow<T>(kernels::sum_fold<Acc>(l, px, o, 0, l.nred, Acc{}));
  });
  return out;
}

void expect_sum_bits(const char* what, const Tensor& x, const std::vector<int64_t>& axes) {
  Tensor want = sum(x, axes), got = through_sum_fold(x, axes);
  ASSERT_EQ(got.shape(), want.shape()) << what;
  EXPECT_EQ(std::memcmp(got.raw_data(), want.contiguous().raw_data(), want.nbytes()), 0) << what;
}

// Values of many magnitudes, so that another order of the sums changes the last bits.
Tensor spread(const Shape& shape, uint64_t seed) {
  return mul(uniform(shape, -1, 1, seed), exp(uniform(shape, -6, 6, seed + 1)));
}

}  // namespace

TEST(ReduceFold, EveryOutputHasTheCpuSumsBits) {
  const Tensor a = spread({5, 7, 6}, 1);
  expect_sum_bits("trailing axis", a, {2});
  expect_sum_bits("leading axis (column sums)", a, {0});
  expect_sum_bits("middle axis", a, {1});
  expect_sum_bits("two axes", a, {0, 2});
  expect_sum_bits("every axis", a, {});
  expect_sum_bits("permuted", permute(a, {2, 0, 1}), {1, 2});
  expect_sum_bits("sliced", slice(a, 1, 1, 6, 2), {1});
  expect_sum_bits("broadcast (stride 0)", broadcast_to(spread({1, 6}, 3), {9, 6}), {0});
  expect_sum_bits("rank 6", spread({2, 3, 2, 3, 2, 2}, 5), {1, 3, 4});
  expect_sum_bits("float32 in float64", spread({40, 33}, 7).to(DType::Float32), {1});
  expect_sum_bits("float32, full", spread({300}, 9).to(DType::Float32), {});
  expect_sum_bits("float16 in float32", spread({40, 33}, 27).to(DType::Float16), {0});
  expect_sum_bits("bfloat16 in float32, full", spread({300}, 29).to(DType::BFloat16), {});
  expect_sum_bits("complex128", complex(spread({4, 9}, 11), spread({4, 9}, 13)), {1});
  expect_sum_bits("complex64", complex(spread({4, 9}, 15), spread({4, 9}, 17)).to(DType::Complex64), {0});
  expect_sum_bits("int64", floor(mul(uniform({6, 5}, -1, 1, 19), scalar_tensor(1e12))).to(DType::Int64), {0});
  expect_sum_bits("0-d", spread({}, 21), {});
  expect_sum_bits("an empty reduced axis (sums are 0)", spread({3, 0}, 23), {1});
}

// A full sum above the CPU's serial limit: kSumParts contiguous parts that cover every element
// once, in order; one part is the CPU's serial fold (its bits on one thread).
TEST(ReduceFold, TheLargeFullSumsPartsCoverTheInputInOrder) {
  const Tensor x = spread({kernels::kParallelGrain + 1001}, 25);
  const auto l = layout_of(x, {});
  const double* px = static_cast<const double*>(x.raw_data());
  int64_t covered = 0;
  for (int64_t p = 0; p < kernels::kSumParts; ++p) {
    const int64_t r0 = l.nred * p / kernels::kSumParts, r1 = l.nred * (p + 1) / kernels::kSumParts;
    ASSERT_EQ(r0, covered);
    covered = r1;
    double serial = 0.0;
    for (int64_t r = r0; r < r1; ++r) serial += px[r];
    ASSERT_EQ(kernels::sum_part<double>(l, px, p, kernels::kSumParts), serial) << "part " << p;
  }
  EXPECT_EQ(covered, l.nred);
  const int threads = get_num_threads();
  set_num_threads(1);
  const double cpu = sum(x).item();
  set_num_threads(threads);
  EXPECT_EQ(kernels::sum_part<double>(l, px, 0, 1), cpu);
}

// amax / amin: the extreme fold from the CPU's initial value, NaN propagating as on the CPU.
TEST(ReduceFold, ExtremesHaveTheCpuBitsNanIncluded) {
  Tensor x = spread({5, 7, 6}, 31);
  Tensor with_nan = x.clone();
  with_nan.data<double>()[17] = std::nan("");
  for (const Tensor& t : {x, with_nan, permute(x, {2, 0, 1}), x.to(DType::Int64)}) {
    for (const std::vector<int64_t>& axes : std::vector<std::vector<int64_t>>{{}, {0}, {2}, {0, 1}}) {
      for (bool max : {true, false}) {
        Tensor want = max ? amax(t, axes) : amin(t, axes);
        Tensor got = Tensor::empty(want.shape(), want.dtype());
        const auto l = layout_of(t, axes);
        detail::visit_device_element(t.dtype(), "test", [&](auto tag) {
          using T = typename decltype(tag)::type;
          if constexpr (std::is_same_v<T, double> || std::is_same_v<T, int64_t>) {
            const T init = max ? (std::is_floating_point_v<T> ? -INFINITY : std::numeric_limits<T>::lowest())
                               : (std::is_floating_point_v<T> ? INFINITY : std::numeric_limits<T>::max());
            for (int64_t o = 0; o < l.nout; ++o)
              got.data<T>()[o] = max ? kernels::fold(l, static_cast<const T*>(t.raw_data()), o, 0, l.nred, init,
                                                     kernels::ExtremeFoldStep<true>{})
                                     : kernels::fold(l, static_cast<const T*>(t.raw_data()), o, 0, l.nred, init,
                                                     kernels::ExtremeFoldStep<false>{});
          }
        });
        EXPECT_EQ(std::memcmp(got.raw_data(), want.contiguous().raw_data(), want.nbytes()), 0)
            << (max ? "amax" : "amin") << " over " << axes.size() << " axes, dtype " << dtype_name(t.dtype());
      }
    }
  }
}

namespace {

// The float64 fold of Step over x's outputs, as fold_to_double_cuda's threads compute it.
template <class Step> Tensor through_double_fold(const Tensor& x, const std::vector<int64_t>& axes, const Shape& shape) {
  Tensor acc = Tensor::empty(shape, DType::Float64);
  const auto l = layout_of(x, axes);
  detail::visit_device_element(x.dtype(), "test", [&](auto tag) {
    using T = typename decltype(tag)::type;
    constexpr bool complex_ok = !std::is_same_v<Step, kernels::AbsFoldStep>;  // |z| is not folded on a GPU
    if constexpr (std::is_floating_point_v<T> || (complex_ok && !std::is_arithmetic_v<T>)) {
      for (int64_t o = 0; o < l.nout; ++o)
        acc.data<double>()[o] = kernels::fold(l, static_cast<const T*>(x.raw_data()), o, 0, l.nred, 0.0, Step{});
    }
  });
  return acc;
}

void expect_bits(const char* what, const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.shape(), want.shape()) << what;
  ASSERT_EQ(got.dtype(), want.dtype()) << what;
  EXPECT_EQ(std::memcmp(got.contiguous().raw_data(), want.contiguous().raw_data(), want.nbytes()), 0) << what;
}

}  // namespace

// var, std and the norms on the GPU: the fold of |x|^2 (or |x|) in float64, then the division,
// square root and rounding as ops. On the CPU that recipe must give core::var's, std's and norm's
// bits for strided, float32 and complex inputs.
TEST(ReduceFold, VarStdAndNormFoldsHaveTheCpuBits) {
  const Tensor a = spread({5, 7, 6}, 41);
  const std::vector<Tensor> inputs = {a, permute(a, {2, 0, 1}), slice(a, 1, 1, 6, 2), a.to(DType::Float32),
                                      complex(spread({4, 9}, 43), spread({4, 9}, 45)).to(DType::Complex64)};
  for (const Tensor& x : inputs) {
    for (const std::vector<int64_t>& axes : std::vector<std::vector<int64_t>>{{}, {0}, {1}, {0, 1}}) {
      for (double ddof : {0.0, 1.0}) {
        const Tensor want_var = var(x, axes, ddof), want_std = sampan::std(x, axes, ddof);
        const Tensor xf = x.to(is_complex(x.dtype()) || x.dtype() == DType::Float32 ? x.dtype() : DType::Float64);
        const Tensor centered = sub(xf, mean(xf, axes, true));
        const double dof = static_cast<double>(x.numel() / std::max<int64_t>(want_var.numel(), 1)) - ddof;
        Tensor r = through_double_fold<kernels::SquaredModulusFoldStep>(centered, axes, want_var.shape());
        r = div(r, scalar_tensor(dof, DType::Float64));
        expect_bits("var", r.to(want_var.dtype()), want_var);
        expect_bits("std", sqrt(r).to(want_std.dtype()), want_std);
      }
      const Tensor want2 = norm(x, 2, axes);
      expect_bits("2-norm", sqrt(through_double_fold<kernels::SquaredModulusFoldStep>(x, axes, want2.shape()))
                                .to(want2.dtype()), want2);
      if (!is_complex(x.dtype())) {
        const Tensor want1 = norm(x, 1, axes);
        expect_bits("1-norm", through_double_fold<kernels::AbsFoldStep>(x, axes, want1.shape()).to(want1.dtype()),
                    want1);
      }
    }
  }
}

// core::prod on the GPU: the product fold from 1 in the CPU's accumulator, rounded once.
TEST(ReduceFold, ProductsHaveTheCpuBits) {
  const Tensor a = add(uniform({5, 7, 6}, -1.2, 1.2, 51), scalar_tensor(0.1));
  const std::vector<Tensor> inputs = {a, permute(a, {2, 0, 1}), a.to(DType::Float32),
                                      complex(uniform({4, 9}, -1, 1, 53), uniform({4, 9}, -1, 1, 55)),
                                      floor(mul(uniform({6, 5}, -1, 1, 57), scalar_tensor(4.0))).to(DType::Int64)};
  for (const Tensor& x : inputs) {
    for (const std::vector<int64_t>& axes : std::vector<std::vector<int64_t>>{{}, {0}, {1}, {0, 1}}) {
      const Tensor want = prod(x, axes);
      Tensor got = Tensor::empty(want.shape(), want.dtype());
      const auto l = layout_of(x, axes);
      detail::visit_device_element(x.dtype(), "test", [&](auto tag) {
        using T = typename decltype(tag)::type;
        using Acc = typename fold_accum<T>::type;
        if constexpr (!std::is_same_v<T, bool> && !std::is_same_v<T, int32_t>) {
          Acc one{};
          if constexpr (std::is_arithmetic_v<Acc>) one = Acc(1);
          else one = Acc{1, 0};
          for (int64_t o = 0; o < l.nout; ++o)
            static_cast<T*>(got.raw_data())[o] = kernels::narrow<T>(
                kernels::fold(l, static_cast<const T*>(x.raw_data()), o, 0, l.nred, one, kernels::ProdFoldStep{}));
        }
      });
      expect_bits("prod", got, want);
    }
  }
}
