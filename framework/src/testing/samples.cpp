// sampan: the sample-argument tensors of sampan/testing/samples.h.
#include "sampan/testing/samples.h"

#include "sampan/ops.h"

#include <random>
#include <vector>

namespace sampan::sample_args {

Tensor f64(const Shape& shape, double start, double step) {
  std::vector<double> v(static_cast<size_t>(shape_numel(shape)));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = start + step * static_cast<double>((i * 7) % 11) + 0.01 * static_cast<double>(i);
  return from_vector(v, shape);
}

Tensor c128(const Shape& shape, double start) {
  Tensor t = Tensor::empty(shape, DType::Complex128);
  for (int64_t i = 0; i < t.numel(); ++i)
    t.data<complex128>()[i] = {start + 0.31 * static_cast<double>(i), 0.4 - 0.17 * static_cast<double>(i)};
  return t;
}

Tensor uniform(const Shape& shape, double lo, double hi, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(lo, hi);
  std::vector<double> v(static_cast<size_t>(shape_numel(shape)));
  for (auto& x : v) x = u(rng);
  return from_vector(v, shape);
}

}  // namespace sampan::sample_args
