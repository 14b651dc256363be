// sampan: thread count of the OpenMP kernels.
#include "sampan/threads.h"

#include <string>

#include "kernels/gemm.h"  // set_blas_num_threads
#include "sampan/error.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace sampan {

void set_num_threads(int n) {
  SAMPAN_CHECK(n >= 1, ValueError, "set_num_threads needs a positive thread count, got ", n);
#ifdef _OPENMP
  omp_set_num_threads(n);
#endif
  kernels::set_blas_num_threads(n);  // the BLAS follows the same setting
}

int get_num_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

}  // namespace sampan
