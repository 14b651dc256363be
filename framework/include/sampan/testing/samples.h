// sampan: tensors for ops' sample arguments (`.sample(...)` in SAMPAN_OP): deterministic float64
// and complex128 values that check_op's finite differences handle well (no ties, no zeros, no
// values on a kink unless asked for).
#pragma once

#include <cstdint>

#include "sampan/tensor.h"

namespace sampan::sample_args {

/// float64 of `shape`: start + step * ((7 i) mod 11) + 0.01 i; distinct, and away from 0 unless
/// start is negative (f64(s, -1.0, 0.31) has both signs and no zeros).
Tensor f64(const Shape& shape, double start = 0.35, double step = 0.173);
/// complex128 of `shape`: (start + 0.31 i) + (0.4 - 0.17 i) j.
Tensor c128(const Shape& shape, double start = 0.2);
/// float64 of `shape` uniform in [lo, hi), reproducible from `seed` (std::mt19937_64).
Tensor uniform(const Shape& shape, double lo, double hi, uint64_t seed);

}  // namespace sampan::sample_args
