// CUDA twin of the elementwise binary ops (core::add, sub, mul, div and their in-place forms):
// one grid-stride kernel over any strides and broadcasting, each thread running binary_at
// (strided_index.h) with the per-element body the CPU loop runs (binary_element.h). A dense
// layout skips the index arithmetic, so contiguous operands read and write coalesced.
#include "binary_element.h"
#include "complex_element.h"
#include "elementwise_kernels_cuda.h"
#include "sampan/cuda_launch.cuh"

namespace sampan::kernels {

namespace {

template <class F, class T>
__global__ void binary_kernel(StridedLayout<3> layout, int64_t n, T* out, const T* x, const T* y) {
  SAMPAN_GRID_STRIDE_LOOP(k, n) { binary_at(layout, k, out, x, y, F{}); }
}

}  // namespace

template <class F, class T>
void binary_cuda(const StridedLayout<3>& layout, int64_t n, T* out, const T* x, const T* y) {
  if (n == 0) return;
  binary_kernel<F, T><<<cuda::blocks_for(n), cuda::kThreads>>>(layout, n, out, x, y);
  cuda::check(cudaGetLastError(), "binary_cuda (launch)");
}

#define SAMPAN_INSTANTIATE_BINARY(F)                                                                    \
  template void binary_cuda<F, float>(const StridedLayout<3>&, int64_t, float*, const float*, const float*); \
  template void binary_cuda<F, double>(const StridedLayout<3>&, int64_t, double*, const double*, const double*); \
  template void binary_cuda<F, int32_t>(const StridedLayout<3>&, int64_t, int32_t*, const int32_t*, const int32_t*); \
  template void binary_cuda<F, int64_t>(const StridedLayout<3>&, int64_t, int64_t*, const int64_t*, const int64_t*);
#define SAMPAN_INSTANTIATE_COMPLEX(F)                                                                  \
  template void binary_cuda<F, ComplexElement<float>>(const StridedLayout<3>&, int64_t, ComplexElement<float>*, \
                                                       const ComplexElement<float>*, const ComplexElement<float>*); \
  template void binary_cuda<F, ComplexElement<double>>(const StridedLayout<3>&, int64_t, ComplexElement<double>*, \
                                                        const ComplexElement<double>*, const ComplexElement<double>*);
SAMPAN_INSTANTIATE_BINARY(AddElement)
SAMPAN_INSTANTIATE_BINARY(SubElement)
SAMPAN_INSTANTIATE_BINARY(MulElement)
SAMPAN_INSTANTIATE_BINARY(DivElement)
SAMPAN_INSTANTIATE_COMPLEX(AddElement)
SAMPAN_INSTANTIATE_COMPLEX(SubElement)
SAMPAN_INSTANTIATE_COMPLEX(MulElement)
#undef SAMPAN_INSTANTIATE_BINARY
#undef SAMPAN_INSTANTIATE_COMPLEX

}  // namespace sampan::kernels
