// out[i] = convert_element<T>(f(i)): arange, linspace and eye on the GPU, one thread an element.
#include "convert_element.h"
#include "creation_kernels_cuda.h"
#include "sampan/complex_element.h"
#include "sampan/cuda_launch.cuh"
#include "sampan/dtype.h"

namespace sampan::kernels {

namespace {
template <class T, class F> __global__ void index_values_kernel(T* out, int64_t n, F f) {
  SAMPAN_GRID_STRIDE_LOOP(i, n) { out[i] = convert_element<T>(f(i)); }
}
}  // namespace

template <class T, class F> void index_values_cuda(T* out, int64_t n, F f) {
  if (n == 0) return;
  index_values_kernel<T, F><<<cuda::blocks_for(n), cuda::kThreads>>>(out, n, f);
  cuda::check(cudaGetLastError(), "index_values_cuda (launch)");
}

#define SAMPAN_INSTANTIATE_INDEX_VALUES(T)                                 \
  template void index_values_cuda<T, ArangeValue>(T*, int64_t, ArangeValue); \
  template void index_values_cuda<T, LinspaceValue>(T*, int64_t, LinspaceValue); \
  template void index_values_cuda<T, EyeValue>(T*, int64_t, EyeValue);
SAMPAN_INSTANTIATE_INDEX_VALUES(bool)
SAMPAN_INSTANTIATE_INDEX_VALUES(int32_t)
SAMPAN_INSTANTIATE_INDEX_VALUES(int64_t)
SAMPAN_INSTANTIATE_INDEX_VALUES(Half)
SAMPAN_INSTANTIATE_INDEX_VALUES(BFloat16)
SAMPAN_INSTANTIATE_INDEX_VALUES(float)
SAMPAN_INSTANTIATE_INDEX_VALUES(double)
SAMPAN_INSTANTIATE_INDEX_VALUES(ComplexElement<float>)
SAMPAN_INSTANTIATE_INDEX_VALUES(ComplexElement<double>)
#undef SAMPAN_INSTANTIATE_INDEX_VALUES

}  // namespace sampan::kernels
