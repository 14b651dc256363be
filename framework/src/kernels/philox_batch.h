// sampan kernels: Philox4x32-10 blocks of a run of consecutive counters, several at once. Plain
// functions.
//
// A random op gives element i the block random_block(seed, offset, i) (philox.h). Element-wise ops
// over a run of elements (rand, dropout_mask) need the first one or two words of the blocks of
// counters first, first + 1, ...: the same Philox rounds on 8 (AVX2) or 16 (AVX-512) counters per
// vector, chosen at run time, with exactly the bits of philox4x32_10 (the round is integer
// arithmetic: 32x32 -> 64-bit products, xors and key increments, no rounding anywhere).
#pragma once

#include <cstdint>

namespace sampan::kernels {

/// The instruction sets a batch can run on; kBest is the widest this CPU supports.
enum class PhiloxIsa { kScalar, kAvx2, kAvx512, kBest };

/// Whether `isa` runs on this CPU (kScalar and kBest always do).
bool philox_isa_available(PhiloxIsa isa);

/// For j in [0, n): word0[j] = random_block(seed, offset, first + j)[0] and, when word1 is not
/// null, word1[j] = the block's word 1. Counters past 2^64 - 1 wrap, as in random_block.
void philox_words(uint64_t seed, uint64_t offset, uint64_t first, int64_t n, uint32_t* word0, uint32_t* word1,
                  PhiloxIsa isa = PhiloxIsa::kBest);

}  // namespace sampan::kernels
