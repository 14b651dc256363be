// Tests of buffer donation (.output_may_reuse): an op writes its output over an input buffer only
// when its call holds the input's only handle and nothing else can see the memory; gradients that
// flow between vjps are such buffers, so a backward pass needs fewer of them at once.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "sampan/allocator.h"
#include "sampan/autograd.h"
#include "sampan/generator.h"
#include "sampan/op.h"
#include "sampan/ops.h"

using namespace sampan;

namespace {

SAMPAN_OP(test, takes_twice)
    .args("x")
    .shape([](const TensorSpec& x) { return x; })
    .cpu([](const Tensor& x, Tensor& out) { copy_(out, x); })
    .vjp([](const VjpContext& c) -> Grads {
      Tensor g = c.take_grad_output(0);
      return {add(g, c.grad_output(0))};  // asks again after handing it over: a bug
    })
    .saves_for_vjp({})
    .sample([] { return Values{from_vector({1.0}, {1})}; });

struct DonationGuard {
  bool before = buffer_donation_enabled();
  explicit DonationGuard(bool enabled) { set_buffer_donation(enabled); }
  ~DonationGuard() { set_buffer_donation(before); }
};

const OpHandle relu_op("core::relu"), add_op("core::add"), mul_op("core::mul");

Tensor values(std::vector<double> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return from_vector(std::move(v), {n});
}

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() &&
         std::memcmp(a.contiguous().raw_data(), b.contiguous().raw_data(), a.nbytes()) == 0;
}

}  // namespace

TEST(BufferDonation, AnInputTheCallAloneHoldsBecomesTheOutput) {
  DonationGuard on(true);
  Tensor t = values({-1.5, 2.0, -0.25, 3.0});
  const Tensor want = relu(t.clone());
  const void* buffer = t.raw_data();
  Tensor r = relu_op(std::move(t))[0];
  EXPECT_EQ(r.raw_data(), buffer);
  EXPECT_TRUE(same_bits(r, want));
  // the second operand of a binary op too
  Tensor a = values({1, 2, 3, 4}), b = values({0.5, 0.25, 0.125, 2});
  const void* b_buffer = b.raw_data();
  Tensor s = add_op(a, std::move(b))[0];
  EXPECT_EQ(s.raw_data(), b_buffer);
  EXPECT_TRUE(same_bits(s, values({1.5, 2.25, 3.125, 6})));
}

TEST(BufferDonation, NothingThatAnotherHandleOrViewCanSeeIsWrittenOver) {
  DonationGuard on(true);
  Tensor kept = values({-1, 2, -3, 4});
  Tensor r = relu_op(kept)[0];  // the caller keeps its handle
  EXPECT_NE(r.raw_data(), kept.raw_data());
  EXPECT_TRUE(same_bits(kept, values({-1, 2, -3, 4})));

  Tensor base = values({-1, 2, -3, 4});
  Tensor view = slice(base, 0, 1, 3);
  const void* buffer = base.raw_data();
  Tensor r2 = relu_op(std::move(base))[0];  // the view shares the storage
  EXPECT_NE(r2.raw_data(), buffer);
  EXPECT_TRUE(same_bits(view, values({2, -3})));

  Tensor small = values({1, 2});
  Tensor wide = from_vector({1, 2, 3, 4, 5, 6}, {3, 2});
  const void* small_buffer = small.raw_data();
  Tensor sum = add_op(std::move(small), wide)[0];  // broadcast: the output is larger
  EXPECT_NE(sum.raw_data(), small_buffer);

  Tensor ints = from_vector({1, 2}, {2}, DType::Int64);
  const void* int_buffer = ints.raw_data();
  Tensor promoted = add_op(std::move(ints), values({0.5, 0.5}))[0];  // int64 + float64: another dtype
  EXPECT_NE(promoted.raw_data(), int_buffer);
  EXPECT_TRUE(same_bits(promoted, values({1.5, 2.5})));
}

TEST(BufferDonation, WhatTheTapeKeepsIsNotDonatedWhatItDropsIs) {
  DonationGuard on(true);
  Tensor w = values({1, -2, 3}).requires_grad_();
  Tensor h = w * 2.0, k = w * 3.0;
  const void* h_buffer = h.raw_data();
  Tensor p = mul_op(std::move(h), k)[0];  // mul's vjp reads both operands
  EXPECT_NE(p.raw_data(), h_buffer);
  Tensor q = w * 5.0;
  const void* q_buffer = q.raw_data();
  Tensor s = add_op(std::move(q), p)[0];  // add's reads neither
  EXPECT_EQ(s.raw_data(), q_buffer);
  sum(s).backward();  // d/dw (6 w^2 + 5 w) = 12 w + 5
  EXPECT_TRUE(same_bits(w.grad(), values({17, -19, 41})));
}

TEST(BufferDonation, TheSwitchTurnsItOff) {
  DonationGuard off(false);
  Tensor t = values({-1, 2});
  const void* buffer = t.raw_data();
  Tensor r = relu_op(std::move(t))[0];
  EXPECT_NE(r.raw_data(), buffer);
}

// A chain of relus and products: the backward pass hands each gradient to the next vjp, which
// writes over it; the gradients are the same bits and the pass needs fewer buffers at once.
TEST(BufferDonation, ABackwardPassNeedsLessMemoryForTheSameGradients) {
  auto run = [](bool donation) {
    DonationGuard guard(donation);
    manual_seed(11);
    Tensor x = randn({1 << 16}, DType::Float64).requires_grad_();
    Tensor m = randn({1 << 16}, DType::Float64);  // a constant factor (a dropout mask's role)
    Tensor h = x;
    for (int k = 0; k < 4; ++k) h = relu(h * m + 0.1);
    Tensor loss = sum(h);
    Allocator& cpu = allocator_for(DeviceType::CPU);
    const size_t base = cpu.bytes_in_use();
    cpu.reset_peak();
    loss.backward();
    return std::make_pair(x.grad().clone(), cpu.peak_bytes() - base);
  };
  auto [g_on, peak_on] = run(true);
  auto [g_off, peak_off] = run(false);
  EXPECT_TRUE(same_bits(g_on, g_off));
  EXPECT_LT(peak_on, peak_off);
}

TEST(BufferDonation, AskingForAGradientAfterHandingItOverRaisesNamingTheOp) {
  Tensor x = values({1.0}).requires_grad_();
  Tensor y = call_op("test::takes_twice", {x})[0];
  try {
    sum(y).backward();
    FAIL() << "grad_output after take_grad_output";
  } catch (const RuntimeError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("test::takes_twice"), std::string::npos) << m;
    EXPECT_NE(m.find("take_grad_output(0)"), std::string::npos) << m;
  }
}
