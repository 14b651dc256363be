// sampan Python bindings: the extension module `sampan._C`. Each concept registers itself from
// its own file; this one maps sampan's exception types to Python's (messages kept) and binds the
// process-wide settings.
#include "bindings.h"
#include "sampan/blas_info.h"
#include "sampan/threads.h"

#ifndef SAMPAN_VERSION
#define SAMPAN_VERSION "0.0.0"
#endif

#include <algorithm>

namespace sampan::python {

namespace {
// Filled by static initializers when the extension is loaded, before PyInit__C runs.
std::vector<std::pair<std::string, BindingInit>>& binding_table() {
  static std::vector<std::pair<std::string, BindingInit>> table;
  return table;
}
}  // namespace

BindingRegistration::BindingRegistration(const char* name, BindingInit init) {
  binding_table().emplace_back(name, init);
}

std::vector<std::pair<std::string, BindingInit>> registered_bindings() {
  auto table = binding_table();
  std::stable_sort(table.begin(), table.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return table;
}

namespace {

void translate_exceptions() {
  // Registered last, tried first: the sampan types before pybind11's std:: defaults (which
  // would turn TypeError, a std::invalid_argument, into ValueError).
  py::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (const sampan::TypeError& e) {
      PyErr_SetString(PyExc_TypeError, e.what());
    } catch (const sampan::ValueError& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    } catch (const sampan::IndexError& e) {
      PyErr_SetString(PyExc_IndexError, e.what());
    } catch (const sampan::NotImplementedError& e) {
      PyErr_SetString(PyExc_NotImplementedError, e.what());
    } catch (const sampan::IOError& e) {
      PyErr_SetString(PyExc_OSError, e.what());
    } catch (const sampan::RuntimeError& e) {
      PyErr_SetString(PyExc_RuntimeError, e.what());
    }
  });
}

}  // namespace
}  // namespace sampan::python

PYBIND11_MODULE(_C, m) {
  namespace sp = sampan::python;
  m.doc() = "sampan's C++ core: Tensor, dtypes, the op registry and autograd (thin bindings).";
  sp::translate_exceptions();
  sp::init_dtype(m);
  sp::init_tensor(m);
  sp::init_ops(m);
  sp::init_autograd(m);
  sp::init_testing(m);
  for (const auto& [name, init] : sp::registered_bindings()) init(m);

  m.attr("__version__") = SAMPAN_VERSION;
  m.def("set_num_threads", &sampan::set_num_threads, pybind11::arg("n"),
        "Number of threads the parallel (OpenMP) kernels use.");
  m.def("get_num_threads", &sampan::get_num_threads);
  m.def("blas_library", &sampan::blas_library,
        "Which BLAS matmul calls: library, its build configuration, the kernel set it picked.");
  m.def("bf16_gemm_library", &sampan::bf16_gemm_library,
        "Which library bfloat16 matmul calls (oneDNN), or the float32 convert path.");
  m.def("blas_num_threads", &sampan::blas_num_threads,
        "Size of the BLAS's own thread pool (set_num_threads sizes it); 0 where it has none.");
}
