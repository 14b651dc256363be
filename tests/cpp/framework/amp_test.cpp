// Tests of autocast (sampan/amp.h): the declared policies cast as documented, nothing else is
// touched, scopes nest and restore, overrides and bad names, gradients reach float32 weights,
// vjps compute the same inside a scope as outside, and a weight is cast once per scope.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <thread>

#include "sampan/amp.h"
#include "sampan/autograd.h"
#include "sampan/blas_info.h"
#include "sampan/ops.h"
#include "sampan/profiler.h"

using namespace sampan;

namespace {

void expect_equal(const Tensor& got, const Tensor& want) {
  ASSERT_EQ(got.dtype(), want.dtype());
  ASSERT_EQ(got.shape(), want.shape());
  Tensor g = got.to(DType::Float64).contiguous(), w = want.to(DType::Float64).contiguous();
  for (int64_t i = 0; i < g.numel(); ++i) EXPECT_EQ(g.data<double>()[i], w.data<double>()[i]) << "element " << i;
}

int64_t casts_in(const std::vector<profiler::OpStats>& rows) {
  int64_t n = 0;
  for (auto& r : rows) if (r.op == "core::cast" && !r.backward) n += r.calls;
  return n;
}

}  // namespace

TEST(Autocast, LowPrecisionOpsRunInTheScopeDtype) {
  Tensor x = randn({5, 7}), w = randn({7, 3});
  Tensor want = matmul(x.to(DType::BFloat16), w.to(DType::BFloat16));
  amp::Autocast ac(DeviceType::CPU, DType::BFloat16);
  EXPECT_TRUE(amp::is_enabled(DeviceType::CPU));
  EXPECT_FALSE(amp::is_enabled(DeviceType::CUDA));
  expect_equal(matmul(x, w), want);
  // float64 is left alone (as in PyTorch): a user who asked for float64 keeps it.
  EXPECT_EQ(matmul(x.to(DType::Float64), w.to(DType::Float64)).dtype(), DType::Float64);
}

TEST(Autocast, Float32OpsWidenLowPrecisionInputs) {
  Tensor h = randn({4, 6}).to(DType::BFloat16);
  EXPECT_EQ(exp(h).dtype(), DType::BFloat16);  // outside a scope the op keeps its input dtype
  Tensor want = sum(h.to(DType::Float32));
  {
    amp::Autocast ac(DeviceType::CPU, DType::BFloat16);
    expect_equal(sum(h), want);
    EXPECT_EQ(softmax(h, -1).dtype(), DType::Float32);
    EXPECT_EQ(exp(h).dtype(), DType::Float32);
    EXPECT_EQ(add(h, h).dtype(), DType::BFloat16);  // Keep: elementwise arithmetic stays as given
  }
  EXPECT_EQ(exp(h).dtype(), DType::BFloat16);  // the scope ended
}

TEST(Autocast, ScopesNestAndRestore) {
  Tensor x = randn({3, 3});
  amp::Autocast outer(DeviceType::CPU, DType::Float16);
  EXPECT_EQ(matmul(x, x).dtype(), DType::Float16);
  {
    amp::Autocast off(DeviceType::CPU, DType::BFloat16, false);
    EXPECT_FALSE(amp::is_enabled(DeviceType::CPU));
    EXPECT_EQ(matmul(x, x).dtype(), DType::Float32);
    {
      amp::Autocast inner(DeviceType::CPU, DType::BFloat16);
      EXPECT_EQ(matmul(x, x).dtype(), DType::BFloat16);
    }
    EXPECT_EQ(matmul(x, x).dtype(), DType::Float32);
  }
  EXPECT_EQ(amp::dtype_of(DeviceType::CPU), DType::Float16);
  EXPECT_EQ(matmul(x, x).dtype(), DType::Float16);
}

TEST(Autocast, OverridesMoveOpsBetweenListsForTheScope) {
  Tensor x = randn({3, 3});
  Tensor h = x.to(DType::BFloat16);
  {
    amp::Autocast ac(DeviceType::CPU, DType::BFloat16, true, {"core::add"}, {"matmul"});
    EXPECT_EQ(matmul(x, x).dtype(), DType::Float32);
    EXPECT_EQ(matmul(h, h).dtype(), DType::Float32);
    EXPECT_EQ(add(x, x).dtype(), DType::BFloat16);
  }
  amp::Autocast plain(DeviceType::CPU, DType::BFloat16);
  EXPECT_EQ(matmul(x, x).dtype(), DType::BFloat16);  // the overrides ended with their scope
  EXPECT_EQ(amp::policy_of(find_op("core::add")), AmpCast::Keep);
}

TEST(Autocast, BadArgumentsLeaveTheThreadAsItWas) {
  EXPECT_THROW(amp::Autocast(DeviceType::CPU, DType::BFloat16, true, {"no_such_op"}), ValueError);
  EXPECT_THROW(amp::Autocast(DeviceType::CPU, DType::BFloat16, true, {"matmul"}, {"core::matmul"}), ValueError);
  EXPECT_THROW(amp::Autocast(DeviceType::CPU, DType::Float64), ValueError);
  EXPECT_FALSE(amp::is_enabled(DeviceType::CPU));
  Tensor x = randn({2, 2});
  EXPECT_EQ(matmul(x, x).dtype(), DType::Float32);
}

TEST(Autocast, GradientsReachFloat32WeightsAndVjpsIgnoreTheScope) {
  Tensor x = randn({6, 4});
  Tensor w = randn({4, 5});
  w.requires_grad_();
  Tensor loss;
  {
    amp::Autocast ac(DeviceType::CPU, DType::BFloat16);
    loss = sum(matmul(x, w));
    EXPECT_EQ(loss.dtype(), DType::Float32);
  }
  backward({loss});
  Tensor g1 = w.grad();
  EXPECT_EQ(g1.dtype(), DType::Float32);
  // The same graph, differentiated inside a float16 scope: the vjp's matmul must not be recast.
  Tensor w2 = w.detach().clone();
  w2.requires_grad_();
  {
    amp::Autocast ac(DeviceType::CPU, DType::Float16);
    Tensor l2;
    {
      amp::Autocast bf(DeviceType::CPU, DType::BFloat16);
      l2 = sum(matmul(x, w2));
    }
    backward({l2});
  }
  expect_equal(w2.grad(), g1);
  // bfloat16 products of the same values: x^T @ ones, rounded to bfloat16, then widened.
  Tensor want = matmul(permute(x.to(DType::BFloat16), {1, 0}), ones({6, 5}, DType::BFloat16)).to(DType::Float32);
  expect_equal(g1, want);
}

TEST(Autocast, AWeightIsCastOncePerScopeUntilItChanges) {
  // Without a bfloat16 GEMM for this CPU (sp.bf16_gemm_library() "none (...)"), each bfloat16
  // matmul converts its two operands to float32 itself: two more casts per product.
  const int64_t own = bf16_gemm_library().rfind("none", 0) == 0 ? 2 : 0;
  Tensor w = randn({4, 4});
  w.requires_grad_();
  Tensor x1 = randn({2, 4}), x2 = randn({3, 4});
  profiler::start();
  {
    amp::Autocast ac(DeviceType::CPU, DType::BFloat16);
    matmul(x1, w);
    matmul(x2, w);  // w's cast is reused: 3 casts (x1, x2, w), not 4
  }
  EXPECT_EQ(casts_in(profiler::stop()), 3 + 2 * own);
  Tensor y;
  Tensor step = ones({4, 4});
  profiler::start();
  {
    amp::Autocast ac(DeviceType::CPU, DType::BFloat16);
    matmul(x1, w);
    {
      NoGradGuard ng;
      add_(w, step);  // an in-place update: the cached cast is stale
    }
    y = matmul(x1, w);
  }
  EXPECT_EQ(casts_in(profiler::stop()), 4 + 2 * own);
  expect_equal(y, matmul(x1.to(DType::BFloat16), w.detach().to(DType::BFloat16)));
}

TEST(Autocast, ListsComeFromTheOpDeclarations) {
  auto low = amp::ops_with_policy(AmpCast::LowPrecision);
  auto f32 = amp::ops_with_policy(AmpCast::Float32);
  EXPECT_NE(std::find(low.begin(), low.end(), "core::matmul"), low.end());
  EXPECT_NE(std::find(f32.begin(), f32.end(), "core::softmax"), f32.end());
  EXPECT_EQ(std::find(f32.begin(), f32.end(), "core::add"), f32.end());
  for (auto& n : low) EXPECT_EQ(find_op(n).amp, AmpCast::LowPrecision) << n;
}

TEST(Autocast, InnermostIsTheLastOpenedScopeOfThisThread) {
  auto outer = std::make_unique<amp::Autocast>(DeviceType::CPU, DType::BFloat16);
  EXPECT_TRUE(outer->innermost());
  {
    amp::Autocast inner(DeviceType::CPU, DType::BFloat16, false);
    EXPECT_TRUE(inner.innermost());
    EXPECT_FALSE(outer->innermost());
    bool other_thread = true;
    std::thread([&] { other_thread = inner.innermost(); }).join();
    EXPECT_FALSE(other_thread) << "a scope is innermost only on the thread that opened it";
  }
  EXPECT_TRUE(outer->innermost());
  outer.reset();
  EXPECT_FALSE(amp::is_enabled(DeviceType::CPU));
}
