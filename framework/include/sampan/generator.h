// sampan: random number generators.
//
// Design. Every random op (core::rand, randn, randint, bernoulli, randperm) is a pure function of
// its shape, its parameters and two int attributes, `seed` and `offset`: element i of the result
// is computed from the Philox4x32-10 block of counter (i, offset) under key `seed`
// (framework/src/kernels/philox.h). Hence
//   - results do not depend on the number of threads, nor on how the work is split;
//   - a Generator holds only (seed, offset). The C++ API functions (ops/random.h) take a
//     Generator (the default one unless given), reserve one draw from it, which advances its
//     offset by one, and pass (seed, offset) to the op;
//   - the op call records both attributes, so a traced graph replays exactly the recorded draw.
//     A graph runner that wants fresh numbers on every replay rewrites the `offset` attribute
//     of random ops from a live generator (gen.reserve().offset) before running them.
// Generators are thread-safe (reserve() is atomic with respect to manual_seed()).
#pragma once

#include <cstdint>
#include <mutex>

namespace sampan {

class Generator {
 public:
  /// The seed of the default generator until manual_seed() is called.
  static constexpr uint64_t kDefaultSeed = 0x5A3DA6C0FFEEull;

  explicit Generator(uint64_t seed = kDefaultSeed) : seed_(seed) {}
  Generator(const Generator& o) { auto s = o.state(); seed_ = s.seed; offset_ = s.offset; }
  Generator& operator=(const Generator& o) {
    auto s = o.state();
    set_state(s);
    return *this;
  }

  /// Restarts the stream: the seed becomes `seed` and the offset 0.
  void manual_seed(uint64_t seed);
  uint64_t seed() const;
  /// Draws reserved so far.
  uint64_t offset() const;

  /// Everything needed to resume the stream (e.g. in a checkpoint).
  struct State {
    uint64_t seed = kDefaultSeed;
    uint64_t offset = 0;
  };
  /// Reserves `n` consecutive draws: returns the seed and the first draw's offset, and advances
  /// the offset by n (one atomic step).
  State reserve(uint64_t n = 1);
  State state() const;
  void set_state(const State& s);

 private:
  mutable std::mutex mutex_;
  uint64_t seed_ = kDefaultSeed;
  uint64_t offset_ = 0;
};

/// The process-wide generator used when none is given.
Generator& default_generator();
/// Reseeds the default generator (offset back to 0), like torch.manual_seed.
void manual_seed(uint64_t seed);

}  // namespace sampan
