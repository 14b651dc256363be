// CUDA twin of the index-made creation ops (creation_element.h), defined in creation_kernels.cu,
// compiled only where nvcc exists (SAMPAN_CUDA_KERNELS): out[i] = the value of element i
// converted as the CPU converts it (convert_element.h). Device pointer; asynchronous on the
// default stream; errors leave as std::runtime_error.
#pragma once

#include <cstdint>

#include "creation_element.h"

namespace sampan::kernels {

/// T: bool, int32_t, int64_t, Half, BFloat16, float, double, ComplexElement<float> / <double>;
/// F: ArangeValue, LinspaceValue, EyeValue.
template <class T, class F> void index_values_cuda(T* out, int64_t n, F f);

}  // namespace sampan::kernels
