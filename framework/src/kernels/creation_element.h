// The value of element i of the creation ops made from their index alone (core::arange, linspace,
// eye), as a double converted to the output's element type; host and device, so the CPU loop
// (ops/creation.cpp) and the CUDA kernel (creation_kernels.cu) compute the same bits.
#pragma once

#include <cstdint>

#include "sampan/host_device.h"

namespace sampan::kernels {

/// arange: start + i step.
struct ArangeValue {
  double start, step;
  SAMPAN_HOST_DEVICE double operator()(int64_t i) const { return start + static_cast<double>(i) * step; }
};

/// linspace: `steps` values from start to end; the second half counts back from `end`, so both
/// ends are exact and the spacing is symmetric (as NumPy and PyTorch do).
struct LinspaceValue {
  double start, end;
  int64_t steps;
  SAMPAN_HOST_DEVICE double operator()(int64_t i) const {
    const double step = steps > 1 ? (end - start) / static_cast<double>(steps - 1) : 0.0;
    return (steps == 1 || i < steps / 2) ? start + step * static_cast<double>(i)
                                         : end - step * static_cast<double>(steps - 1 - i);
  }
};

/// eye: 1 on the main diagonal of a row-major matrix with `cols` columns, else 0.
struct EyeValue {
  int64_t cols;
  SAMPAN_HOST_DEVICE double operator()(int64_t i) const { return i / cols == i % cols ? 1.0 : 0.0; }
};

}  // namespace sampan::kernels
