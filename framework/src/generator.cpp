// sampan: Generator, the (seed, offset) pair random ops draw from (see sampan/generator.h).
#include "sampan/generator.h"

namespace sampan {

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mutex_);
  seed_ = seed;
  offset_ = 0;
}
uint64_t Generator::seed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return seed_;
}
uint64_t Generator::offset() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return offset_;
}
Generator::State Generator::reserve(uint64_t n) {
  std::lock_guard<std::mutex> lock(mutex_);
  State s{seed_, offset_};
  offset_ += n;
  return s;
}
Generator::State Generator::state() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return {seed_, offset_};
}
void Generator::set_state(const State& s) {
  std::lock_guard<std::mutex> lock(mutex_);
  seed_ = s.seed;
  offset_ = s.offset;
}

Generator& default_generator() {
  static Generator g;
  return g;
}
void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }

}  // namespace sampan
