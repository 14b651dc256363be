// sampan Python bindings of the distributed circuit runner (sampan/quantum/distributed.h): used by
// `sampan quantum run` under mpirun. MPI is initialised on the first call, not at import.
#include <cstring>
#include <tuple>

#include "bindings.h"
#include "sampan/ops.h"
#include "sampan/quantum/distributed.h"

namespace sampan::python {

namespace {

void init_quantum_distributed(py::module_& m) {
  m.def("quantum_built_with_mpi", &quantum::built_with_mpi, "Whether sampan_quantum was built with MPI.");
  m.def("quantum_world", [] {
    return py::make_tuple(quantum::world_rank(), quantum::world_size());
  }, "(rank, size) of MPI_COMM_WORLD, initialising MPI if needed ((0, 1) without MPI).");
  m.def("quantum_run_circuit",
        [](int64_t n, const std::vector<int64_t>& circuit, const std::vector<double>& params,
           const std::vector<double>& constants, const std::vector<int64_t>& paulis, const std::vector<double>& coeffs,
           int64_t shots, uint64_t seed, bool gather_state, int64_t chunk_amps, bool use_mpi,
           const std::string& device) {
          quantum::DistributedRun run;
          {
            py::gil_scoped_release no_gil;
            run = quantum::run_circuit(n, circuit, params, constants, paulis, coeffs, shots, seed, gather_state,
                                       chunk_amps, use_mpi, device);
          }
          py::dict out;
          out["rank"] = run.rank;
          out["size"] = run.size;
          out["expectation"] = run.has_expectation ? py::object(py::float_(run.expectation)) : py::none();
          py::list counts;
          for (const auto& [index, count] : run.counts) counts.append(py::make_tuple(index, count));
          out["counts"] = counts;
          if (!run.state.empty()) {
            Tensor t = zeros({static_cast<int64_t>(run.state.size())}, DType::Complex128);
            std::memcpy(t.data<complex128>(), run.state.data(), run.state.size() * sizeof(complex128));
            out["state"] = py::cast(t);
          } else {
            out["state"] = py::none();
          }
          return out;
        },
        py::arg("n_qubits"), py::arg("circuit"), py::arg("params"), py::arg("constants"), py::arg("paulis"),
        py::arg("coeffs"), py::arg("shots") = 0, py::arg("seed") = 0, py::arg("gather_state") = false,
        py::arg("chunk_amps") = 0, py::arg("use_mpi") = true, py::arg("device") = "cpu",
        "Runs a circuit over all MPI ranks (device='cuda': on the GPU, one rank) (one rank without MPI, or with use_mpi=False: no MPI call); see sampan/quantum/distributed.h. Returns "
        "{rank, size, expectation, counts [(index, shots)] (rank 0), state (rank 0, when gather_state)}.");
  m.def("quantum_run_measured_circuit",
        [](int64_t n, const std::vector<int64_t>& circuit, const std::vector<double>& params,
           const std::vector<double>& constants, int64_t n_clbits, const std::vector<std::pair<int64_t, int64_t>>& terminal,
           const std::vector<std::tuple<int64_t, int64_t, std::vector<int64_t>>>& mid,
           const std::vector<std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t>>& conditions, int64_t shots,
           uint64_t seed, int64_t chunk_amps, bool use_mpi) {
          std::vector<quantum::MidMeasurement> mids;
          for (const auto& [gate, qubit, bits] : mid) mids.push_back({gate, qubit, bits});
          std::vector<quantum::ClassicalCondition> conds;
          for (const auto& [b, e, off, nb, v] : conditions) conds.push_back({b, e, off, nb, v});
          quantum::MeasuredRun run;
          {
            py::gil_scoped_release no_gil;
            run = quantum::run_measured_circuit(n, circuit, params, constants, n_clbits, terminal, mids, conds, shots,
                                                seed, chunk_amps, use_mpi);
          }
          py::dict out;
          out["rank"] = run.rank;
          out["size"] = run.size;
          out["register_counts"] = run.register_counts;
          out["counts"] = run.counts;
          out["branches"] = run.branches;
          return out;
        },
        py::arg("n_qubits"), py::arg("circuit"), py::arg("params"), py::arg("constants"), py::arg("n_clbits"),
        py::arg("terminal"), py::arg("mid_measurements"), py::arg("conditions"), py::arg("shots"), py::arg("seed") = 0,
        py::arg("chunk_amps") = 0, py::arg("use_mpi") = true,
        "Shots of a circuit with mid-circuit measurements, resets and conditions on the (distributed) state vector by "
        "shot branching (sampan/quantum/distributed.h: run_measured_circuit). terminal: [(qubit, clbit)]; "
        "mid_measurements: [(gate, qubit, clbits)]; conditions: [(gate_begin, gate_end, clbit_offset, n_bits, value)]. "
        "Returns {rank, size, register_counts [(bits, shots)] with character b = classical bit b (rank 0), "
        "counts [(basis index, shots)] (rank 0), branches}.");
}

}  // namespace

SAMPAN_PYTHON_BINDING(quantum_distributed, init_quantum_distributed);

}  // namespace sampan::python
