// sampan: the op profiler (sampan/profiler.h). Rows are summed under one mutex: it is taken once
// per op call and only while the profiler runs, when a few tens of nanoseconds per call are
// small against the microseconds an op call costs.
#include "sampan/profiler.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <unordered_map>

#include "sampan/error.h"
#include "sampan/op.h"

namespace sampan::profiler {

namespace detail {
std::atomic<bool> g_running{false};
}  // namespace detail

namespace {

struct State {
  std::mutex mutex;  // guards rows
  std::unordered_map<std::string, OpStats> rows;
  // Read by op calls without the lock. start() sets them before g_running turns true.
  std::atomic<uint64_t> session{0};  // counts start() calls; a call begun in an earlier one is not summed
  std::atomic<bool> record_shapes{false};
  std::atomic<Clock> clock{Clock::Wall};
};

State& state() {
  static State s;
  return s;
}

std::atomic<detail::ClockFn> g_test_clock{nullptr};  // set by tests only

thread_local detail::OpScope* t_current = nullptr;  // the innermost op call being timed here
thread_local bool t_backward = false;

double now_ns(Clock clock) {
  if (detail::ClockFn fn = g_test_clock.load(std::memory_order_relaxed)) return fn(clock);
  if (clock == Clock::ThreadCpu) {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
  }
  return static_cast<double>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

Clock current_clock() { return state().clock.load(std::memory_order_relaxed); }

}  // namespace

void start(const Options& options) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (detail::g_running.load()) SAMPAN_THROW(RuntimeError, "profiler::start: the profiler is already running");
  s.record_shapes.store(options.record_shapes);
  s.clock.store(options.clock);
  s.rows.clear();
  s.session.fetch_add(1);
  detail::g_running.store(true);
}

std::vector<OpStats> stop() {
  State& s = state();
  std::vector<OpStats> out;
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    SAMPAN_CHECK(detail::g_running.load(), RuntimeError, "profiler::stop: the profiler is not running");
    detail::g_running.store(false);
    out.reserve(s.rows.size());
    for (auto& [key, row] : s.rows) out.push_back(std::move(row));
    s.rows.clear();
  }
  std::sort(out.begin(), out.end(), [](const OpStats& a, const OpStats& b) {
    if (a.self_ns != b.self_ns) return a.self_ns > b.self_ns;
    if (a.op != b.op) return a.op < b.op;
    if (a.backward != b.backward) return !a.backward;
    return a.shapes < b.shapes;
  });
  return out;
}

bool is_running() { return detail::g_running.load(); }

namespace detail {

bool record_shapes() { return state().record_shapes.load(std::memory_order_relaxed); }

void set_clock_for_testing(ClockFn fn) { g_test_clock.store(fn); }

OpScope::OpScope(const OpSchema& op, std::string shapes)
    : op_(op), shapes_(std::move(shapes)), parent_(t_current), session_(state().session.load()) {
  t_current = this;
  start_ns_ = now_ns(current_clock());
}

OpScope::~OpScope() {
  const double elapsed = now_ns(current_clock()) - start_ns_;
  t_current = parent_;
  if (parent_) parent_->children_ns_ += elapsed;
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (!g_running.load() || s.session != session_) return;
  std::string key = op_.name;
  key += t_backward ? "\x1f" "b\x1f" : "\x1f" "f\x1f";
  key += shapes_;
  OpStats& row = s.rows[key];
  if (row.calls == 0) {
    row.op = op_.name;
    row.backward = t_backward;
    row.shapes = shapes_;
  }
  row.calls += 1;
  row.total_ns += elapsed;
  row.self_ns += std::max(0.0, elapsed - children_ns_);
}

BackwardScope::BackwardScope() : previous_(t_backward) { t_backward = true; }
BackwardScope::~BackwardScope() { t_backward = previous_; }

}  // namespace detail

}  // namespace sampan::profiler
