// sampan: the one setting for the number of threads kernels use (OpenMP).
#pragma once

namespace sampan {

/// Sets the number of threads parallel kernels use from now on (at least 1): OpenMP's, and the
/// BLAS's own pool where it keeps one (OpenBLAS's pthread build), so matmul follows it too.
void set_num_threads(int n);
/// The number of threads parallel kernels use (1 in a build without OpenMP).
int get_num_threads();

}  // namespace sampan
