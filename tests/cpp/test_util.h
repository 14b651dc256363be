// Helpers shared by the C++ tests: reproducible random inputs and element access.
#pragma once

#include <random>
#include <vector>

#include "sampan/ops.h"

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

}  // namespace sampan::test
