// sampan quantum: running a circuit on a state vector distributed over MPI ranks.
//
// Layout (the scheme of QuEST, shared/reference/quantum.md section 3.2): with 2^k ranks, rank r
// holds the contiguous chunk of 2^(n-k) amplitudes whose top k index bits equal r. Qubits below
// n - k are local; the top k qubits select the rank. Gates on local qubits (and any gate whose
// prefix-qubit part is controls or a diagonal) need no communication; a gate with a target on a
// prefix qubit first swaps that qubit with a free local one (a pairwise exchange of half the
// chunk with the partner rank r ^ bit, in messages of at most chunk_amps amplitudes so the extra
// memory stays bounded), applies locally and swaps back. Gate fusion applies as in one process.
//
// Built with MPI (SAMPAN_QUANTUM_HAVE_MPI), run_circuit runs on MPI_COMM_WORLD, initialising
// MPI on first use (and finalising it at exit) when the caller has not; without MPI it runs as
// one rank. Every rank must call it with the same arguments.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "sampan/quantum/classical.h"
#include "sampan/tensor.h"

namespace sampan::quantum {

/// Whether sampan_quantum was built with MPI.
bool built_with_mpi();
/// Rank and size of MPI_COMM_WORLD (0 and 1 without MPI); initialises MPI if needed.
int world_rank();
int world_size();

struct DistributedRun {
  int rank = 0, size = 1;
  bool has_expectation = false;
  double expectation = 0;                               // <psi|H|psi>, on every rank
  std::vector<std::pair<uint64_t, int64_t>> counts;     // (basis index, shots), rank 0, by index
  std::vector<complex128> state;                        // the full state on rank 0 when asked
};

/// Simulates `circuit` (the encoding of sampan/quantum/circuit.h) from |0...0> over all ranks;
/// then <H> when `coeffs` is not empty (paulis/coeffs as for quantum::expectation), `shots`
/// measurements in the computational basis with a seeded generator (the same outcomes for any
/// number of ranks), and the full state gathered on rank 0 when gather_state. Errors (bad
/// circuit, a rank count that is not a power of two or too large for n) are thrown on every rank.
/// chunk_amps: the largest message in amplitudes (0: 2^20). use_mpi = false: one process, no
/// MPI call at all (the same results as any number of ranks). device "cuda" (one process, one
/// rank): the state is simulated and <H> taken on the GPU (circuit_cuda.h), then the state comes
/// to the host for the shots and the gather, drawn as on the CPU; NotImplementedError in a build
/// without nvcc, RuntimeError without a GPU, ValueError under more than one rank.
DistributedRun run_circuit(int64_t n_qubits, const std::vector<int64_t>& circuit, const std::vector<double>& params,
                           const std::vector<double>& constants, const std::vector<int64_t>& paulis,
                           const std::vector<double>& coeffs, int64_t shots, uint64_t seed, bool gather_state,
                           int64_t chunk_amps = 0, bool use_mpi = true, const std::string& device = "cpu");

struct MeasuredRun {
  int rank = 0, size = 1;
  /// (classical bits, shots) on rank 0, sorted: character b of the key is classical bit b ('0' or
  /// '1'; bits never written read '0').
  std::vector<std::pair<std::string, int64_t>> register_counts;
  /// (basis index of the final state, shots) on rank 0, sorted: every qubit read at the end of
  /// each shot (the same draws that give the terminal measurements).
  std::vector<std::pair<uint64_t, int64_t>> counts;
  int64_t branches = 0;  // final branches (pure states) the shots were split into
};

/// `shots` runs of a circuit with mid-circuit measurements, resets and classically controlled
/// ranges (classical.h) on a state vector distributed over all ranks, by shot branching: the shots
/// travel together as one pure state; at a measurement (or reset) of qubit q with P(1) = p, each
/// shot draws a uniform u and takes outcome 1 when u < p, and the shots that disagree continue
/// on a copy projected on the other outcome (the share with fewer shots goes to the copy, so at
/// most log2(shots) + 1 states are alive). A conditional range runs in the branches whose
/// register holds its value when the range starts. Each final branch samples its shots from its
/// state (as run_circuit does) and writes the terminal measurements (qubit, clbit). Every outcome
/// then has its exact probability, and the decisions depend only on the seed and on the
/// probabilities (summed in rank order on every rank), so any number of ranks gives the counts of
/// one process up to rounding in the last bit of a probability. Reset is a measurement whose
/// outcome is not recorded, followed by X on outcome 1. The circuit may hold no channel but the
/// measurement channels of `mid_measurements` and resets to |0> ([RESET, q, 1, 0]): other noise
/// has no state-vector form (ValueError naming the gate; run it on density matrices). Errors are
/// thrown on every rank.
MeasuredRun run_measured_circuit(int64_t n_qubits, const std::vector<int64_t>& circuit,
                                 const std::vector<double>& params, const std::vector<double>& constants,
                                 int64_t n_clbits, const std::vector<std::pair<int64_t, int64_t>>& terminal,
                                 const std::vector<MidMeasurement>& mid_measurements,
                                 const std::vector<ClassicalCondition>& conditions, int64_t shots, uint64_t seed,
                                 int64_t chunk_amps = 0, bool use_mpi = true);

}  // namespace sampan::quantum
