// CUDA twins of the elementwise ops (core::add, sub, mul, div and their in-place forms; neg,
// square, floor, ceil, round, conj, relu, relu_, relu_backward; exp, log, sqrt, tanh, sigmoid ...
// of math_element.h): one grid-stride kernel per arity over
// any strides and broadcasting, each thread running unary_at / binary_at (strided_index.h) with
// the per-element body the CPU loop runs (binary_element.h, unary_element.h). A dense layout
// skips the index arithmetic, so contiguous operands read and write coalesced.
#include "binary_element.h"
#include "sampan/complex_element.h"
#include "convert_element.h"
#include "elementwise_kernels_cuda.h"
#include "math_element.h"
#include "unary_element.h"
#include "sampan/cuda_launch.cuh"

namespace sampan::kernels {

namespace {

template <class F, class T>
__global__ void binary_kernel(StridedLayout<3> layout, int64_t n, T* out, const T* x, const T* y) {
  SAMPAN_GRID_STRIDE_LOOP(k, n) { binary_at(layout, k, out, x, y, F{}); }
}

template <class F, class T> __global__ void unary_kernel(StridedLayout<2> layout, int64_t n, T* out, const T* x, F f) {
  SAMPAN_GRID_STRIDE_LOOP(k, n) { unary_at(layout, k, out, x, f); }
}

template <class F, class T>
__global__ void compare_kernel(StridedLayout<3> layout, int64_t n, bool* out, const T* x, const T* y) {
  SAMPAN_GRID_STRIDE_LOOP(k, n) { binary_at(layout, k, out, x, y, F{}); }
}

template <class T>
__global__ void where_kernel(StridedLayout<4> layout, int64_t n, T* out, const bool* cond, const T* x, const T* y) {
  SAMPAN_GRID_STRIDE_LOOP(k, n) { where_at(layout, k, out, cond, x, y); }
}

template <class In, class Out>
__global__ void convert_kernel(StridedLayout<2> layout, int64_t n, Out* out, const In* x) {
  SAMPAN_GRID_STRIDE_LOOP(k, n) { convert_at(layout, k, out, x); }
}

}  // namespace

template <class In, class Out> void convert_cuda(const StridedLayout<2>& layout, int64_t n, Out* out, const In* x) {
  if (n == 0) return;
  convert_kernel<In, Out><<<cuda::blocks_for(n), cuda::kThreads>>>(layout, n, out, x);
  cuda::check(cudaGetLastError(), "convert_cuda (launch)");
}

#define SAMPAN_INSTANTIATE_CONVERT(In, Out) \
  template void convert_cuda<In, Out>(const StridedLayout<2>&, int64_t, Out*, const In*);
#define SAMPAN_INSTANTIATE_CONVERT_FROM(In)                                                                   \
  SAMPAN_INSTANTIATE_CONVERT(In, bool) SAMPAN_INSTANTIATE_CONVERT(In, int32_t) SAMPAN_INSTANTIATE_CONVERT(In, int64_t) \
  SAMPAN_INSTANTIATE_CONVERT(In, float) SAMPAN_INSTANTIATE_CONVERT(In, double)                             \
  SAMPAN_INSTANTIATE_CONVERT(In, ComplexElement<float>) SAMPAN_INSTANTIATE_CONVERT(In, ComplexElement<double>) \
  SAMPAN_INSTANTIATE_CONVERT(In, Half) SAMPAN_INSTANTIATE_CONVERT(In, BFloat16)
SAMPAN_INSTANTIATE_CONVERT_FROM(Half)
SAMPAN_INSTANTIATE_CONVERT_FROM(BFloat16)
SAMPAN_INSTANTIATE_CONVERT_FROM(bool)
SAMPAN_INSTANTIATE_CONVERT_FROM(int32_t)
SAMPAN_INSTANTIATE_CONVERT_FROM(int64_t)
SAMPAN_INSTANTIATE_CONVERT_FROM(float)
SAMPAN_INSTANTIATE_CONVERT_FROM(double)
SAMPAN_INSTANTIATE_CONVERT_FROM(ComplexElement<float>)
SAMPAN_INSTANTIATE_CONVERT_FROM(ComplexElement<double>)
#undef SAMPAN_INSTANTIATE_CONVERT
#undef SAMPAN_INSTANTIATE_CONVERT_FROM

template <class F, class T> void unary_cuda(const StridedLayout<2>& layout, int64_t n, T* out, const T* x, F f) {
  if (n == 0) return;
  unary_kernel<F, T><<<cuda::blocks_for(n), cuda::kThreads>>>(layout, n, out, x, f);
  cuda::check(cudaGetLastError(), "unary_cuda (launch)");
}

template <class F, class T>
void compare_cuda(const StridedLayout<3>& layout, int64_t n, bool* out, const T* x, const T* y) {
  if (n == 0) return;
  compare_kernel<F, T><<<cuda::blocks_for(n), cuda::kThreads>>>(layout, n, out, x, y);
  cuda::check(cudaGetLastError(), "compare_cuda (launch)");
}

template <class T>
void where_cuda(const StridedLayout<4>& layout, int64_t n, T* out, const bool* cond, const T* x, const T* y) {
  if (n == 0) return;
  where_kernel<T><<<cuda::blocks_for(n), cuda::kThreads>>>(layout, n, out, cond, x, y);
  cuda::check(cudaGetLastError(), "where_cuda (launch)");
}

#define SAMPAN_INSTANTIATE_COMPARE(F, T) \
  template void compare_cuda<F, T>(const StridedLayout<3>&, int64_t, bool*, const T*, const T*);
#define SAMPAN_INSTANTIATE_ORDERING(F)                                                                  \
  SAMPAN_INSTANTIATE_COMPARE(F, bool) SAMPAN_INSTANTIATE_COMPARE(F, int32_t) SAMPAN_INSTANTIATE_COMPARE(F, int64_t) \
  SAMPAN_INSTANTIATE_COMPARE(F, float) SAMPAN_INSTANTIATE_COMPARE(F, double)
#define SAMPAN_INSTANTIATE_EQUALITY(F) \
  SAMPAN_INSTANTIATE_ORDERING(F)       \
  SAMPAN_INSTANTIATE_COMPARE(F, ComplexElement<float>) SAMPAN_INSTANTIATE_COMPARE(F, ComplexElement<double>)
SAMPAN_INSTANTIATE_EQUALITY(EqElement)
SAMPAN_INSTANTIATE_EQUALITY(NeElement)
SAMPAN_INSTANTIATE_ORDERING(LtElement)
SAMPAN_INSTANTIATE_ORDERING(LeElement)
SAMPAN_INSTANTIATE_ORDERING(GtElement)
SAMPAN_INSTANTIATE_ORDERING(GeElement)
SAMPAN_INSTANTIATE_COMPARE(LogicalAndElement, bool)
SAMPAN_INSTANTIATE_COMPARE(LogicalOrElement, bool)
SAMPAN_INSTANTIATE_COMPARE(LogicalXorElement, bool)
#undef SAMPAN_INSTANTIATE_COMPARE
#undef SAMPAN_INSTANTIATE_ORDERING
#undef SAMPAN_INSTANTIATE_EQUALITY

#define SAMPAN_INSTANTIATE_WHERE(T) \
  template void where_cuda<T>(const StridedLayout<4>&, int64_t, T*, const bool*, const T*, const T*);
SAMPAN_INSTANTIATE_WHERE(bool)
SAMPAN_INSTANTIATE_WHERE(int32_t)
SAMPAN_INSTANTIATE_WHERE(int64_t)
SAMPAN_INSTANTIATE_WHERE(float)
SAMPAN_INSTANTIATE_WHERE(double)
SAMPAN_INSTANTIATE_WHERE(ComplexElement<float>)
SAMPAN_INSTANTIATE_WHERE(ComplexElement<double>)
SAMPAN_INSTANTIATE_WHERE(Half)
SAMPAN_INSTANTIATE_WHERE(BFloat16)
#undef SAMPAN_INSTANTIATE_WHERE

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
#define SAMPAN_INSTANTIATE_UNARY(F, T) template void unary_cuda<F, T>(const StridedLayout<2>&, int64_t, T*, const T*, F);
#define SAMPAN_INSTANTIATE_UNARY_REAL(F) \
  SAMPAN_INSTANTIATE_UNARY(F, float) SAMPAN_INSTANTIATE_UNARY(F, double) SAMPAN_INSTANTIATE_UNARY(F, int32_t) \
  SAMPAN_INSTANTIATE_UNARY(F, int64_t)
#define SAMPAN_INSTANTIATE_UNARY_COMPLEX(F) \
  SAMPAN_INSTANTIATE_UNARY(F, ComplexElement<float>) SAMPAN_INSTANTIATE_UNARY(F, ComplexElement<double>)
#define SAMPAN_INSTANTIATE_UNARY_FLOATING(F) SAMPAN_INSTANTIATE_UNARY(F, float) SAMPAN_INSTANTIATE_UNARY(F, double)
SAMPAN_INSTANTIATE_UNARY_REAL(NegElement)
SAMPAN_INSTANTIATE_UNARY_REAL(AbsElement)
SAMPAN_INSTANTIATE_UNARY_REAL(SignElement)
SAMPAN_INSTANTIATE_UNARY_REAL(SquareElement)
SAMPAN_INSTANTIATE_UNARY_REAL(FloorElement)
SAMPAN_INSTANTIATE_UNARY_REAL(CeilElement)
SAMPAN_INSTANTIATE_UNARY_REAL(RoundElement)
SAMPAN_INSTANTIATE_UNARY_REAL(ReluElement)
SAMPAN_INSTANTIATE_UNARY_COMPLEX(NegElement)
SAMPAN_INSTANTIATE_UNARY_COMPLEX(SquareElement)
SAMPAN_INSTANTIATE_UNARY_REAL(ConjElement)
SAMPAN_INSTANTIATE_UNARY_COMPLEX(ConjElement)
SAMPAN_INSTANTIATE_UNARY_FLOATING(ExpElement)
SAMPAN_INSTANTIATE_UNARY_FLOATING(LogElement)
SAMPAN_INSTANTIATE_UNARY_COMPLEX(ExpElement)
SAMPAN_INSTANTIATE_UNARY_COMPLEX(LogElement)
SAMPAN_INSTANTIATE_UNARY_FLOATING(Log1pElement)
SAMPAN_INSTANTIATE_UNARY_FLOATING(Expm1Element)
SAMPAN_INSTANTIATE_UNARY_FLOATING(SqrtElement)
SAMPAN_INSTANTIATE_UNARY_FLOATING(RsqrtElement)
SAMPAN_INSTANTIATE_UNARY_FLOATING(SinElement)
SAMPAN_INSTANTIATE_UNARY_FLOATING(CosElement)
SAMPAN_INSTANTIATE_UNARY_FLOATING(TanElement)
SAMPAN_INSTANTIATE_UNARY_FLOATING(TanhElement)
SAMPAN_INSTANTIATE_UNARY_FLOATING(ErfElement)
SAMPAN_INSTANTIATE_UNARY_FLOATING(ReciprocalElement)
SAMPAN_INSTANTIATE_UNARY_FLOATING(SigmoidElement)
SAMPAN_INSTANTIATE_UNARY_FLOATING(GeluElement)
SAMPAN_INSTANTIATE_UNARY_FLOATING(SiluElement)
SAMPAN_INSTANTIATE_UNARY(ClampElement<float>, float)
SAMPAN_INSTANTIATE_UNARY(ClampElement<double>, double)
SAMPAN_INSTANTIATE_UNARY(ClampElement<int32_t>, int32_t)
SAMPAN_INSTANTIATE_UNARY(ClampElement<int64_t>, int64_t)
SAMPAN_INSTANTIATE_UNARY(SoftplusElement<float>, float)
SAMPAN_INSTANTIATE_UNARY(SoftplusElement<double>, double)
#undef SAMPAN_INSTANTIATE_UNARY
#undef SAMPAN_INSTANTIATE_UNARY_REAL
#undef SAMPAN_INSTANTIATE_UNARY_COMPLEX
#undef SAMPAN_INSTANTIATE_UNARY_FLOATING
SAMPAN_INSTANTIATE_BINARY(ReluBackwardElement)
SAMPAN_INSTANTIATE_BINARY(AddElement)
SAMPAN_INSTANTIATE_BINARY(MaximumElement)
#define SAMPAN_INSTANTIATE_BINARY_FLOATING(F)                                                            \
  template void binary_cuda<F, float>(const StridedLayout<3>&, int64_t, float*, const float*, const float*); \
  template void binary_cuda<F, double>(const StridedLayout<3>&, int64_t, double*, const double*, const double*);
SAMPAN_INSTANTIATE_BINARY_FLOATING(Atan2Element)
SAMPAN_INSTANTIATE_BINARY(PowRealElement)
SAMPAN_INSTANTIATE_BINARY(RemainderElement)
SAMPAN_INSTANTIATE_BINARY(FloorDivideElement)
#undef SAMPAN_INSTANTIATE_BINARY_FLOATING
SAMPAN_INSTANTIATE_BINARY(MinimumElement)
SAMPAN_INSTANTIATE_BINARY(SubElement)
SAMPAN_INSTANTIATE_BINARY(MulElement)
SAMPAN_INSTANTIATE_BINARY(DivElement)
SAMPAN_INSTANTIATE_COMPLEX(AddElement)
SAMPAN_INSTANTIATE_COMPLEX(SubElement)
SAMPAN_INSTANTIATE_COMPLEX(MulElement)
SAMPAN_INSTANTIATE_COMPLEX(DivElement)
SAMPAN_INSTANTIATE_COMPLEX(PowRealElement)
#undef SAMPAN_INSTANTIATE_BINARY
#undef SAMPAN_INSTANTIATE_COMPLEX

}  // namespace sampan::kernels
