// sampan kernels: float32 <-> bfloat16 over contiguous arrays, the casts autocast makes around
// every low-precision op. Each element goes through BFloat16's own conversion (sampan/dtype.h:
// nearest even, NaN kept quiet), compiled for AVX-512, AVX2 and baseline x86-64 (the build's
// default target leaves this loop scalar: half the speed).
#pragma once

#include <cstdint>

#include "sampan/dtype.h"

namespace sampan::kernels {

void float_to_bfloat16(const float* src, BFloat16* dst, int64_t n);
void bfloat16_to_float(const BFloat16* src, float* dst, int64_t n);

}  // namespace sampan::kernels
