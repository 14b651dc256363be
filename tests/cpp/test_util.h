// Helpers shared by the C++ tests: reproducible random inputs and element access.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "sampan/ops.h"
#include "sampan/testing/check_op.h"

namespace sampan::test {

/// A float64 tensor of `shape` with values uniform in [lo, hi), reproducible from `seed`.
inline Tensor uniform(const Shape& s, double lo, double hi, uint64_t seed = 7) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(static_cast<size_t>(shape_numel(s)));
  for (auto& x : v) x = u(rng);
  return from_vector(v, s);
}

/// The elements in logical (row-major) order, as doubles (any layout, any real dtype).
inline std::vector<double> values(const Tensor& t) {
  Tensor c = cast(t, DType::Float64).contiguous();
  return std::vector<double>(c.data<double>(), c.data<double>() + c.numel());
}

/// check_op on `name` with `args`, failing the test with check_op's report.
inline void expect_check_op(const std::string& name, const Values& args) {
  auto r = check_op(name, args);
  EXPECT_TRUE(r.ok) << name << ": " << r.summary();
}

/// Checks the elementwise op `op` against the scalar reference `ref` on values in [lo, hi]:
/// several shapes, transposed (non-contiguous) inputs, one above the parallel grain, float64 to
/// 1e-12 and float32 to 2e-6 (relative).
template <class Op, class Ref> void expect_unary_matches(Op op, Ref ref, double lo, double hi) {
  std::vector<Tensor> inputs = {uniform({7}, lo, hi, 1), uniform({3, 4}, lo, hi, 2), uniform({2, 3, 5}, lo, hi, 3),
                                transpose(uniform({4, 3}, lo, hi, 4), 0, 1),
                                transpose(uniform({300, 200}, lo, hi, 5), 0, 1)};
  for (const Tensor& x : inputs) {
    Tensor out = op(x);
    ASSERT_EQ(out.shape(), x.shape());
    ASSERT_EQ(out.dtype(), DType::Float64);
    auto xs = values(x), os = values(out);
    for (size_t i = 0; i < xs.size(); ++i) {
      double want = ref(xs[i]);
      ASSERT_NEAR(os[i], want, 1e-12 * (1 + std::abs(want))) << "at x = " << xs[i];
    }
    Tensor out32 = op(cast(x, DType::Float32));
    ASSERT_EQ(out32.dtype(), DType::Float32);
    auto xs32 = values(cast(x, DType::Float32)), os32 = values(out32);
    for (size_t i = 0; i < xs32.size(); ++i) {
      double want = ref(xs32[i]);
      ASSERT_NEAR(os32[i], want, 2e-6 * (1 + std::abs(want))) << "float32 at x = " << xs32[i];
    }
  }
}
/// The same for a named op (a plain function, so overloaded names such as `exp` resolve).
inline void expect_unary_matches(Tensor (*op)(const Tensor&), double (*ref)(double), double lo, double hi) {
  expect_unary_matches<Tensor (*)(const Tensor&), double (*)(double)>(op, ref, lo, hi);
}

}  // namespace sampan::test
