// Tests of kernels::philox_words (framework/src/kernels/philox_batch.h): the vector rounds (AVX2,
// AVX-512, on the CPUs that have them) give the words of the scalar philox4x32_10 (whose known
// answers random_test.cpp checks against Random123's vectors) for every counter of a run: runs
// shorter than a vector, tails, runs crossing a multiple of 2^32 and the 2^64 wrap, large seeds and
// offsets. And the ops built on it, core::rand and core::dropout_mask, keep their definition
// element by element (element i from block (i, offset) under key seed).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "sampan/op.h"
#include "sampan/ops.h"
#include "../../../framework/src/kernels/philox.h"
#include "../../../framework/src/kernels/philox_batch.h"

using namespace sampan;
using kernels::PhiloxIsa;

namespace {

struct Case {
  uint64_t seed, offset, first;
  int64_t n;
};

void expect_scalar_words(PhiloxIsa isa, const Case& c, bool two_words) {
  std::vector<uint32_t> w0(c.n + 1, 0xdeadbeefu), w1(c.n + 1, 0xdeadbeefu);
  kernels::philox_words(c.seed, c.offset, c.first, c.n, w0.data(), two_words ? w1.data() : nullptr, isa);
  for (int64_t j = 0; j < c.n; ++j) {
    const auto b = kernels::random_block(c.seed, c.offset, c.first + static_cast<uint64_t>(j));
    ASSERT_EQ(w0[j], b[0]) << "isa " << int(isa) << " first " << c.first << " element " << j;
    if (two_words) ASSERT_EQ(w1[j], b[1]) << "isa " << int(isa) << " first " << c.first << " element " << j;
  }
  // Nothing past the run is written.
  EXPECT_EQ(w0[c.n], 0xdeadbeefu);
  EXPECT_EQ(w1[two_words ? c.n : 0], 0xdeadbeefu);
}

const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {0, 0, 0, 1},
      {42, 7, 0, 7},                                              // shorter than an AVX2 vector
      {42, 7, 3, 15},                                             // shorter than an AVX-512 vector
      {0x5A3DA6C0FFEEull, 123456789, 0, 1000},                    // vectors and a tail
      {0xffffffffffffffffull, 0xfedcba9876543210ull, 17, 333},    // all key and offset bits set
      {9, 1, (uint64_t{1} << 32) - 21, 50},                       // crosses 2^32: the high index word changes
      {9, 1, (uint64_t{3} << 32) - 8, 40},                        // crosses 3 * 2^32 right after one vector
      {11, 2, 0xffffffffffffffffull - 9, 30},                     // wraps past 2^64 - 1 to counter 0
  };
  return all;
}

}  // namespace

TEST(PhiloxBatch, EveryInstructionSetGivesTheScalarWords) {
  int tested = 0;
  for (PhiloxIsa isa : {PhiloxIsa::kScalar, PhiloxIsa::kAvx2, PhiloxIsa::kAvx512, PhiloxIsa::kBest}) {
    if (!kernels::philox_isa_available(isa)) {
      std::printf("PhiloxBatch: instruction set %d not on this CPU, not tested here\n", int(isa));
      continue;
    }
    ++tested;
    for (const Case& c : cases()) {
      expect_scalar_words(isa, c, false);
      expect_scalar_words(isa, c, true);
    }
  }
  EXPECT_GE(tested, 2);  // scalar and best always run
}

TEST(PhiloxBatch, MissingInstructionSetFallsBackToTheSameWords) {
  // Asking for an instruction set the CPU lacks is not an error: the scalar rounds run instead.
  for (PhiloxIsa isa : {PhiloxIsa::kAvx2, PhiloxIsa::kAvx512})
    if (!kernels::philox_isa_available(isa)) expect_scalar_words(isa, cases()[3], true);
}

TEST(PhiloxBatch, RandAndDropoutMaskElementByElement) {
  // The ops' definition (random.cpp, generator.h): element i of draw (seed, offset) comes from
  // random_block(seed, offset, i); float32 uses word 0's top 24 bits, float64 words 0 and 1's top 53.
  const int64_t seed = 77, offset = 5, n = 3001;  // several 512-element chunks and a tail
  Tensor u32 = OpHandle("core::rand")(std::vector<int64_t>{n}, std::string("float32"), seed, offset)[0];
  Tensor u64 = OpHandle("core::rand")(std::vector<int64_t>{n}, std::string("float64"), seed, offset)[0];
  Tensor m32 = OpHandle("core::dropout_mask")(std::vector<int64_t>{n}, 0.3, std::string("float32"), seed, offset)[0];
  Tensor m64 = OpHandle("core::dropout_mask")(std::vector<int64_t>{n}, 0.3, std::string("float64"), seed, offset)[0];
  const double keep = 1.0 - 0.3;  // as the op computes it from p
  for (int64_t i = 0; i < n; ++i) {
    const auto b = kernels::random_block(seed, offset, static_cast<uint64_t>(i));
    const double want32 = std::ldexp(static_cast<double>(b[0] >> 8), -24);
    const double want64 = std::ldexp(static_cast<double>(((static_cast<uint64_t>(b[0]) << 32) | b[1]) >> 11), -53);
    ASSERT_EQ(u32.data<float>()[i], static_cast<float>(want32)) << i;
    ASSERT_EQ(u64.data<double>()[i], want64) << i;
    ASSERT_EQ(m32.data<float>()[i], want32 < static_cast<float>(keep) ? static_cast<float>(1.0 / keep) : 0.0f) << i;
    ASSERT_EQ(m64.data<double>()[i], want64 < keep ? 1.0 / keep : 0.0) << i;
  }
}
