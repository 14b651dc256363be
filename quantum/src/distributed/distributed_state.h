// sampan quantum (internal): the distributed state vector (see sampan/quantum/distributed.h for
// the layout and the communication scheme).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "distributed/comm.h"
#include "gate_apply.h"
#include "sampan/quantum/circuit.h"

namespace sampan::quantum::distributed {

class DistributedState {
 public:
  /// |0...0> on n qubits over comm's ranks (a power of two, at most 2^(n-1)). chunk_amps bounds
  /// each message (and the two exchange buffers) in amplitudes.
  DistributedState(int n_qubits, const Comm& comm, int64_t chunk_amps = int64_t(1) << 20);
  /// A copy of the amplitudes (a branch of measurement outcomes); the exchange buffers are not
  /// copied (they are sized on use).
  DistributedState(const DistributedState& other)
      : n_(other.n_), n_local_(other.n_local_), comm_(other.comm_), chunk_(other.chunk_), local_(other.local_) {}
  int n_qubits() const { return n_; }
  int n_local() const { return n_local_; }
  const std::vector<complex128>& local() const { return local_; }

  /// Replaces the amplitudes by `amps` (one rank only: all 2^n of them), e.g. a state simulated
  /// on the GPU, so that its shots are drawn here.
  void load(std::vector<complex128> amps);
  /// Applies every gate (fused when fusion is on) of a decoded circuit.
  void apply_circuit(const std::vector<Gate>& gates, const double* params, const std::vector<double>& constants);
  /// A matrix on `targets` where the bits of cmask are set (`fast`: apply as gate g's fast path).
  void apply(const Resolved& r, const Gate* g);
  /// <psi|H|psi>, the same on every rank.
  double expectation(const std::vector<PauliTerm>& h) const;
  /// `shots` computational-basis outcomes (index, count) on rank 0, sorted by index; the same
  /// outcomes for any number of ranks given the seed.
  std::vector<std::pair<uint64_t, int64_t>> sample(int64_t shots, uint64_t seed) const;
  /// The full state on rank 0 (empty elsewhere).
  std::vector<complex128> gather() const;
  /// (squared norm where qubit q is 0, where it is 1), summed over ranks in rank order, so every
  /// rank gets the same two numbers.
  std::pair<double, double> qubit_masses(int q) const;
  /// Keeps the amplitudes where qubit q equals `bit`, scaled by 1/sqrt(mass) (mass: theirs, from
  /// qubit_masses), and zeroes the others: the post-measurement state of outcome `bit`.
  void project(int q, int bit, double mass);

 private:
  void swap_with_local(int prefix_qubit, int local_qubit);
  int rank_bit(int prefix_qubit) const { return (comm_.rank() >> (prefix_qubit - n_local_)) & 1; }

  int n_, n_local_;
  const Comm& comm_;
  int64_t chunk_;
  std::vector<complex128> local_;
  mutable std::vector<complex128> send_, recv_;
};

}  // namespace sampan::quantum::distributed
