// Tests of the float32 GEMM's oneDNN path (framework/src/kernels/sgemm_onednn.h) and of the size
// rule that sends kernels::gemm there: above the rule, every transpose combination with leading
// dimensions wider than the matrix (and C's padding untouched) equals a double-precision product
// to float32 accumulation tolerance, through sgemm_onednn, through gemm and through gemm_blas_only;
// core::matmul on float32 agrees with float64 on the same values. Without oneDNN the kernel
// declines and gemm still multiplies.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "sampan/ops.h"
#include "../../../framework/src/kernels/gemm.h"
#include "../../../framework/src/kernels/sgemm_onednn.h"

using namespace sampan;

namespace {

std::vector<float> values(int64_t count, uint32_t seed) {
  std::vector<float> v(static_cast<size_t>(count));
  uint32_t s = seed;
  for (auto& x : v) {
    s = s * 1664525u + 1013904223u;
    x = static_cast<float>(s >> 8) / 16777216.0f * 2.0f - 1.0f;
  }
  return v;
}

using Gemm = void (*)(bool, bool, int64_t, int64_t, int64_t, const float*, int64_t, const float*, int64_t, float*,
                      int64_t);

void expect_product(Gemm gemm, const char* name, int64_t m, int64_t n, int64_t k) {
  const int64_t pad = 5;
  for (bool ta : {false, true})
    for (bool tb : {false, true}) {
      const int64_t lda = (ta ? m : k) + pad, ldb = (tb ? k : n) + pad, ldc = n + pad;
      const std::vector<float> a = values((ta ? k : m) * lda, 11), b = values((tb ? n : k) * ldb, 23);
      std::vector<float> c(static_cast<size_t>(m * ldc), 7.0f);
      gemm(ta, tb, m, n, k, a.data(), lda, b.data(), ldb, c.data(), ldc);
      double worst = 0;
      for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          double ref = 0;
          for (int64_t p = 0; p < k; ++p)
            ref += static_cast<double>(ta ? a[p * lda + i] : a[i * lda + p]) *
                   static_cast<double>(tb ? b[j * ldb + p] : b[p * ldb + j]);
          worst = std::max(worst, std::abs(c[i * ldc + j] - ref));
        }
        for (int64_t j = n; j < ldc; ++j) ASSERT_EQ(c[i * ldc + j], 7.0f) << name << ": wrote C's padding";
      }
      // |error| <= k * eps * sum |a||b| ~ k * 2^-24 * k/3 for values in [-1, 1]
      EXPECT_LT(worst, 1e-6 * k) << name << " trans_a " << ta << " trans_b " << tb;
    }
}

}  // namespace

TEST(SgemmOnednn, SizeRule) {
  if (!kernels::sgemm_onednn_available()) {
    EXPECT_FALSE(kernels::sgemm_onednn_pays(2048, 2048, 2048));
    return;
  }
  EXPECT_TRUE(kernels::sgemm_onednn_pays(762, 600, 300));
  EXPECT_TRUE(kernels::sgemm_onednn_pays(32, 300, 600));
  EXPECT_FALSE(kernels::sgemm_onednn_pays(64, 64, 64));            // below the work threshold
  EXPECT_FALSE(kernels::sgemm_onednn_pays(4, 100000, 100000));     // a side under kOnednnMinSide
  EXPECT_FALSE(kernels::sgemm_onednn_pays(100000, 1, 100000));
}

TEST(SgemmOnednn, EveryTransposeAndPaddedLeadingDimension) {
  // 96 x 80 x 600 = 4.6M multiply-adds: above the rule, so gemm takes the oneDNN path too
  const int64_t m = 96, n = 80, k = 600;
  ASSERT_GE(m * n * k, kernels::kOnednnMinWork);
  expect_product(kernels::gemm_blas_only, "gemm_blas_only", m, n, k);
  expect_product(static_cast<Gemm>(kernels::gemm), "gemm", m, n, k);
  if (!kernels::sgemm_onednn_available()) {
    std::vector<float> a(4, 1.0f), c(4, 7.0f);
    EXPECT_FALSE(kernels::sgemm_onednn(false, false, 2, 2, 2, a.data(), 2, a.data(), 2, c.data(), 2));
    EXPECT_EQ(c[0], 7.0f);
    GTEST_SKIP() << "no oneDNN in this build (libdnnl-dev): the oneDNN kernel itself is not tested";
  }
  auto onednn = [](bool ta, bool tb, int64_t m, int64_t n, int64_t k, const float* a, int64_t lda, const float* b,
                   int64_t ldb, float* c, int64_t ldc) {
    ASSERT_TRUE(kernels::sgemm_onednn(ta, tb, m, n, k, a, lda, b, ldb, c, ldc));
  };
  expect_product(+onednn, "sgemm_onednn", m, n, k);
  expect_product(+onednn, "sgemm_onednn below the rule", 3, 5, 7);
}

TEST(SgemmOnednn, MatmulFloat32AgreesWithFloat64) {
  // a [762, 300] x [300, 600] product, GIN-sized, through core::matmul (and so the rule)
  Tensor a = rand({762, 300}, DType::Float64), b = rand({300, 600}, DType::Float64);
  Tensor exact = matmul(a, b);
  Tensor single = cast(matmul(cast(a, DType::Float32), cast(b, DType::Float32)), DType::Float64);
  Tensor err = max(abs(sub(single, exact)));
  EXPECT_LT(err.item(), 1e-4);
  Tensor bt = transpose(cast(b, DType::Float32), 0, 1).contiguous();  // op(B) = B^T^T through a transposed view
  Tensor viaT = cast(matmul(cast(a, DType::Float32), transpose(bt, 0, 1)), DType::Float64);
  EXPECT_LT(max(abs(sub(viaT, exact))).item(), 1e-4);
}
