// sampan: NumPy .npy files (format versions 1.0, 2.0 and 3.0) as tensors, dtype kept.
//
// Read: C-order arrays of bool (|b1), int32, int64, float16, float32, float64, complex64 and
// complex128, little- or big-endian; anything else is an IOError naming the file and what was
// found (Fortran order, another dtype, a bad magic string or header, a truncated payload).
// Write: C-order little-endian, atomically (a temporary file, then rename).
#pragma once

#include <string>

#include "sampan/tensor.h"

namespace sampan {

Tensor read_npy(const std::string& path);
void write_npy(const std::string& path, const Tensor& t);

}  // namespace sampan
