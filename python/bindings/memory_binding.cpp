// sampan Python bindings: the allocators' statistics (sampan/allocator.h), per device type.
#include "bindings.h"
#include "sampan/allocator.h"

namespace sampan::python {

namespace {

DeviceType device_type(const std::string& device) {
  if (device == "cpu") return DeviceType::CPU;
  if (device == "cuda" || device == "cuda:0") return DeviceType::CUDA;
  SAMPAN_THROW(ValueError, "memory statistics: device must be 'cpu' or 'cuda', got '", device, "'");
}

void init_memory(py::module_& m) {
  m.def("memory_allocated", [](const std::string& d) { return allocator_for(device_type(d)).bytes_in_use(); },
        py::arg("device") = "cpu", "Bytes held by tensors on the device now.");
  m.def("max_memory_allocated", [](const std::string& d) { return allocator_for(device_type(d)).peak_bytes(); },
        py::arg("device") = "cpu", "High-water mark of memory_allocated since the last reset.");
  m.def("reset_peak_memory_stats", [](const std::string& d) { allocator_for(device_type(d)).reset_peak(); },
        py::arg("device") = "cpu", "Starts the high-water mark anew from the bytes held now.");
}

}  // namespace

SAMPAN_PYTHON_BINDING(memory, init_memory);

}  // namespace sampan::python
