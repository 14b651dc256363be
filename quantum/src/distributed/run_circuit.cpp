// sampan quantum: run_circuit and the MPI world queries (sampan/quantum/distributed.h).
#include "sampan/quantum/distributed.h"

#include "distributed/comm.h"
#include "distributed/distributed_state.h"
#include "sampan/error.h"
#if defined(SAMPAN_CUDA_KERNELS)
#include "circuit_cuda.h"
#include "sampan/cuda.h"
#endif

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
                           int64_t chunk_amps, bool use_mpi, const std::string& device) {
  const char* who = "quantum.run_circuit";
  SAMPAN_CHECK(n >= 1 && n <= 60, ValueError, who, ": the number of qubits must be in [1, 60], got ", n);
  const Device dev = Device::parse(device);
  const auto gates = decode_circuit(circuit, static_cast<int64_t>(params.size()), constants, n, who);
  const auto h = decode_hamiltonian(paulis, coeffs, n, who);
  const distributed::Comm comm = use_mpi ? distributed::Comm() : distributed::Comm::single();
  SAMPAN_CHECK(dev.is_cpu() || comm.size() == 1, ValueError, who, ": device ", device,
               " runs in one process (one GPU); under ", comm.size(), " ranks the state is distributed on the CPUs");
  distributed::DistributedState state(static_cast<int>(n), comm, chunk_amps > 0 ? chunk_amps : int64_t(1) << 20);
  DistributedRun out;
  out.rank = comm.rank();
  out.size = comm.size();
  if (dev.is_cpu()) {
    state.apply_circuit(gates, params.data(), constants);
    if (!coeffs.empty()) out.expectation = state.expectation(h);
  } else {
#if defined(SAMPAN_CUDA_KERNELS)
    Tensor psi = Tensor::empty({int64_t(1) << n}, DType::Complex128, dev);
    simulate_cuda(params.data(), gates, constants, static_cast<int>(n), psi);
    if (!coeffs.empty()) out.expectation = expectation_value_cuda(psi, h, static_cast<int>(n));
    if (shots > 0 || gather_state) {
      std::vector<complex128> host(size_t(1) << n);
      cuda::copy_bytes(host.data(), false, psi.data<complex128>(), true, host.size() * sizeof(complex128));
      state.load(std::move(host));
    }
#else
    SAMPAN_THROW(NotImplementedError, who, ": device ", device, ": this build of sampan has no CUDA kernels (nvcc was not found)");
#endif
  }
  out.has_expectation = !coeffs.empty();
  if (shots > 0) out.counts = state.sample(shots, seed);
  if (gather_state) out.state = state.gather();
  return out;
}

}  // namespace sampan::quantum
