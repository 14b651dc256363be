// sampan quantum: shots of a circuit with mid-circuit measurements, resets and classically
// controlled gates on the (distributed) state vector, by shot branching (run_measured_circuit in
// sampan/quantum/distributed.h; the algorithm is described there).
//
// Why branching and not one trajectory per shot: the shots that agree on every outcome so far
// share one pure state, so a circuit whose measurements are mostly deterministic costs one
// simulation, and one with m random measurements at most min(shots, 2^m) final branches. Why
// one uniform per shot and not a binomial draw: the split then depends on each probability only
// through comparisons u < p, which rounding of p in the last bit (other rank counts sum the
// probability in another order) almost never changes.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>

#include "distributed/comm.h"
#include "distributed/distributed_state.h"
#include "sampan/error.h"
#include "sampan/quantum/channels.h"
#include "sampan/quantum/distributed.h"
#include "sampan/quantum/state_vector.h"

namespace sampan::quantum {

namespace {

const char* kWho = "quantum.run_measured_circuit";

// One step of the walk: a run of gates, or a measurement / reset of one qubit; `condition`
// indexes the conditional range the step belongs to (-1: none), `starts_condition` marks the
// step where that range reads its register.
struct Step {
  enum Kind { kGates, kMeasure, kReset } kind = kGates;
  std::vector<Gate> gates;
  int qubit = -1;
  std::vector<int64_t> clbits;
  int condition = -1;
  bool starts_condition = false;
};

double slot_value(int64_t slot, const std::vector<double>& params, const std::vector<double>& constants) {
  return slot >= 0 ? params[static_cast<size_t>(slot)] : constants[static_cast<size_t>(-slot - 1)];
}

std::vector<Step> plan_steps(const std::vector<Gate>& gates, const std::vector<double>& params,
                             const std::vector<double>& constants, int64_t n_clbits,
                             const std::vector<MidMeasurement>& mids,
                             const std::vector<ClassicalCondition>& conditions) {
  const int64_t n_gates = static_cast<int64_t>(gates.size());
  std::vector<int> condition_of(gates.size(), -1), mid_of(gates.size(), -1);
  for (size_t k = 0; k < conditions.size(); ++k) {
    const ClassicalCondition& c = conditions[k];
    SAMPAN_CHECK(c.gate_begin >= 0 && c.gate_begin < c.gate_end && c.gate_end <= n_gates, ValueError, kWho,
                 ": condition ", k, " covers gates [", c.gate_begin, ", ", c.gate_end, ") of a circuit of ", n_gates,
                 " gates");
    SAMPAN_CHECK(c.n_bits >= 1 && c.clbit_offset >= 0 && c.clbit_offset + c.n_bits <= n_clbits, ValueError, kWho,
                 ": condition ", k, " reads classical bits [", c.clbit_offset, ", ", c.clbit_offset + c.n_bits,
                 ") of ", n_clbits);
    for (int64_t g = c.gate_begin; g < c.gate_end; ++g) {
      SAMPAN_CHECK(condition_of[static_cast<size_t>(g)] < 0, ValueError, kWho, ": conditions ",
                   condition_of[static_cast<size_t>(g)], " and ", k, " overlap at gate ", g);
      condition_of[static_cast<size_t>(g)] = static_cast<int>(k);
    }
  }
  for (size_t k = 0; k < mids.size(); ++k) {
    const MidMeasurement& m = mids[k];
    SAMPAN_CHECK(m.gate >= 0 && m.gate < n_gates && gates[static_cast<size_t>(m.gate)].op == kKraus &&
                     gates[static_cast<size_t>(m.gate)].qubits == std::vector<int>{static_cast<int>(m.qubit)},
                 ValueError, kWho, ": mid-circuit measurement ", k, " names gate ", m.gate,
                 ", which is not the measurement channel (KRAUS) on qubit ", m.qubit);
    SAMPAN_CHECK(mid_of[static_cast<size_t>(m.gate)] < 0, ValueError, kWho, ": two mid-circuit measurements name gate ",
                 m.gate);
    for (int64_t b : m.clbits)
      SAMPAN_CHECK(b >= 0 && b < n_clbits, ValueError, kWho, ": mid-circuit measurement ", k, " writes classical bit ",
                   b, " of ", n_clbits);
    mid_of[static_cast<size_t>(m.gate)] = static_cast<int>(k);
  }
  std::vector<Step> steps;
  for (int64_t g = 0; g < n_gates; ++g) {
    const Gate& gate = gates[static_cast<size_t>(g)];
    const int cond = condition_of[static_cast<size_t>(g)];
    const bool starts = cond >= 0 && conditions[static_cast<size_t>(cond)].gate_begin == g;
    Step step;
    step.condition = cond;
    step.starts_condition = starts;
    if (mid_of[static_cast<size_t>(g)] >= 0) {
      const MidMeasurement& m = mids[static_cast<size_t>(mid_of[static_cast<size_t>(g)])];
      step.kind = Step::kMeasure;
      step.qubit = static_cast<int>(m.qubit);
      step.clbits = m.clbits;
    } else if (gate.op == kReset && slot_value(gate.slots[0], params, constants) == 1.0 &&
               slot_value(gate.slots[1], params, constants) == 0.0) {
      step.kind = Step::kReset;
      step.qubit = gate.qubits[0];
    } else if (is_channel_opcode(gate.op)) {
      SAMPAN_THROW(ValueError, kWho, ": gate ", g, " is the noise channel ", channel_info(gate.op).name,
                   ": a state vector takes only measurements and resets to |0> (run noise on density matrices)");
    } else {
      if (!steps.empty() && steps.back().kind == Step::kGates && steps.back().condition == cond && !starts) {
        steps.back().gates.push_back(gate);
        continue;
      }
      step.gates.push_back(gate);
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

class ShotBrancher {
 public:
  ShotBrancher(const std::vector<Step>& steps, const std::vector<double>& params, const std::vector<double>& constants,
               const std::vector<ClassicalCondition>& conditions, const std::vector<std::pair<int64_t, int64_t>>& terminal,
               uint64_t seed, const distributed::Comm& comm)
      : steps_(steps), params_(params), constants_(constants), conditions_(conditions), terminal_(terminal),
        rng_(seed), comm_(comm) {}

  // Runs `shots` shots from `state` at step `first` with classical bits `bits`; `active`: whether
  // the conditional range in progress (if any) holds in this branch.
  void walk(distributed::DistributedState& state, int64_t shots, std::string bits, size_t first, bool active) {
    for (size_t i = first; i < steps_.size(); ++i) {
      const Step& step = steps_[i];
      if (step.condition >= 0) {
        if (step.starts_condition) active = holds(conditions_[static_cast<size_t>(step.condition)], bits);
        if (!active) continue;
      }
      if (step.kind == Step::kGates) {
        state.apply_circuit(step.gates, params_.data(), constants_);
        continue;
      }
      const auto [m0, m1] = state.qubit_masses(step.qubit);
      // Each shot's own uniform decides its outcome (see the file comment); exact zeros decide alone.
      int64_t ones = 0;
      if (m0 == 0) {
        ones = shots;
      } else if (m1 > 0) {
        const double p1 = m1 / (m0 + m1);
        for (int64_t s = 0; s < shots; ++s) ones += uniform() < p1;
      }
      const int64_t zeros = shots - ones;
      if (zeros > 0 && ones > 0) {
        const int small = ones < zeros ? 1 : 0;  // the smaller share on a copy: recursion depth <= log2(shots)
        check_copy_fits(state);
        distributed::DistributedState copy = state;
        std::string copy_bits = bits;
        settle(copy, step, small, small ? m1 : m0, copy_bits);
        walk(copy, small ? ones : zeros, std::move(copy_bits), i + 1, active);
        shots = small ? zeros : ones;
        settle(state, step, 1 - small, small ? m0 : m1, bits);
      } else {
        settle(state, step, ones > 0 ? 1 : 0, ones > 0 ? m1 : m0, bits);
      }
    }
    finish(state, shots, bits);
  }

  int64_t branches() const { return branches_; }
  const std::map<std::string, int64_t>& register_counts() const { return register_counts_; }
  const std::map<uint64_t, int64_t>& counts() const { return counts_; }

 private:
  double uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }

  static bool holds(const ClassicalCondition& c, const std::string& bits) {
    for (int64_t i = 0; i < c.n_bits; ++i) {
      const int want = i < 63 ? static_cast<int>((c.value >> i) & 1) : 0;
      if (bits[static_cast<size_t>(c.clbit_offset + i)] - '0' != want) return false;
    }
    return c.n_bits >= 63 || (c.value >> c.n_bits) == 0;  // a value wider than the register never holds
  }

  // Outcome `bit` of the step's qubit: project (mass: that outcome's), record it, or reset to |0>.
  void settle(distributed::DistributedState& state, const Step& step, int bit, double mass, std::string& bits) {
    state.project(step.qubit, bit, mass);
    if (step.kind == Step::kMeasure) {
      for (int64_t b : step.clbits) bits[static_cast<size_t>(b)] = static_cast<char>('0' + bit);
    } else if (bit == 1) {  // reset: |1> -> |0>
      Resolved x;
      x.targets = {step.qubit};
      x.m = {0.0, 1.0, 1.0, 0.0};
      state.apply(x, nullptr);
    }
  }

  // Every rank must agree before copying (a refusal on one rank alone would leave the others waiting).
  void check_copy_fits(const distributed::DistributedState& state) {
    double refused = 0;
    std::string why;
    try {
      check_state_fits(state.n_local(), DType::Complex128, kWho);
    } catch (const ValueError& e) {
      refused = 1;
      why = e.what();
    }
    comm_.allreduce_sum(&refused, 1);
    SAMPAN_CHECK(refused == 0, ValueError, kWho, ": another copy of the state for a branch of measurement outcomes "
                 "does not fit in memory", why.empty() ? std::string(" (on another rank)") : " (" + why + ")");
  }

  // A final branch: its shots read every qubit of its state; terminal measurements take their bits.
  void finish(const distributed::DistributedState& state, int64_t shots, const std::string& bits) {
    ++branches_;
    const uint64_t leaf_seed = rng_();
    for (const auto& [index, count] : state.sample(shots, leaf_seed)) {  // rank 0 only gets outcomes
      std::string key = bits;
      for (const auto& [qubit, clbit] : terminal_) key[static_cast<size_t>(clbit)] = static_cast<char>('0' + ((index >> qubit) & 1));
      register_counts_[key] += count;
      counts_[index] += count;
    }
  }

  const std::vector<Step>& steps_;
  const std::vector<double>& params_;
  const std::vector<double>& constants_;
  const std::vector<ClassicalCondition>& conditions_;
  const std::vector<std::pair<int64_t, int64_t>>& terminal_;
  std::mt19937_64 rng_;
  const distributed::Comm& comm_;
  int64_t branches_ = 0;
  std::map<std::string, int64_t> register_counts_;
  std::map<uint64_t, int64_t> counts_;
};

}  // namespace

MeasuredRun run_measured_circuit(int64_t n, const std::vector<int64_t>& circuit, const std::vector<double>& params,
                                 const std::vector<double>& constants, int64_t n_clbits,
                                 const std::vector<std::pair<int64_t, int64_t>>& terminal,
                                 const std::vector<MidMeasurement>& mids,
                                 const std::vector<ClassicalCondition>& conditions, int64_t shots, uint64_t seed,
                                 int64_t chunk_amps, bool use_mpi) {
  SAMPAN_CHECK(n >= 1 && n <= 60, ValueError, kWho, ": the number of qubits must be in [1, 60], got ", n);
  SAMPAN_CHECK(shots >= 0, ValueError, kWho, ": shots must be >= 0, got ", shots);
  SAMPAN_CHECK(n_clbits >= 0, ValueError, kWho, ": the number of classical bits must be >= 0, got ", n_clbits);
  for (const auto& [qubit, clbit] : terminal)
    SAMPAN_CHECK(qubit >= 0 && qubit < n && clbit >= 0 && clbit < n_clbits, ValueError, kWho,
                 ": terminal measurement of qubit ", qubit, " into classical bit ", clbit, " is out of range (", n,
                 " qubits, ", n_clbits, " classical bits)");
  const auto gates = decode_circuit(circuit, static_cast<int64_t>(params.size()), constants, n, kWho, true);
  const std::vector<Step> steps = plan_steps(gates, params, constants, n_clbits, mids, conditions);
  const distributed::Comm comm = use_mpi ? distributed::Comm() : distributed::Comm::single();
  distributed::DistributedState state(static_cast<int>(n), comm, chunk_amps > 0 ? chunk_amps : int64_t(1) << 20);
  MeasuredRun out;
  out.rank = comm.rank();
  out.size = comm.size();
  if (shots == 0) return out;
  ShotBrancher brancher(steps, params, constants, conditions, terminal, seed, comm);
  brancher.walk(state, shots, std::string(static_cast<size_t>(n_clbits), '0'), 0, true);
  out.branches = brancher.branches();
  if (comm.rank() == 0) {
    out.register_counts.assign(brancher.register_counts().begin(), brancher.register_counts().end());
    out.counts.assign(brancher.counts().begin(), brancher.counts().end());
  }
  return out;
}

}  // namespace sampan::quantum
