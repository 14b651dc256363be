// Tests of the bfloat16 GEMM (framework/src/kernels/gemm_bf16.h) and of core::matmul on bfloat16:
// each product equals a double-precision product of the same bfloat16 values to float32
// accumulation tolerance, for every transpose combination, leading dimensions wider than the
// matrix, and a batch. Where the build has no oneDNN the kernel must refuse and matmul still work.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "sampan/ops.h"
#include "../../../framework/src/kernels/gemm_bf16.h"

using namespace sampan;

namespace {

// Element (i, j) of op(X) for a row-major X with leading dimension ld.
double at(const std::vector<BFloat16>& x, bool trans, int64_t ld, int64_t i, int64_t j) {
  return static_cast<float>(trans ? x[j * ld + i] : x[i * ld + j]);
}

std::vector<BFloat16> values(int64_t count, uint32_t seed) {
  std::vector<BFloat16> v(static_cast<size_t>(count));
  uint32_t s = seed;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = BFloat16(static_cast<float>(s >> 8) / 16777216.0f * 2.0f - 1.0f);
  }
  return v;
}

}  // namespace

TEST(GemmBf16, MatchesDoubleProductOfTheSameValues) {
  if (!kernels::gemm_bf16_available()) GTEST_SKIP() << "no bfloat16 GEMM here: " << kernels::gemm_bf16_library();
  const int64_t m = 37, n = 29, k = 300, pad = 3;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      const int64_t lda = (ta ? m : k) + pad, ldb = (tb ? k : n) + pad, ldc = n + pad;
      auto a = values((ta ? k : m) * lda, 1), b = values((tb ? n : k) * ldb, 2);
      std::vector<float> c(static_cast<size_t>(m * ldc), -7.0f);
      kernels::gemm_bf16(ta, tb, m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc);
      std::vector<BFloat16> c16(static_cast<size_t>(m * ldc), BFloat16(-7.0f));
      kernels::gemm_bf16(ta, tb, m, n, k, a.data(), lda, b.data(), ldb, c16.data(), ldc);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double want = 0, magnitude = 0;
          for (int64_t p = 0; p < k; ++p) {
            want += at(a, ta, lda, i, p) * at(b, tb, ldb, p, j);
            magnitude += std::abs(at(a, ta, lda, i, p) * at(b, tb, ldb, p, j));
          }
          // float32 accumulation of k products: a few ulps of the sum of magnitudes.
          EXPECT_NEAR(c[i * ldc + j], want, 1e-6 * k * magnitude + 1e-6) << ta << tb << " " << i << "," << j;
          // the bfloat16 result is that sum rounded once (half an ulp of bf16, 2^-9 relative).
          EXPECT_NEAR(static_cast<float>(c16[i * ldc + j]), want, std::abs(want) / 256 + 1e-6 * k * magnitude);
        }
      for (int64_t i = 0; i < m; ++i)  // the padding past n is left alone
        for (int64_t j = n; j < ldc; ++j) EXPECT_EQ(c[i * ldc + j], -7.0f);
    }
}

TEST(GemmBf16, MatmulOpOnBfloat16AgreesWithFloat32OfTheRoundedInputs) {
  Tensor a = randn({3, 40, 64}).to(DType::BFloat16);
  Tensor b = randn({64, 24}).to(DType::BFloat16);
  Tensor got = matmul(a, transpose(transpose(b, 0, 1).contiguous(), 0, 1));  // b as a transposed view
  ASSERT_EQ(got.dtype(), DType::BFloat16);
  Tensor want = matmul(a.to(DType::Float32), b.to(DType::Float32));
  Tensor err = max(abs(sub(got.to(DType::Float32), want)));
  Tensor scale = max(abs(want));
  EXPECT_LE(err.item(), scale.item() / 128);
}

// No oneDNN in the build, or a oneDNN without a bfloat16 matmul for this CPU (AVX2 only): the
// kernel refuses, saying which, and matmul takes the float32 convert path (the test above).
TEST(GemmBf16, WithoutABf16LibraryTheKernelRefuses) {
  if (kernels::gemm_bf16_available()) GTEST_SKIP() << "bfloat16 GEMM here: " << kernels::gemm_bf16_library();
  EXPECT_EQ(kernels::gemm_bf16_library().rfind("none (", 0), 0u) << kernels::gemm_bf16_library();
  BFloat16 a(1.0f), b(2.0f);
  float c = 0;
  EXPECT_THROW(kernels::gemm_bf16(false, false, 1, 1, 1, &a, 1, &b, 1, &c, 1), NotImplementedError);
}
