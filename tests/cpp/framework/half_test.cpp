// float16 and bfloat16: storage types whose elementwise arithmetic runs in float32 and is
// rounded once into the result (NumPy gives float16 results for float16 inputs too).
#include <gtest/gtest.h>

#include <cmath>

#include "sampan/ops.h"

using namespace sampan;

namespace {
Tensor values() { return from_vector({0.1, -1.5, 2.25, 3.0e3, -7.0e-3, 0.0}, {6}, DType::Float32); }
}  // namespace

TEST(Half, ConversionRoundsToNearestEven) {
  EXPECT_EQ(Half(1.0f).bits, 0x3c00);
  EXPECT_EQ(Half(65504.0f).bits, 0x7bff);               // largest finite
  EXPECT_EQ(Half(1e6f).bits, 0x7c00);                   // overflow to inf
  EXPECT_EQ(static_cast<float>(Half(5.96e-8f)), 5.9604645e-8f);  // smallest subnormal
  EXPECT_EQ(Half(1.0f + 1.0f / 2048).bits, 0x3c00);    // tie goes to even
  EXPECT_EQ(BFloat16(1.0f).bits, 0x3f80);
  EXPECT_TRUE(std::isnan(static_cast<float>(BFloat16(std::nanf("")))));
}

TEST(Half, ElementwiseOpsComputeInFloat32AndRoundOnce) {
  for (DType d : {DType::Float16, DType::BFloat16}) {
    Tensor x = cast(values(), d), y = cast(values() * 0.5 + 1.0, d);
    Tensor small = x * 0.001;  // a float16/bfloat16 tensor itself
    Tensor xf = cast(x, DType::Float32), yf = cast(y, DType::Float32), sf = cast(small, DType::Float32);
    struct Case { const char* name; Tensor got, want; };
    for (auto& c : {Case{"add", add(x, y), add(xf, yf)}, Case{"mul", mul(x, y), mul(xf, yf)},
                    Case{"div", div(x, y), div(xf, yf)}, Case{"exp", exp(small), exp(sf)},
                    Case{"sqrt", sqrt(abs(x)), sqrt(abs(xf))}}) {
      ASSERT_EQ(c.got.dtype(), d) << c.name;
      // The result is exactly the float32 result rounded once to the half type.
      Tensor expect = cast(cast(c.want, d), DType::Float32);
      Tensor got = cast(c.got, DType::Float32);
      for (int64_t i = 0; i < 6; ++i)
        EXPECT_EQ(got.data<float>()[i], expect.data<float>()[i]) << c.name << " " << dtype_name(d) << " element " << i;
    }
  }
}

// Sums, products and cumulative sums of the 16-bit floats accumulate in float32 and round once:
// 4096 ones sum to 4096 (a float16 accumulator sticks at 2048, where 2048 + 1 rounds back to 2048).
TEST(Half, ReductionsAccumulateInFloat32) {
  for (DType d : {DType::Float16, DType::BFloat16}) {
    Tensor x = ones({4096}, d);
    Tensor total = sum(x);
    ASSERT_EQ(total.dtype(), d);
    EXPECT_EQ(total.item(), 4096.0) << dtype_name(d);
    EXPECT_EQ(select(cumsum(x, 0), 0, 4095).item(), 4096.0) << dtype_name(d);
    EXPECT_EQ(mean(x).item(), 1.0) << dtype_name(d);
    // 1 + 1/64 is exact in both types; the product is a float32 running product rounded once.
    float running = 1.0f;
    for (int i = 0; i < 64; ++i) running *= 1.0f + 1.0f / 64;
    const double once = d == DType::Float16 ? double(float(Half(running))) : double(float(BFloat16(running)));
    EXPECT_EQ(prod(full({64}, 1.0 + 1.0 / 64, d)).item(), once) << dtype_name(d);
  }
}

TEST(Half, PromotionWithOtherTypes) {
  Tensor h = ones({2}, DType::Float16), b = ones({2}, DType::BFloat16);
  EXPECT_EQ(add(h, b).dtype(), DType::Float32);
  EXPECT_EQ(add(h, ones({2}, DType::Float64)).dtype(), DType::Float64);
  EXPECT_EQ(add(h, ones({2}, DType::Int64)).dtype(), DType::Float16);
  EXPECT_EQ((h * 2.5).dtype(), DType::Float16);
}

TEST(Half, GradientsFlowThroughHalfTensors) {
  Tensor x = ones({3}, DType::Float16).requires_grad_();
  Tensor y = sum(cast(x * x, DType::Float32));
  y.backward();
  ASSERT_EQ(x.grad().dtype(), DType::Float16);
  EXPECT_EQ(cast(x.grad(), DType::Float32).data<float>()[1], 2.0f);
}
