// sampan Python bindings of the quantum simulator's run-time switches (sampan/quantum/runtime.h):
// gate fusion and the AVX2 kernels, used by benchmarks to time each path.
#include "bindings.h"
#include "sampan/quantum/runtime.h"

namespace sampan::python {

namespace {

void init_quantum_runtime(py::module_& m) {
  m.def("quantum_fusion_enabled", &quantum::fusion_enabled, "Whether state-vector gate fusion is on.");
  m.def("quantum_set_fusion", &quantum::set_fusion_enabled, py::arg("enabled"),
        "Turns state-vector gate fusion on or off; returns the previous setting.");
  m.def("quantum_simd_enabled", &quantum::simd_enabled, "Whether the AVX2+FMA gate kernels run.");
  m.def("quantum_set_simd", &quantum::set_simd_enabled, py::arg("enabled"),
        "Asks for the AVX2+FMA gate kernels (granted only where the CPU has them); returns the previous setting.");
}

}  // namespace

SAMPAN_PYTHON_BINDING(quantum_runtime, init_quantum_runtime);

}  // namespace sampan::python
