// sampan kernels: the value each random op makes of element i's Philox block (philox.h), one
// functor per op. Host and device: the CPU loops (ops/random.cpp) and their CUDA twins
// (random_kernels.cu) apply the same functor, so a draw on the GPU is the CPU's draw.
//
// The uniform-based ops read only words 0 and 1 of a block; they also take those words directly
// (`words`), which is what the CPU's batched Philox (philox_batch.h) hands them.
#pragma once

#include <cstdint>

#include "philox.h"
#include "sampan/host_device.h"

namespace sampan::kernels {

/// core::rand: float32 from word 0's top 24 bits, float64 from words 0 and 1's top 53. Exact.
template <class T> struct UniformElement {
  SAMPAN_HOST_DEVICE T words(uint32_t w0, uint32_t w1) const {
    if constexpr (sizeof(T) == 4) return uniform_float(w0);
    else return uniform_double(bits64(w0, w1));
  }
  SAMPAN_HOST_DEVICE T operator()(const PhiloxBlock& b) const { return words(b[0], b[1]); }
};

/// core::dropout_mask: `scale` where rand's sample is below `keep` (compared in T), else 0.
template <class T> struct DropoutElement {
  T keep, scale;
  SAMPAN_HOST_DEVICE T words(uint32_t w0, uint32_t w1) const {
    return UniformElement<T>{}.words(w0, w1) < keep ? scale : T(0);
  }
  SAMPAN_HOST_DEVICE T operator()(const PhiloxBlock& b) const { return words(b[0], b[1]); }
};

/// core::randperm: each position's 64-bit sort key, words 0 and 1.
struct PermutationKeyElement {
  SAMPAN_HOST_DEVICE uint64_t operator()(const PhiloxBlock& b) const { return bits64(b[0], b[1]); }
};

/// core::randn: Box-Muller in float64, rounded once for float32.
template <class T> struct NormalElement {
  SAMPAN_HOST_DEVICE T operator()(const PhiloxBlock& b) const { return static_cast<T>(normal_from_block(b)); }
};

/// core::randint: low + (an integer uniform in [0, range)), modulo 2^64 as the CPU computes it.
template <class T> struct RandintElement {
  uint64_t low, range;
  SAMPAN_HOST_DEVICE T operator()(const PhiloxBlock& b) const {
    return static_cast<T>(static_cast<int64_t>(low + below(bits64(b[0], b[1]), range)));
  }
};

}  // namespace sampan::kernels
