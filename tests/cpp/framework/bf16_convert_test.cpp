// The vectorized float32 <-> bfloat16 casts (kernels/bf16_convert.h, taken by core::cast for
// contiguous tensors) give the bits of BFloat16(float), the one rounding rule, for special values
// (NaN, infinities, signed zeros, subnormals, ties, overflow to inf) and across chunk boundaries
// and odd tails; strided tensors, which take the generic loop, agree too.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "sampan/ops.h"

using namespace sampan;

namespace {

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

std::vector<float> values(int64_t n) {
  std::vector<float> v = {0.0f, -0.0f, 1.0f, -1.0f, std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity(), std::nanf(""), from_bits(0x7f800001u),
                          from_bits(0x00000001u), from_bits(0x807fffffu), from_bits(0x3f808000u),  // a tie to even
                          from_bits(0x3f818000u), from_bits(0x7f7fffffu)};                          // rounds to inf
  uint32_t s = 12345;
  while (static_cast<int64_t>(v.size()) < n) {
    s = s * 1664525u + 1013904223u;
    v.push_back(from_bits(s));  // every bit pattern: every exponent, NaN payloads included
  }
  return v;
}

}  // namespace

TEST(Bf16Convert, CastGivesTheBitsOfTheScalarConversion) {
  const int64_t n = 3 * 65536 + 17;
  std::vector<float> v = values(n);
  Tensor x = Tensor::empty({n}, DType::Float32);
  std::memcpy(x.data<float>(), v.data(), n * sizeof(float));
  Tensor h = cast(x, DType::BFloat16);
  const BFloat16* got = h.data<BFloat16>();
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i].bits, BFloat16(v[i]).bits) << "element " << i << " = " << v[i];
  Tensor back = cast(h, DType::Float32);
  for (int64_t i = 0; i < n; ++i) {
    const float want = static_cast<float>(got[i]);
    uint32_t a, b;
    std::memcpy(&a, back.data<float>() + i, 4);
    std::memcpy(&b, &want, 4);
    ASSERT_EQ(a, b) << "element " << i;
  }
}

TEST(Bf16Convert, StridedTensorsAgreeWithContiguousOnes) {
  std::vector<float> v = values(64 * 33);
  Tensor x = Tensor::empty({64, 33}, DType::Float32);
  std::memcpy(x.data<float>(), v.data(), v.size() * sizeof(float));
  Tensor t = transpose(x, 0, 1);  // a view: the generic loop
  Tensor strided = cast(t, DType::BFloat16);
  Tensor flat = cast(contiguous(t), DType::BFloat16);
  Tensor packed = contiguous(strided);
  for (int64_t i = 0; i < flat.numel(); ++i)
    ASSERT_EQ(packed.data<BFloat16>()[i].bits, flat.data<BFloat16>()[i].bits) << "element " << i;
}
