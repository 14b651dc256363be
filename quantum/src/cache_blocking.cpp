// sampan quantum: cache-blocked circuit execution (see cache_blocking.h).
//
// Planning, in logical qubits. Stage selection walks the remaining units in order with a local
// set S (at most b qubits) and a blocked set: a unit joins the stage when it touches no blocked
// qubit and its targets fit S; otherwise all its qubits become blocked (a later unit on them
// must wait for it, a later unit on other qubits commutes with it and may go ahead). The first
// remaining unit always joins (or, with more than b targets, runs alone on the whole state), so
// every stage makes progress. Then S is made local: the high logical qubits that S does not need
// go home (the invariant of the header), and each needed qubit still above b trades places with
// a low logical qubit outside S, the one used latest (Belady's choice).
#include "cache_blocking.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <numeric>

#include "fusion.h"
#include "gate_apply.h"
#include "kernels/gates.h"
#include "kernels/qubit_swap.h"
#include "sampan/error.h"

#ifdef _OPENMP
#include <omp.h>
#endif

namespace sampan::quantum {

namespace {

// Measured on the development box (Zen 4, 1 MiB L2 per core; docs/quantum-measurements.md,
// "Cache-blocked execution"): 2^15 amplitudes = 512 KiB, half the L2.
constexpr int kDefaultBlockQubits = 15;
constexpr int kMinBlockQubits = 2, kMaxBlockQubits = 30;

bool initial_blocking() {
  const char* env = std::getenv("SAMPAN_QUANTUM_CACHE_BLOCKING");
  return !(env && std::strcmp(env, "0") == 0);
}
bool& blocking_flag() {
  static bool flag = initial_blocking();
  return flag;
}

int env_block_qubits() {
  const char* env = std::getenv("SAMPAN_QUANTUM_BLOCK_QUBITS");
  if (!env || !*env) return kDefaultBlockQubits;
  char* end = nullptr;
  const long b = std::strtol(env, &end, 10);
  SAMPAN_CHECK(*end == '\0' && b >= kMinBlockQubits && b <= kMaxBlockQubits, ValueError,
               "SAMPAN_QUANTUM_BLOCK_QUBITS: expected an integer from ", kMinBlockQubits, " to ", kMaxBlockQubits,
               " (log2 of the amplitudes per cache block), got '", env, "'");
  return static_cast<int>(b);
}
int& block_qubits_override() {
  static int b = 0;  // 0: the environment's value or the default
  return b;
}

uint64_t bit(int q) { return uint64_t(1) << q; }

// Stand-ins for the opcode apply() dispatches on: a fused block (dense, never `fast`) and the
// planner's local permutations.
const Gate kDenseUnit{kUnitary, {}, {}};
const Gate kSwapUnit{kSWAP, {}, {}};

// One unit of the schedule in logical qubits.
struct Unit {
  const Gate* gate;
  Resolved r;
  uint64_t need = 0;  // targets: must be local
  uint64_t all = 0;   // targets and controls
};

// A unit in physical qubits: r.cmask holds the controls below b, high_cmask those above.
struct PhysOp {
  const Gate* gate;
  Resolved r;
  uint64_t high_cmask = 0;
};

struct Step {
  enum Kind { kBlocked, kGlobal, kSwap } kind;
  std::vector<PhysOp> ops;  // kBlocked: every block, in order; kGlobal: one op on the whole state
  std::vector<int> high;    // kSwap: exchanged with the top high.size() local qubits
  bool only_block0 = false;
};

class Planner {
 public:
  Planner(int n, int b, bool zero_state) : n_(n), b_(b), pos_(static_cast<size_t>(n)), at_(static_cast<size_t>(n)),
                                           zero_(zero_state) {
    std::iota(pos_.begin(), pos_.end(), 0);
    std::iota(at_.begin(), at_.end(), 0);
  }

  std::vector<Step> plan(const std::vector<Unit>& units) {
    std::vector<size_t> remaining(units.size());
    std::iota(remaining.begin(), remaining.end(), 0);
    while (!remaining.empty()) {
      const Unit& first = units[remaining[0]];
      if (__builtin_popcountll(first.need) > b_) {
        Step s{Step::kGlobal, {physical(first, /*global=*/true)}, {}, false};
        steps_.push_back(std::move(s));
        zero_ = false;
        ++summary_.global_units;
        remaining.erase(remaining.begin());
        continue;
      }
      uint64_t S = 0, blocked = 0;
      std::vector<size_t> run, rest;
      for (size_t u : remaining) {
        const Unit& x = units[u];
        if (!(x.all & blocked) && __builtin_popcountll(S | x.need) <= b_) {
          S |= x.need;
          run.push_back(u);
        } else {
          blocked |= x.all;
          rest.push_back(u);
        }
      }
      make_local(S, units, rest);
      Step s{Step::kBlocked, {}, {}, zero_};
      for (size_t u : run) s.ops.push_back(physical(units[u], false));
      steps_.push_back(std::move(s));
      ++summary_.blocked_stages;
      zero_ = false;
      remaining = std::move(rest);
    }
    restore();
    return std::move(steps_);
  }

  const BlockedPlanSummary& summary() const { return summary_; }

 private:
  PhysOp physical(const Unit& u, bool global) const {
    PhysOp op{u.gate, u.r, 0};
    for (int& t : op.r.targets) t = pos_[static_cast<size_t>(t)];
    uint64_t cm = 0;
    for (uint64_t m = u.r.cmask; m; m &= m - 1) cm |= bit(pos_[static_cast<size_t>(__builtin_ctzll(m))]);
    const uint64_t low = global ? ~uint64_t(0) : bit(b_) - 1;
    op.r.cmask = cm & low;
    op.high_cmask = cm & ~low;
    return op;
  }

  void exchange(int p, int q) {  // physical positions p and q trade their logical qubits
    std::swap(at_[static_cast<size_t>(p)], at_[static_cast<size_t>(q)]);
    pos_[static_cast<size_t>(at_[static_cast<size_t>(p)])] = p;
    pos_[static_cast<size_t>(at_[static_cast<size_t>(q)])] = q;
  }

  // The blocked step that local permutations join: the last step when it is a blocked stage
  // (the permutation then runs in the cache after its units), else a new pass of its own.
  Step& permutation_step() {
    if (steps_.empty() || steps_.back().kind != Step::kBlocked) {
      steps_.push_back(Step{Step::kBlocked, {}, {}, false});
      ++summary_.blocked_stages;
    }
    return steps_.back();
  }

  // Moves logical qubit l to the low physical position p (both < b after the move).
  void local_move(int l, int p) {
    const int from = pos_[static_cast<size_t>(l)];
    if (from == p) return;
    if (!zero_) {
      Resolved r;
      r.targets = {from, p};
      r.m = {1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1};
      r.fast = true;
      permutation_step().ops.push_back(PhysOp{&kSwapUnit, std::move(r), 0});
      ++summary_.local_swaps;
    }
    exchange(from, p);
  }

  // One swap pass: each (high position, evictee) pair trades places. The evictees first move to
  // the top k local positions, in the cache; one already there keeps its position.
  void swap_pass(const std::vector<std::pair<int, int>>& pairs) {
    const int k = static_cast<int>(pairs.size());
    std::vector<int> slot_high(static_cast<size_t>(k), -1);  // high position paired with slot b - k + i
    std::vector<std::pair<int, int>> movers;
    for (const auto& [h, e] : pairs) {
      const int p = pos_[static_cast<size_t>(e)];
      if (p >= b_ - k) slot_high[static_cast<size_t>(p - (b_ - k))] = h;
      else movers.emplace_back(h, e);
    }
    size_t next = 0;
    for (int i = 0; i < k; ++i) {
      if (slot_high[static_cast<size_t>(i)] >= 0) continue;
      // This slot holds a non-evictee: the next mover takes it (the non-evictee goes down).
      local_move(movers[next].second, b_ - k + i);
      slot_high[static_cast<size_t>(i)] = movers[next++].first;
    }
    Step s{Step::kSwap, {}, slot_high, false};
    for (int i = 0; i < k; ++i) exchange(b_ - k + i, slot_high[static_cast<size_t>(i)]);
    if (!zero_) {
      steps_.push_back(std::move(s));
      ++summary_.swap_passes;
    }
  }

  void make_local(uint64_t S, const std::vector<Unit>& units, const std::vector<size_t>& rest) {
    // Next use of each logical qubit in the units after this stage (Belady: evict the latest).
    std::vector<size_t> next(static_cast<size_t>(n_), rest.size());
    for (size_t i = rest.size(); i-- > 0;)
      for (uint64_t m = units[rest[i]].all; m; m &= m - 1) next[static_cast<size_t>(__builtin_ctzll(m))] = i;
    for (;;) {
      std::vector<int> fetch;
      for (int h = b_; h < n_; ++h)
        if (S >> at_[static_cast<size_t>(h)] & 1) fetch.push_back(h);
      if (fetch.empty()) return;
      // Low logical qubits outside S, latest next use first, then highest position.
      std::vector<int> evict;
      for (int l = 0; l < b_; ++l) {
        const int x = at_[static_cast<size_t>(l)];
        if (x < b_ && !(S >> x & 1)) evict.push_back(x);
      }
      std::sort(evict.begin(), evict.end(), [&](int x, int y) {
        const size_t nx = next[static_cast<size_t>(x)], ny = next[static_cast<size_t>(y)];
        return nx != ny ? nx > ny : pos_[static_cast<size_t>(x)] > pos_[static_cast<size_t>(y)];
      });
      // A fetched position whose own (high) logical qubit sits low and is not needed sends it
      // home; the others take a low logical qubit (the invariant of the header holds either way).
      std::vector<std::pair<int, int>> pairs;
      std::vector<bool> paired(static_cast<size_t>(n_), false);  // by logical qubit
      size_t e = 0;
      bool short_of_slots = false;
      for (int h : fetch) {
        if (pos_[static_cast<size_t>(h)] < b_ && !(S >> h & 1)) pairs.emplace_back(h, h);
        else if (e < evict.size()) pairs.emplace_back(h, evict[e++]);
        else short_of_slots = true;
        if (!pairs.empty()) paired[static_cast<size_t>(pairs.back().second)] = true;
      }
      if (short_of_slots) {
        // High logical qubits outside S that sit low and whose home is not fetched hold the
        // missing slots: they go home too (bringing up low ones, evictable next pass).
        for (int l = 0; l < b_; ++l) {
          const int x = at_[static_cast<size_t>(l)];
          if (x >= b_ && !(S >> x & 1) && !paired[static_cast<size_t>(x)]) pairs.emplace_back(x, x);
        }
      }
      swap_pass(pairs);
    }
  }

  // Undoes the map: high logical qubits go home in one swap pass, then the low ones are
  // permuted back (in the cache of the last stage when that pass is not needed, else a pass).
  void restore() {
    std::vector<std::pair<int, int>> pairs;
    for (int l = 0; l < b_; ++l)
      if (at_[static_cast<size_t>(l)] >= b_) pairs.emplace_back(at_[static_cast<size_t>(l)], at_[static_cast<size_t>(l)]);
    if (!pairs.empty()) swap_pass(pairs);
    for (int l = 0; l < b_; ++l) local_move(l, l);
  }

  int n_, b_;
  std::vector<int> pos_, at_;  // logical -> physical, physical -> logical
  bool zero_;                  // the state is still |0...0>: permutations are relabelings
  std::vector<Step> steps_;
  BlockedPlanSummary summary_;
};

std::vector<Unit> make_units(const std::vector<Gate>& gates, const double* params, const std::vector<double>& constants,
                             int fusion_max_qubits) {
  std::vector<Unit> units;
  auto single = [&](const Gate& g) {
    Unit u{&g, resolve(g, params, constants), 0, 0};
    for (int t : u.r.targets) u.need |= bit(t);
    u.all = u.need | u.r.cmask;
    return u;
  };
  if (fusion_max_qubits <= 0) {
    for (const Gate& g : gates) units.push_back(single(g));
    return units;
  }
  for (FusedBlock& f : fuse_gates(gates, params, constants, fusion_max_qubits)) {
    if (f.single()) {
      units.push_back(single(gates[f.members[0]]));
      continue;
    }
    Unit u{&kDenseUnit, Resolved{}, 0, 0};
    u.r.targets = f.qubits;
    u.r.m = std::move(f.m);
    for (int q : f.qubits) u.need |= bit(q);
    u.all = u.need;
    units.push_back(std::move(u));
  }
  return units;
}

void run_blocked(complex128* a, int n, int b, const Step& s) {
  const int64_t blocks = s.only_block0 ? 1 : int64_t(1) << (n - b);
  auto block = [&](int64_t i) {
    const uint64_t high_bits = static_cast<uint64_t>(i) << b;
    complex128* p = a + high_bits;
    for (const PhysOp& op : s.ops)
      if ((high_bits & op.high_cmask) == op.high_cmask) apply(p, b, *op.gate, op.r, false);
  };
#ifdef _OPENMP
  if (blocks > 1 && omp_get_max_threads() > 1 && !omp_in_parallel()) {
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < blocks; ++i) block(i);
    return;
  }
#endif
  for (int64_t i = 0; i < blocks; ++i) block(i);
}

}  // namespace

bool cache_blocking_enabled() { return blocking_flag(); }

bool set_cache_blocking_enabled(bool enabled) {
  const bool previous = blocking_flag();
  blocking_flag() = enabled;
  return previous;
}

int cache_block_qubits() {
  static const int from_env = env_block_qubits();
  return block_qubits_override() ? block_qubits_override() : from_env;
}

int set_cache_block_qubits(int b) {
  SAMPAN_CHECK(b == 0 || (b >= kMinBlockQubits && b <= kMaxBlockQubits), ValueError,
               "set_cache_block_qubits: expected 0 (the default) or ", kMinBlockQubits, " to ", kMaxBlockQubits,
               " (log2 of the amplitudes per cache block), got ", b);
  const int previous = cache_block_qubits();
  block_qubits_override() = b;
  return previous;
}

bool use_cache_blocking(int n) { return cache_blocking_enabled() && n > cache_block_qubits(); }

BlockedPlanSummary apply_blocked(complex128* a, int n, const std::vector<Gate>& gates, const double* params,
                                 const std::vector<double>& constants, int fusion_max_qubits, int b,
                                 bool zero_state) {
  SAMPAN_CHECK(b >= kMinBlockQubits && b < n, ValueError, "quantum: cache blocks of 2^", b,
               " amplitudes need a state of more than ", b, " qubits, got ", n);
  const std::vector<Unit> units = make_units(gates, params, constants, fusion_max_qubits);
  Planner planner(n, b, zero_state);
  for (const Step& s : planner.plan(units)) {
    if (s.kind == Step::kBlocked) run_blocked(a, n, b, s);
    else if (s.kind == Step::kSwap) kernels::swap_top_qubits(a, n, b, s.high);
    else apply(a, n, *s.ops[0].gate, s.ops[0].r, false);
  }
  return planner.summary();
}

}  // namespace sampan::quantum
