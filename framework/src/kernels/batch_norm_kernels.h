// sampan kernels: batch normalization in training over a contiguous [n, c] input, forward and
// backward, each in two or three passes over the rows instead of the ~10 elementwise ops and
// reductions (and their temporaries) of the composition. Plain functions over pointers and
// sizes; no Tensor. The arithmetic per element and per column is batch_norm_element.h's, shared
// with the CUDA twin (batch_norm_kernels.cu).
//
// The column statistics fold the rows in order into a double accumulator, as core::sum does for
// the composition mean(x), mean(centered^2), and the elements are the composition's
// (centered = x - mean rounded to T, then * invstd * w + b): the forward matches it to the bit or
// to the rounding of the last accumulation. The backward reassociates (column coefficients), so it
// differs from the composition's by float rounding only.
// Parallel over blocks of columns: each column is folded by one thread in row order, so the
// results do not depend on the thread count.
#pragma once

#include <omp.h>

#include <cstdint>
#include <vector>

#include "batch_norm_element.h"
#include "strided_loop.h"  // kParallelGrain

namespace sampan::kernels {

/// Runs body(c0, c1) over blocks of the c columns, in parallel when n * c is large.
template <class Body> void for_each_column_block(int64_t n, int64_t c, Body body) {
#pragma omp parallel if (n * c > kParallelGrain && c >= 64)
  {
    const int64_t t = omp_get_thread_num(), parts = omp_get_num_threads();
    const int64_t c0 = c * t / parts, c1 = c * (t + 1) / parts;
    if (c1 > c0) body(c0, c1);
  }
}

/// Training forward: mean[j] and biased var[j] of column j over the n rows, then
/// out = (x - mean) / sqrt(var + eps) * weight + bias.
template <class T>
void batch_norm_train_forward(const T* x, int64_t n, int64_t c, const T* weight, const T* bias, T eps, T* out,
                              T* mean, T* var) {
  for_each_column_block(n, c, [&](int64_t c0, int64_t c1) {
    const int64_t w = c1 - c0;
    std::vector<double> acc(static_cast<size_t>(w), 0.0);
    double* a = acc.data();
    for (int64_t r = 0; r < n; ++r) {
      const T* row = x + r * c + c0;
      for (int64_t j = 0; j < w; ++j) a[j] += static_cast<double>(row[j]);
    }
    for (int64_t j = 0; j < w; ++j) {
      mean[c0 + j] = batch_norm_column_mean<T>(a[j], n);
      a[j] = 0.0;
    }
    const T* m = mean + c0;
    for (int64_t r = 0; r < n; ++r) {
      const T* row = x + r * c + c0;
      for (int64_t j = 0; j < w; ++j) {
        const T d = row[j] - m[j];
        a[j] += static_cast<double>(d * d);
      }
    }
    std::vector<T> invstd(static_cast<size_t>(w));
    for (int64_t j = 0; j < w; ++j) {
      var[c0 + j] = batch_norm_column_mean<T>(a[j], n);
      invstd[j] = batch_norm_invstd(var[c0 + j], eps);
    }
    const T* s = invstd.data();
    const T* wt = weight + c0;
    const T* b = bias + c0;
    for (int64_t r = 0; r < n; ++r) {
      const T* row = x + r * c + c0;
      T* o = out + r * c + c0;
      for (int64_t j = 0; j < w; ++j) o[j] = batch_norm_normalize(row[j], m[j], s[j], wt[j], b[j]);
    }
  });
}

/// Training backward: the gradients of x, weight and bias (batch_norm_backward_column) from those
/// of the three outputs of batch_norm_train_forward: grad_out [n, c], grad_mean and grad_var [c]
/// (null: zero).
template <class T>
void batch_norm_train_backward(const T* x, const T* grad_out, int64_t n, int64_t c, const T* mean, const T* var,
                               const T* weight, T eps, const T* grad_mean, const T* grad_var, T* grad_x,
                               T* grad_weight, T* grad_bias) {
  for_each_column_block(n, c, [&](int64_t c0, int64_t c1) {
    const int64_t w = c1 - c0;
    std::vector<double> sums(static_cast<size_t>(2 * w), 0.0);
    double* s1 = sums.data();
    double* s2 = s1 + w;
    const T* m = mean + c0;
    for (int64_t r = 0; r < n; ++r) {
      const T* row = x + r * c + c0;
      const T* g = grad_out + r * c + c0;
      for (int64_t j = 0; j < w; ++j) {
        s1[j] += static_cast<double>(g[j]);
        s2[j] += static_cast<double>(g[j] * (row[j] - m[j]));
      }
    }
    // The coefficients as three arrays, so that the row loop below vectorizes.
    std::vector<T> coef(static_cast<size_t>(3 * w));
    T* kg = coef.data();
    T* kd = kg + w;
    T* k0 = kd + w;
    for (int64_t j = 0; j < w; ++j) {
      const BatchNormBackwardColumn<T> k = batch_norm_backward_column<T>(
          s1[j], s2[j], n, var[c0 + j], eps, weight[c0 + j], grad_mean ? grad_mean[c0 + j] : T(0),
          grad_var ? grad_var[c0 + j] : T(0));
      grad_weight[c0 + j] = k.grad_weight;
      grad_bias[c0 + j] = k.grad_bias;
      kg[j] = k.kg;
      kd[j] = k.kd;
      k0[j] = k.k0;
    }
    for (int64_t r = 0; r < n; ++r) {
      const T* row = x + r * c + c0;
      const T* g = grad_out + r * c + c0;
      T* o = grad_x + r * c + c0;
      for (int64_t j = 0; j < w; ++j) o[j] = batch_norm_backward_element(g[j], row[j], m[j], kg[j], kd[j], k0[j]);
    }
  });
}

}  // namespace sampan::kernels
