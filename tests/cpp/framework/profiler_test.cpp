// The op profiler: rows per op, pass and shapes; self time of ops that call ops; the backward
// pass; which clock a session reads; start/stop errors. Durations come from a fake clock (the
// profiler's test hook) that the test ops below advance by exact amounts, so the sums are
// checked exactly and no assertion depends on how fast or loaded the machine is. One test
// checks the real clocks, by orderings that hold on any machine.
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

// The fake clocks: an op call "takes" what the ops inside it add to them.
double g_wall_ns = 0, g_cpu_ns = 0;
double fake_clock(profiler::Clock c) { return c == profiler::Clock::Wall ? g_wall_ns : g_cpu_ns; }
struct FakeClock {
  FakeClock() { profiler::detail::set_clock_for_testing(fake_clock); }
  ~FakeClock() { profiler::detail::set_clock_for_testing(nullptr); }
};

// Copies x (float32) to out without calling an op, so that no op runs inside it.
void copy_floats(const Tensor& x, Tensor& out) {
  std::memcpy(out.data<float>(), x.contiguous().data<float>(), sizeof(float) * x.numel());
}

// An op that takes `ns` of fake wall time and a quarter of that of fake CPU time; returns x.
SAMPAN_OP(test, profiler_tick)
    .args("x", "ns")
    .outputs("out")
    .nondifferentiable()
    .shape([](const TensorSpec& x, int64_t) { return x; })
    .cpu([](const Tensor& x, int64_t ns, Tensor& out) {
      g_wall_ns += static_cast<double>(ns);
      g_cpu_ns += static_cast<double>(ns) / 4;
      copy_floats(x, out);
    });

// An op that calls the one above twice (2000 ns each) and takes 500 ns of its own in between.
SAMPAN_OP(test, profiler_twice)
    .args("x")
    .outputs("out")
    .nondifferentiable()
    .shape([](const TensorSpec& x) { return x; })
    .cpu([](const Tensor& x, Tensor& out) {
      Tensor a = call_op("test::profiler_tick", {x, int64_t{2000}})[0];
      g_wall_ns += 500;
      g_cpu_ns += 125;
      Tensor b = call_op("test::profiler_tick", {a, int64_t{2000}})[0];
      copy_floats(b, out);
    });

// An op that sleeps `ms` milliseconds of real time (wall time passes, CPU time does not).
SAMPAN_OP(test, profiler_sleep)
    .args("x", "ms")
    .outputs("out")
    .nondifferentiable()
    .shape([](const TensorSpec& x, int64_t) { return x; })
    .cpu([](const Tensor& x, int64_t ms, Tensor& out) {
      std::this_thread::sleep_for(std::chrono::milliseconds(ms));
      copy_floats(x, out);
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
  FakeClock clock;
  profiler::start();
  call_op("test::profiler_twice", {ones({2})});
  auto rows = profiler::stop();
  const auto* outer = find_row(rows, "test::profiler_twice", false);
  const auto* inner = find_row(rows, "test::profiler_tick", false);
  ASSERT_NE(outer, nullptr);
  ASSERT_NE(inner, nullptr);
  EXPECT_EQ(outer->calls, 1);
  EXPECT_EQ(inner->calls, 2);
  EXPECT_EQ(inner->total_ns, 4000);  // two calls of 2000 ns
  EXPECT_EQ(inner->self_ns, 4000);
  EXPECT_EQ(outer->total_ns, 4500);  // the calls inside it included
  EXPECT_EQ(outer->self_ns, 500);    // self = total - the ops it called
  // Largest self time first: the op that is called, not the one that calls it.
  EXPECT_EQ(rows.front().op, "test::profiler_tick");
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

TEST(Profiler, ASessionReadsTheClockItWasStartedWith) {
  StopAtExit guard;
  FakeClock clock;
  profiler::Options wall, cpu;
  cpu.clock = profiler::Clock::ThreadCpu;
  profiler::start(wall);
  call_op("test::profiler_twice", {ones({2})});
  auto wall_rows = profiler::stop();
  profiler::start(cpu);
  call_op("test::profiler_twice", {ones({2})});
  auto cpu_rows = profiler::stop();
  const auto* w = find_row(wall_rows, "test::profiler_twice", false);
  const auto* c = find_row(cpu_rows, "test::profiler_twice", false);
  ASSERT_NE(w, nullptr);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(w->total_ns, 4500);
  EXPECT_EQ(w->self_ns, 500);
  EXPECT_EQ(c->total_ns, 1125);  // the fake CPU clock runs at a quarter of the wall clock
  EXPECT_EQ(c->self_ns, 125);
}

TEST(Profiler, RealClocksAreWallTimeAndTheThreadsCpuTime) {
  // Orderings that hold on any machine, however loaded: the op call lies inside this test's own
  // steady_clock interval and sleeps 20 ms in it, so its wall time is at least 20 ms and at most
  // the interval; a sleeping thread runs on no core, so its CPU time is at most the interval
  // less the sleep (1 ms of slack for entering the sleep and for the two clocks' sources).
  StopAtExit guard;
  auto interval_ns = [](auto t0) {
    return std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  };
  profiler::Options wall, cpu;
  cpu.clock = profiler::Clock::ThreadCpu;
  profiler::start(wall);
  auto t0 = std::chrono::steady_clock::now();
  call_op("test::profiler_sleep", {ones({2}), int64_t{20}});
  const double wall_interval = interval_ns(t0);
  auto wall_rows = profiler::stop();
  profiler::start(cpu);
  t0 = std::chrono::steady_clock::now();
  call_op("test::profiler_sleep", {ones({2}), int64_t{20}});
  const double cpu_interval = interval_ns(t0);
  auto cpu_rows = profiler::stop();
  const auto* w = find_row(wall_rows, "test::profiler_sleep", false);
  const auto* c = find_row(cpu_rows, "test::profiler_sleep", false);
  ASSERT_NE(w, nullptr);
  ASSERT_NE(c, nullptr);
  EXPECT_GE(w->total_ns, 20e6);
  EXPECT_LE(w->total_ns, wall_interval);
  EXPECT_GE(c->total_ns, 0);
  EXPECT_LE(c->total_ns, cpu_interval - 20e6 + 1e6);
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
