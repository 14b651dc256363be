// A new op in a namespace of its own, with a CPU and a CUDA kernel, in one file: the Morse pair
// energy V(r) = D (1 - exp(-a (r - r0)))^2, elementwise over distances r. This file is the whole
// op; `sampan_add_op_library(sampan_morse SOURCES morse_op.cu)` compiles it with nvcc where CUDA
// is enabled (CPU and CUDA kernels) and as C++ elsewhere (CPU kernel only). Its test is
// tests/cpp/custom_ops/morse_example_test.cpp; docs/writing-an-op.md walks through it.
#include "sampan/host_device.h"  // SAMPAN_HOST_DEVICE: one per-element body for both kernels
#include "sampan/op.h"
#include "sampan/ops.h"
#include "sampan/testing/samples.h"
#if defined(__CUDACC__)
#include "sampan/cuda_launch.cuh"
#endif

#include <cmath>

using namespace sampan;

namespace {

// The per-element body: the CPU loop and the CUDA kernel both call it, so the CPU tests run the
// arithmetic the GPU runs.
template <class T> SAMPAN_HOST_DEVICE T morse(T r, T depth, T width, T r0) {
  const T s = T(1) - std::exp(-width * (r - r0));
  return depth * s * s;
}

template <class T> void morse_cpu_loop(const T* r, T* v, int64_t n, T depth, T width, T r0) {
  for (int64_t k = 0; k < n; ++k) v[k] = morse(r[k], depth, width, r0);
}

void morse_cpu(const Tensor& r, double depth, double width, double r0, Tensor& v) {
  Tensor rc = r.contiguous();
  if (r.dtype() == DType::Float32)
    morse_cpu_loop<float>(rc.data<float>(), v.data<float>(), v.numel(), depth, width, r0);
  else
    morse_cpu_loop<double>(rc.data<double>(), v.data<double>(), v.numel(), depth, width, r0);
}

#if defined(__CUDACC__)
template <class T> __global__ void morse_kernel(const T* r, T* v, int64_t n, T depth, T width, T r0) {
  SAMPAN_GRID_STRIDE_LOOP(k, n) v[k] = morse(r[k], depth, width, r0);
}

void morse_cuda(const Tensor& r, double depth, double width, double r0, Tensor& v) {
  namespace cu = sampan::kernels::cuda;
  Tensor rc = r.contiguous();
  const int64_t n = v.numel();
  if (n == 0) return;
  if (r.dtype() == DType::Float32)
    morse_kernel<float><<<cu::blocks_for(n), cu::kThreads>>>(rc.data<float>(), v.data<float>(), n, depth, width, r0);
  else
    morse_kernel<double><<<cu::blocks_for(n), cu::kThreads>>>(rc.data<double>(), v.data<double>(), n, depth, width, r0);
  cu::check(cudaGetLastError(), "physics::morse");
}
#endif

}  // namespace

SAMPAN_OP(physics, morse)
    .doc("Morse pair energy D (1 - exp(-a (r - r0)))^2, elementwise over distances r.")
    .args("r", "depth", "width", "r0")
    .defaults({{"depth", 1.0}, {"width", 1.0}, {"r0", 1.0}})
    .outputs("energy")
    .dtypes({DType::Float32, DType::Float64})
    .shape([](const TensorSpec& r, double, double, double) {
      if (r.dtype != DType::Float32 && r.dtype != DType::Float64)
        SAMPAN_THROW(TypeError, "physics::morse: 'r' must be float32 or float64, got ", dtype_name(r.dtype));
      return r;
    })
    .cpu(morse_cpu)
#if defined(__CUDACC__)
    .cuda(morse_cuda)
#endif
    // dV/dr = 2 D a s (1 - s) with s = 1 - exp(-a (r - r0)); written with ops, so it is
    // differentiable again (forces, and force training, get second derivatives).
    .vjp([](const VjpContext& c) -> Grads {
      const double depth = c.attr<double>(1), width = c.attr<double>(2), r0 = c.attr<double>(3);
      Tensor e = exp((c.input(0) - r0) * -width);
      return {c.grad_output(0) * (e - e * e) * (2 * depth * width)};
    })
    // What the registry audit and check_op(op) run: distances on both sides of r0.
    .sample([] { return Values{sample_args::f64({2, 3}, 0.6, 0.21), 1.3, 1.7, 1.1}; })
    .sample([] { return Values{sample_args::f64({4}, 0.8, 0.3)}; });  // the defaults
