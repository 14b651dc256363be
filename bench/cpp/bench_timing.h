// The benchmarks' wall clock: seconds that one call of f takes (steady_clock).
#pragma once

#include <chrono>
#include <functional>

namespace sampan::bench {

inline double seconds(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace sampan::bench
