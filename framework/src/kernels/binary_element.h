// Per-element bodies of core::add, sub, mul and div (and their in-place forms), shared by the CPU
// loop (ops/binary.cpp) and the CUDA kernel (elementwise_kernels.cu), so the CPU tests run the
// arithmetic a GPU runs. T is any of the ops' element types (complex ones on the CPU only).
#pragma once

#include "sampan/host_device.h"

namespace sampan::kernels {

struct AddElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T b) const { return a + b; }
};
struct SubElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T b) const { return a - b; }
};
struct MulElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T b) const { return a * b; }
};
struct DivElement {
  template <class T> SAMPAN_HOST_DEVICE T operator()(T a, T b) const { return a / b; }
};

}  // namespace sampan::kernels
