// sampan kernels: Philox4x32-10 on 8 or 16 counters per vector (see philox_batch.h).
//
// One Philox round (Salmon et al. 2011, Fig. 2) maps (c0, c1, c2, c3) under key (k0, k1) to
//   (hi(M1 c2) ^ c1 ^ k0, lo(M1 c2), hi(M0 c0) ^ c3 ^ k1, lo(M0 c0)),
// where hi/lo are the halves of the 64-bit product, and adds the Weyl constants to the key
// between rounds. x86 has no 32x32 -> high-32 multiply on vectors, but vpmuludq forms the full
// 64-bit products of the even 32-bit lanes; the odd lanes' come from a second vpmuludq on the
// counters shifted down by 32, and two blends put the halves back in lane order.
#include "philox_batch.h"

#include "philox.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SAMPAN_PHILOX_X86 1
// GCC 12's avx512fintrin.h starts the shift intrinsics from a deliberately undefined vector
// (`__m512i __Y = __Y;`), which -Wmaybe-uninitialized reports at every use; nothing here is.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#else
#define SAMPAN_PHILOX_X86 0
#endif

namespace sampan::kernels {

namespace {

constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // philox.h's multipliers
constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // and Weyl key increments

// The counters of one run share their high index word `hi` (the caller splits runs at multiples
// of 2^32), so a vector's counters are (lo + lane, hi, offset_lo, offset_hi).
struct Run {
  uint32_t key0, key1;      // the seed's halves
  uint32_t lo, hi;          // the first counter's index words
  uint32_t off_lo, off_hi;  // the draw's offset words
};

void run_scalar(const Run& r, int64_t begin, int64_t n, uint32_t* word0, uint32_t* word1) {
  for (int64_t j = begin; j < n; ++j) {
    const PhiloxBlock b = philox4x32_10({r.lo + static_cast<uint32_t>(j), r.hi, r.off_lo, r.off_hi}, {r.key0, r.key1});
    word0[j] = b[0];
    if (word1) word1[j] = b[1];
  }
}

#if SAMPAN_PHILOX_X86
__attribute__((target("avx2"))) void run_avx2(const Run& r, int64_t n, uint32_t* word0, uint32_t* word1) {
  const __m256i m0 = _mm256_set1_epi32(static_cast<int>(kM0)), m1 = _mm256_set1_epi32(static_cast<int>(kM1));
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    __m256i c0 = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(r.lo + static_cast<uint32_t>(j))), lane);
    __m256i c1 = _mm256_set1_epi32(static_cast<int>(r.hi));
    __m256i c2 = _mm256_set1_epi32(static_cast<int>(r.off_lo));
    __m256i c3 = _mm256_set1_epi32(static_cast<int>(r.off_hi));
    uint32_t k0 = r.key0, k1 = r.key1;
    for (int round = 0; round < 10; ++round) {
      if (round > 0) { k0 += kW0; k1 += kW1; }
      const __m256i even0 = _mm256_mul_epu32(c0, m0), odd0 = _mm256_mul_epu32(_mm256_srli_epi64(c0, 32), m0);
      const __m256i even1 = _mm256_mul_epu32(c2, m1), odd1 = _mm256_mul_epu32(_mm256_srli_epi64(c2, 32), m1);
      const __m256i hi0 = _mm256_blend_epi32(_mm256_srli_epi64(even0, 32), odd0, 0xAA);
      const __m256i lo0 = _mm256_blend_epi32(even0, _mm256_slli_epi64(odd0, 32), 0xAA);
      const __m256i hi1 = _mm256_blend_epi32(_mm256_srli_epi64(even1, 32), odd1, 0xAA);
      const __m256i lo1 = _mm256_blend_epi32(even1, _mm256_slli_epi64(odd1, 32), 0xAA);
      c0 = _mm256_xor_si256(_mm256_xor_si256(hi1, c1), _mm256_set1_epi32(static_cast<int>(k0)));
      c1 = lo1;
      c2 = _mm256_xor_si256(_mm256_xor_si256(hi0, c3), _mm256_set1_epi32(static_cast<int>(k1)));
      c3 = lo0;
    }
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(word0 + j), c0);
    if (word1) _mm256_storeu_si256(reinterpret_cast<__m256i*>(word1 + j), c1);
  }
  run_scalar(r, j, n, word0, word1);
}

__attribute__((target("avx512f"))) void run_avx512(const Run& r, int64_t n, uint32_t* word0, uint32_t* word1) {
  const __m512i m0 = _mm512_set1_epi32(static_cast<int>(kM0)), m1 = _mm512_set1_epi32(static_cast<int>(kM1));
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  constexpr __mmask16 kOdd = 0xAAAA;
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    __m512i c0 = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(r.lo + static_cast<uint32_t>(j))), lane);
    __m512i c1 = _mm512_set1_epi32(static_cast<int>(r.hi));
    __m512i c2 = _mm512_set1_epi32(static_cast<int>(r.off_lo));
    __m512i c3 = _mm512_set1_epi32(static_cast<int>(r.off_hi));
    uint32_t k0 = r.key0, k1 = r.key1;
    for (int round = 0; round < 10; ++round) {
      if (round > 0) { k0 += kW0; k1 += kW1; }
      const __m512i even0 = _mm512_mul_epu32(c0, m0), odd0 = _mm512_mul_epu32(_mm512_srli_epi64(c0, 32), m0);
      const __m512i even1 = _mm512_mul_epu32(c2, m1), odd1 = _mm512_mul_epu32(_mm512_srli_epi64(c2, 32), m1);
      const __m512i hi0 = _mm512_mask_blend_epi32(kOdd, _mm512_srli_epi64(even0, 32), odd0);
      const __m512i lo0 = _mm512_mask_blend_epi32(kOdd, even0, _mm512_slli_epi64(odd0, 32));
      const __m512i hi1 = _mm512_mask_blend_epi32(kOdd, _mm512_srli_epi64(even1, 32), odd1);
      const __m512i lo1 = _mm512_mask_blend_epi32(kOdd, even1, _mm512_slli_epi64(odd1, 32));
      c0 = _mm512_xor_si512(_mm512_xor_si512(hi1, c1), _mm512_set1_epi32(static_cast<int>(k0)));
      c1 = lo1;
      c2 = _mm512_xor_si512(_mm512_xor_si512(hi0, c3), _mm512_set1_epi32(static_cast<int>(k1)));
      c3 = lo0;
    }
    _mm512_storeu_si512(word0 + j, c0);
    if (word1) _mm512_storeu_si512(word1 + j, c1);
  }
  run_scalar(r, j, n, word0, word1);
}
#endif

PhiloxIsa best_isa() {
#if SAMPAN_PHILOX_X86
  static const PhiloxIsa best = __builtin_cpu_supports("avx512f") ? PhiloxIsa::kAvx512
                                : __builtin_cpu_supports("avx2")  ? PhiloxIsa::kAvx2
                                                                  : PhiloxIsa::kScalar;
  return best;
#else
  return PhiloxIsa::kScalar;
#endif
}

}  // namespace

bool philox_isa_available(PhiloxIsa isa) {
  const PhiloxIsa best = best_isa();
  switch (isa) {
    case PhiloxIsa::kAvx2: return best == PhiloxIsa::kAvx2 || best == PhiloxIsa::kAvx512;
    case PhiloxIsa::kAvx512: return best == PhiloxIsa::kAvx512;
    default: return true;
  }
}

void philox_words(uint64_t seed, uint64_t offset, uint64_t first, int64_t n, uint32_t* word0, uint32_t* word1,
                  PhiloxIsa isa) {
  // An instruction set the CPU lacks falls back to the scalar rounds (same bits).
  if (isa == PhiloxIsa::kBest) isa = best_isa();
  if (!philox_isa_available(isa)) isa = PhiloxIsa::kScalar;
  while (n > 0) {
    // The counters up to the next multiple of 2^32 share their high index word.
    const uint64_t to_wrap = (uint64_t{1} << 32) - (first & 0xffffffffu);
    const int64_t len = static_cast<uint64_t>(n) < to_wrap ? n : static_cast<int64_t>(to_wrap);
    const Run r{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32), static_cast<uint32_t>(first),
                static_cast<uint32_t>(first >> 32), static_cast<uint32_t>(offset), static_cast<uint32_t>(offset >> 32)};
    switch (isa) {
#if SAMPAN_PHILOX_X86
      case PhiloxIsa::kAvx512: run_avx512(r, len, word0, word1); break;
      case PhiloxIsa::kAvx2: run_avx2(r, len, word0, word1); break;
#endif
      default: run_scalar(r, 0, len, word0, word1); break;
    }
    first += static_cast<uint64_t>(len);
    word0 += len;
    if (word1) word1 += len;
    n -= len;
  }
}

}  // namespace sampan::kernels
