// sampan kernels: the counter-based random stream behind every random op. Plain functions.
//
// Philox4x32-10 (J. K. Salmon, M. A. Moraes, R. O. Dror, D. E. Shaw, "Parallel random numbers:
// as easy as 1, 2, 3", SC'11): a keyed bijection of a 128-bit counter, 10 rounds. A random op
// with generator state (seed, offset) gives element i the block
//   philox(key = seed, counter = (i mod 2^32, i >> 32, offset mod 2^32, offset >> 32)),
// i.e. 128 fresh bits per element that depend on nothing else: not on the thread that computes
// it, nor on the other elements. Draws with different offsets never share a counter.
//
// Host and device: the CUDA twins of the random ops (random_kernels.cu) call these same bodies,
// so a GPU draw has the CPU's bits wherever the arithmetic is exact (integers, the conversions
// of uniform_*, below); normal_from_block's log, sqrt and cos round as each device's libm does.
#pragma once

#include <cmath>
#include <cstdint>

#include "sampan/host_device.h"

namespace sampan::kernels {

/// 128 bits: a counter or a block of random words (word 0 first).
struct PhiloxBlock {
  uint32_t w[4];
  SAMPAN_HOST_DEVICE uint32_t& operator[](int i) { return w[i]; }
  SAMPAN_HOST_DEVICE uint32_t operator[](int i) const { return w[i]; }
  friend bool operator==(const PhiloxBlock& a, const PhiloxBlock& b) {
    return a.w[0] == b.w[0] && a.w[1] == b.w[1] && a.w[2] == b.w[2] && a.w[3] == b.w[3];
  }
};
/// The 64-bit key (word 0 first).
struct PhiloxKey {
  uint32_t k[2];
};

SAMPAN_HOST_DEVICE inline PhiloxBlock philox4x32_10(PhiloxBlock ctr, PhiloxKey key) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;  // multipliers
  constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;  // Weyl key increments (golden ratio, sqrt(3)-1)
  for (int round = 0; round < 10; ++round) {
    if (round > 0) { key.k[0] += kW0; key.k[1] += kW1; }
    const uint64_t p0 = static_cast<uint64_t>(kM0) * ctr[0];
    const uint64_t p1 = static_cast<uint64_t>(kM1) * ctr[2];
    ctr = {{static_cast<uint32_t>(p1 >> 32) ^ ctr[1] ^ key.k[0], static_cast<uint32_t>(p1),
            static_cast<uint32_t>(p0 >> 32) ^ ctr[3] ^ key.k[1], static_cast<uint32_t>(p0)}};
  }
  return ctr;
}

/// The 128 random bits of element `index` of draw (seed, offset).
SAMPAN_HOST_DEVICE inline PhiloxBlock random_block(uint64_t seed, uint64_t offset, uint64_t index) {
  return philox4x32_10({{static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32),
                         static_cast<uint32_t>(offset), static_cast<uint32_t>(offset >> 32)}},
                       {{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)}});
}

SAMPAN_HOST_DEVICE inline uint64_t bits64(uint32_t hi, uint32_t lo) { return (static_cast<uint64_t>(hi) << 32) | lo; }

/// Uniform in [0, 1) with 53 random bits (every double k * 2^-53). The shifted bits fit a signed
/// integer, whose conversion is one instruction on every x86 (the unsigned one is not) and exact.
SAMPAN_HOST_DEVICE inline double uniform_double(uint64_t bits) { return static_cast<double>(static_cast<int64_t>(bits >> 11)) * 0x1.0p-53; }
/// Uniform in [0, 1) with 24 random bits: exact in float32, so it never rounds up to 1.
SAMPAN_HOST_DEVICE inline float uniform_float(uint32_t bits) { return static_cast<float>(static_cast<int32_t>(bits >> 8)) * 0x1.0p-24f; }

/// A standard normal from one block by the Box-Muller transform; u1 lies in (0, 1] so the
/// logarithm is finite (|z| <= sqrt(2 * 53 ln 2) ~ 8.6).
SAMPAN_HOST_DEVICE inline double normal_from_block(const PhiloxBlock& b) {
  const double u1 = static_cast<double>((bits64(b[0], b[1]) >> 11) + 1) * 0x1.0p-53;
  const double u2 = uniform_double(bits64(b[2], b[3]));
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(kTwoPi * u2);
}

/// An integer uniform in [0, range) by Lemire's multiply-shift on 64 bits; its bias is at most
/// range / 2^64, far below anything a test could see.
SAMPAN_HOST_DEVICE inline uint64_t below(uint64_t bits, uint64_t range) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(bits, range);  // the high word of the same 128-bit product
#else
  return static_cast<uint64_t>((static_cast<unsigned __int128>(bits) * range) >> 64);
#endif
}

}  // namespace sampan::kernels
