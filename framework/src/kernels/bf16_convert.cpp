// sampan kernels: float32 <-> bfloat16 conversion (see bf16_convert.h).
#include "bf16_convert.h"

#include <algorithm>

namespace sampan::kernels {

namespace {

constexpr int64_t kChunk = int64_t{1} << 16;  // elements per OpenMP task: 256 KiB of float32

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SAMPAN_CONVERT_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define SAMPAN_CONVERT_CLONES
#endif

SAMPAN_CONVERT_CLONES void narrow_range(const float* src, BFloat16* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = BFloat16(src[i]);
}

SAMPAN_CONVERT_CLONES void widen_range(const BFloat16* src, float* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = static_cast<float>(src[i]);
}

// Chunks in parallel, each through the clone the CPU supports (an OpenMP region outlined from
// a cloned function would not inherit its target).
template <class F> void chunked(int64_t n, F f) {
  const int64_t chunks = (n + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) if (chunks > 4)
  for (int64_t c = 0; c < chunks; ++c) f(c * kChunk, std::min(kChunk, n - c * kChunk));
}

}  // namespace

void float_to_bfloat16(const float* src, BFloat16* dst, int64_t n) {
  chunked(n, [&](int64_t begin, int64_t count) { narrow_range(src + begin, dst + begin, count); });
}

void bfloat16_to_float(const BFloat16* src, float* dst, int64_t n) {
  chunked(n, [&](int64_t begin, int64_t count) { widen_range(src + begin, dst + begin, count); });
}

}  // namespace sampan::kernels
