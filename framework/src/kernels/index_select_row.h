// index_select's per-row body, shared by the CPU loop (index_kernels.h) and the CUDA twin
// (index_kernels.cu): which row of x [outer, n, inner] output row r of [outer, m, inner] copies.
#pragma once

#include <cstdint>

#include "sampan/host_device.h"

namespace sampan::kernels {

/// Row of x (as [outer * n] rows) that output row r (of [outer * m] rows) copies: x[o, index[j]].
SAMPAN_HOST_DEVICE inline int64_t index_select_source_row(int64_t r, int64_t n, int64_t m, const int64_t* index) {
  const int64_t o = r / m, j = r % m;
  return o * n + index[j];
}

}  // namespace sampan::kernels
