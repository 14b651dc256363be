// sampan: the op profiler. While it runs, every op call (built-in or a user's, forward or inside
// a backward pass) is timed where all calls pass, in call_op, and summed per op, pass and, if
// asked, input shapes. Off, it costs one relaxed atomic load per op call.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace sampan {

struct OpSchema;

namespace profiler {

/// The clock an op call is timed with: wall time, or the CPU time of the calling thread (which
/// leaves out the waits for a core on a loaded machine, and also the work of other threads the op
/// starts, such as OpenMP or BLAS threads).
enum class Clock { Wall, ThreadCpu };

struct Options {
  bool record_shapes = false;  // one row per (op, pass, input shapes) instead of per (op, pass)
  Clock clock = Clock::Wall;
};

/// One row: the calls of one op in one pass (and with one set of input shapes, if recorded).
struct OpStats {
  std::string op;      // "core::matmul"
  bool backward = false;  // called inside a backward pass (a vjp, or the engine's gradient sums)
  std::string shapes;  // "[32, 300], [300, 600]" (tensor arguments in order; empty unless recorded)
  int64_t calls = 0;
  double total_ns = 0;  // time inside the calls, ops they call included
  double self_ns = 0;   // total_ns minus the time of the op calls made inside them
};

/// Starts collecting; throws RuntimeError if the profiler is already running.
void start(const Options& options = {});
/// Stops and returns the rows, largest self time first; throws RuntimeError if not running.
std::vector<OpStats> stop();
bool is_running();

namespace detail {
/// A test hook: the profiler reads its clock through `fn` (given the clock asked for, returns
/// nanoseconds) instead of the real clocks; nullptr restores them. Lets a test give op calls
/// exact durations instead of asserting on the machine's timing.
using ClockFn = double (*)(Clock);
void set_clock_for_testing(ClockFn fn);

extern std::atomic<bool> g_running;
inline bool running() { return g_running.load(std::memory_order_relaxed); }
/// Whether the running profiler wants input shapes (call_op formats them only then).
bool record_shapes();

/// Times one op call (constructed in call_op only while the profiler runs).
class OpScope {
 public:
  OpScope(const OpSchema& op, std::string shapes);
  ~OpScope();
  OpScope(const OpScope&) = delete;
  OpScope& operator=(const OpScope&) = delete;

 private:
  const OpSchema& op_;
  std::string shapes_;
  OpScope* parent_;
  uint64_t session_;
  double start_ns_ = 0;
  double children_ns_ = 0;
};

/// Marks the calling thread as running a backward pass (the autograd engine holds one).
class BackwardScope {
 public:
  BackwardScope();
  ~BackwardScope();
  BackwardScope(const BackwardScope&) = delete;
  BackwardScope& operator=(const BackwardScope&) = delete;

 private:
  bool previous_;
};
}  // namespace detail

}  // namespace profiler
}  // namespace sampan
