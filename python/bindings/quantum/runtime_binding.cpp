// sampan Python bindings of the quantum simulator's run-time switches (sampan/quantum/runtime.h):
// gate fusion, cache blocking and the AVX2 kernels, used by benchmarks to time each path.
#include "bindings.h"
#include "sampan/quantum/runtime.h"

namespace sampan::python {

namespace {

void init_quantum_runtime(py::module_& m) {
  m.def("quantum_fusion_enabled", &quantum::fusion_enabled, "Whether state-vector gate fusion is on.");
  m.def("quantum_set_fusion", &quantum::set_fusion_enabled, py::arg("enabled"),
        "Turns state-vector gate fusion on or off; returns the previous setting.");
  m.def("quantum_cache_blocking_enabled", &quantum::cache_blocking_enabled,
        "Whether states larger than a cache block run block by block.");
  m.def("quantum_set_cache_blocking", &quantum::set_cache_blocking_enabled, py::arg("enabled"),
        "Turns cache-blocked execution on or off; returns the previous setting.");
  m.def("quantum_cache_block_qubits", &quantum::cache_block_qubits, "log2 of the amplitudes per cache block.");
  m.def("quantum_set_cache_block_qubits", &quantum::set_cache_block_qubits, py::arg("qubits"),
        "Sets log2 of the amplitudes per cache block (2 to 30; 0: the default); returns the previous value.");
  m.def("quantum_simd_enabled", &quantum::simd_enabled, "Whether the AVX2+FMA gate kernels run.");
  m.def("quantum_set_simd", &quantum::set_simd_enabled, py::arg("enabled"),
        "Asks for the AVX2+FMA gate kernels (granted only where the CPU has them); returns the previous setting.");
}

}  // namespace

SAMPAN_PYTHON_BINDING(quantum_runtime, init_quantum_runtime);

}  // namespace sampan::python
