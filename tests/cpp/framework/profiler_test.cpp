// The op profiler: rows per op, pass and shapes; self time of ops that call ops; the backward
// pass; the two clocks; start/stop errors.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "sampan/autograd.h"
#include "sampan/op.h"
#include "sampan/ops.h"
#include "sampan/profiler.h"
#include "../thrown_message.h"

using namespace sampan;

namespace {

// An op that sleeps `ms` milliseconds (wall time passes, CPU time does not) and returns x
// (float32; copied without calling an op, so that no op runs inside it).
SAMPAN_OP(test, profiler_sleep)
    .args("x", "ms")
    .outputs("out")
    .nondifferentiable()
    .shape([](const TensorSpec& x, int64_t) { return x; })
    .cpu([](const Tensor& x, int64_t ms, Tensor& out) {
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      std::memcpy(out.data<float>(), x.contiguous().data<float>(), sizeof(float) * x.numel());
    });

// An op whose kernel calls the one above twice: its self time leaves those calls out.
SAMPAN_OP(test, profiler_twice)
    .args("x")
    .outputs("out")
    .nondifferentiable()
    .shape([](const TensorSpec& x) { return x; })
    .cpu([](const Tensor& x, Tensor& out) {
      Tensor a = call_op("test::profiler_sleep", {x, int64_t{2}})[0];
      Tensor b = call_op("test::profiler_sleep", {a, int64_t{2}})[0];
      std::memcpy(out.data<float>(), b.data<float>(), sizeof(float) * b.numel());
    });

const profiler::OpStats* find_row(const std::vector<profiler::OpStats>& rows, const std::string& op,
                                  bool backward, const std::string& shapes = "") {
  for (auto& r : rows)
    if (r.op == op && r.backward == backward && r.shapes == shapes) return &r;
  return nullptr;
}

// Stops the profiler if a failed assertion left it running, so that later tests can start it.
struct StopAtExit {
  ~StopAtExit() {
    if (profiler::is_running()) profiler::stop();
  }
};

}  // namespace

TEST(Profiler, CountsCallsPerOpAndPerShape) {
  StopAtExit guard;
  Tensor a = ones({2, 3}), b = ones({2, 3}), c = ones({4});
  profiler::start();
  for (int i = 0; i < 3; ++i) add(a, b);
  for (int i = 0; i < 2; ++i) add(c, c);
  auto rows = profiler::stop();
  const auto* r = find_row(rows, "core::add", false);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->calls, 5);
  EXPECT_GE(r->total_ns, r->self_ns);
  EXPECT_GT(r->self_ns, 0);

  profiler::Options with_shapes;
  with_shapes.record_shapes = true;
  profiler::start(with_shapes);
  for (int i = 0; i < 3; ++i) add(a, b);
  for (int i = 0; i < 2; ++i) add(c, c);
  rows = profiler::stop();
  const auto* r23 = find_row(rows, "core::add", false, "[2, 3], [2, 3]");
  const auto* r4 = find_row(rows, "core::add", false, "[4], [4]");
  ASSERT_NE(r23, nullptr);
  ASSERT_NE(r4, nullptr);
  EXPECT_EQ(r23->calls, 3);
  EXPECT_EQ(r4->calls, 2);
}

TEST(Profiler, RecordsNothingWhenStoppedAndStartsEmpty) {
  StopAtExit guard;
  Tensor a = ones({3});
  profiler::start();
  profiler::stop();
  add(a, a);  // between sessions: not recorded anywhere
  profiler::start();
  auto rows = profiler::stop();
  EXPECT_TRUE(rows.empty()) << rows.size() << " rows, first " << rows[0].op;
}

TEST(Profiler, SelfTimeLeavesOutTheOpsAnOpCalls) {
  StopAtExit guard;
  profiler::start();
  call_op("test::profiler_twice", {ones({2})});
  auto rows = profiler::stop();
  const auto* outer = find_row(rows, "test::profiler_twice", false);
  const auto* inner = find_row(rows, "test::profiler_sleep", false);
  ASSERT_NE(outer, nullptr);
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(outer->calls, 1);
  EXPECT_EQ(inner->calls, 2);
  EXPECT_GE(inner->total_ns, 4e6);  // two sleeps of 2 ms
  EXPECT_GE(outer->total_ns, inner->total_ns);
  EXPECT_NEAR(outer->self_ns, outer->total_ns - inner->total_ns, 1.0);
  // Largest self time first: the sleeping op, not the one that calls it.
  EXPECT_EQ(rows.front().op, "test::profiler_sleep");
}

TEST(Profiler, FilesTheOpsOfABackwardPassAsBackward) {
  StopAtExit guard;
  Tensor x = from_vector({1.0, 2.0, 3.0}, {3}).requires_grad_(true);
  profiler::start();
  Tensor y = sum(mul(x, x));
  backward({y});
  auto rows = profiler::stop();
  ASSERT_NE(find_row(rows, "core::mul", false), nullptr);
  ASSERT_NE(find_row(rows, "core::sum", false), nullptr);
  int backward_calls = 0;
  for (auto& r : rows)
    if (r.backward) backward_calls += static_cast<int>(r.calls);
  EXPECT_GT(backward_calls, 0);  // the vjps of sum and mul run ops
  EXPECT_EQ(find_row(rows, "core::mul", false)->calls, 1);  // the forward product alone
  EXPECT_DOUBLE_EQ(x.grad().data<double>()[2], 6.0);
}

TEST(Profiler, ThreadCpuClockLeavesOutSleep) {
  StopAtExit guard;
  profiler::Options wall, cpu;
  cpu.clock = profiler::Clock::ThreadCpu;
  profiler::start(wall);
  call_op("test::profiler_sleep", {ones({2}), int64_t{30}});
  auto wall_rows = profiler::stop();
  profiler::start(cpu);
  call_op("test::profiler_sleep", {ones({2}), int64_t{30}});
  auto cpu_rows = profiler::stop();
  const auto* w = find_row(wall_rows, "test::profiler_sleep", false);
  const auto* c = find_row(cpu_rows, "test::profiler_sleep", false);
  ASSERT_NE(w, nullptr);
  ASSERT_NE(c, nullptr);
  EXPECT_GE(w->total_ns, 30e6);  // the sleep passed in wall time
  EXPECT_LT(c->total_ns, 15e6);  // but a sleeping thread uses no CPU
}

TEST(Profiler, StartTwiceOrStopUnstartedIsAnError) {
  StopAtExit guard;
  EXPECT_NE(test::thrown_message([] { profiler::stop(); }).find("not running"), std::string::npos);
  profiler::start();
  EXPECT_NE(test::thrown_message([] { profiler::start(); }).find("already running"), std::string::npos);
  EXPECT_TRUE(profiler::is_running());
  profiler::stop();
  EXPECT_FALSE(profiler::is_running());
}
