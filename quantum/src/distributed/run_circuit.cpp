// sampan quantum: run_circuit and the MPI world queries (sampan/quantum/distributed.h).
#include "sampan/quantum/distributed.h"

#include "distributed/comm.h"
#include "distributed/distributed_state.h"
#include "sampan/error.h"

namespace sampan::quantum {

bool built_with_mpi() {
#ifdef SAMPAN_QUANTUM_HAVE_MPI
  return true;
#else
  return false;
#endif
}

int world_rank() { return distributed::Comm().rank(); }
int world_size() { return distributed::Comm().size(); }

DistributedRun run_circuit(int64_t n, const std::vector<int64_t>& circuit, const std::vector<double>& params,
                           const std::vector<double>& constants, const std::vector<int64_t>& paulis,
                           const std::vector<double>& coeffs, int64_t shots, uint64_t seed, bool gather_state,
                           int64_t chunk_amps, bool use_mpi) {
  const char* who = "quantum.run_circuit";
  SAMPAN_CHECK(n >= 1 && n <= 60, ValueError, who, ": the number of qubits must be in [1, 60], got ", n);
  const auto gates = decode_circuit(circuit, static_cast<int64_t>(params.size()), constants, n, who);
  const auto h = decode_hamiltonian(paulis, coeffs, n, who);
  const distributed::Comm comm = use_mpi ? distributed::Comm() : distributed::Comm::single();
  distributed::DistributedState state(static_cast<int>(n), comm, chunk_amps > 0 ? chunk_amps : int64_t(1) << 20);
  state.apply_circuit(gates, params.data(), constants);
  DistributedRun out;
  out.rank = comm.rank();
  out.size = comm.size();
  if (!coeffs.empty()) {
    out.has_expectation = true;
    out.expectation = state.expectation(h);
  }
  if (shots > 0) out.counts = state.sample(shots, seed);
  if (gather_state) out.state = state.gather();
  return out;
}

}  // namespace sampan::quantum
