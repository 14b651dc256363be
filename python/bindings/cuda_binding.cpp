// sampan._C.cuda: the GPU as sampan sees it (sampan/cuda.h), and Tensor._to_device.
#include "bindings.h"
#include "sampan/cuda.h"
#include "sampan/ops.h"

namespace sampan::python {

namespace {
void init_cuda(py::module_& m) {
  auto c = m.def_submodule("cuda", "The GPU as sampan sees it (one per process, cuda:0).");
  c.def("built", &cuda::built, "Whether this sampan was compiled with CUDA kernels (nvcc at configure time).");
  c.def("device_count", &cuda::device_count, "GPUs this process sees (0 without CUDA, GPU or driver).");
  c.def("is_available", &cuda::is_available, "Built with CUDA and at least one GPU present.");
  c.def("unavailable_reason", &cuda::unavailable_reason, "Why is_available() is False ('' when it is True).");
  c.def("device_description", &cuda::device_description, "Name, compute capability, memory of cuda:0.");
  c.def("synchronize", &cuda::synchronize, py::call_guard<py::gil_scoped_release>(),
        "Waits for the GPU's work so far; raises a kernel's error.");
  c.def("memory_allocated", &cuda::memory_allocated, "Bytes of GPU memory held by tensors now.");
  c.def("max_memory_allocated", &cuda::max_memory_allocated, "High-water mark of memory_allocated().");
  c.def("memory_cached", &cuda::memory_cached, "Bytes freed by tensors and kept by the caching allocator.");
  c.def("empty_cache", &cuda::empty_cache, "Returns the cached blocks to the driver.");
  py::reinterpret_borrow<py::class_<Tensor>>(m.attr("Tensor")).def(
      "_to_device", [](const Tensor& t, const std::string& device) { return to_device(t, Device::parse(device)); },
      py::arg("device"), "A copy on `device` ('cpu', 'cuda', 'cuda:0'), differentiable.");
  m.def(
      "_full_on",
      [](const Shape& shape, double value, const std::string& dtype, const std::string& device) {
        return full(shape, value, dtype_from_name(dtype), Device::parse(device));
      },
      py::arg("shape"), py::arg("value"), py::arg("dtype"), py::arg("device"),
      "core::full's tensor made on `device` (sampan::full): sp.full(..., device=).");
}
}  // namespace

SAMPAN_PYTHON_BINDING(cuda, init_cuda);

}  // namespace sampan::python
