// sampan kernels: fused optimizer updates. One pass over a parameter and its state replaces the
// dozen elementwise ops (and their temporaries) of the same update written with tensor ops.
// Plain functions over pointers and sizes; elementwise, so the result does not depend on the
// thread count.
#pragma once

#include <cstdint>

#include "adam_element.h"
#include "strided_loop.h"  // kParallelGrain

namespace sampan::kernels {

/// One Adam step (adam_element.h) in place on param, exp_avg (m) and exp_avg_sq (v), all of n
/// contiguous elements.
template <class T>
void adam_update(int64_t n, T* param, const T* grad, T* exp_avg, T* exp_avg_sq, const AdamStep& s) {
  const AdamCoefficients<T> c = adam_coefficients<T>(s);
#pragma omp parallel for if (n > kParallelGrain) schedule(static)
  for (int64_t i = 0; i < n; ++i) adam_element(c, param[i], grad[i], exp_avg[i], exp_avg_sq[i]);
}

}  // namespace sampan::kernels
