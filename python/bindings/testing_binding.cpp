// sampan Python bindings: check_op, the generic op test (sampan.testing.check_op wraps it).
#include "bindings.h"
#include "sampan/testing/check_op.h"

namespace sampan::python {

void init_testing(py::module_& m) {
  py::class_<CheckOpOptions>(m, "CheckOpOptions")
      .def(py::init<>())
      .def_readwrite("eps", &CheckOpOptions::eps)
      .def_readwrite("atol", &CheckOpOptions::atol)
      .def_readwrite("rtol", &CheckOpOptions::rtol)
      .def_readwrite("gradients", &CheckOpOptions::gradients)
      .def_readwrite("second_order", &CheckOpOptions::second_order)
      .def_readwrite("dtype_sweep", &CheckOpOptions::dtype_sweep)
      .def_readwrite("determinism", &CheckOpOptions::determinism)
      .def_readwrite("cuda", &CheckOpOptions::cuda)
      .def_readwrite("seed", &CheckOpOptions::seed);

  py::class_<CheckOpReport>(m, "CheckOpReport", "What check_op found: .ok, .failures, .notes, .summary().")
      .def_readonly("ok", &CheckOpReport::ok)
      .def_readonly("failures", &CheckOpReport::failures)
      .def_readonly("notes", &CheckOpReport::notes)
      .def("summary", &CheckOpReport::summary)
      .def("__bool__", [](const CheckOpReport& r) { return r.ok; })
      .def("__repr__", [](const CheckOpReport& r) {
        return std::string("<CheckOpReport ") + (r.ok ? "ok" : "FAILED") + ", " +
               std::to_string(r.failures.size()) + " failure(s), " + std::to_string(r.notes.size()) + " note(s)>";
      });

  m.def("check_op", [](const std::string& name, const py::args& sample_args, const CheckOpOptions& options) {
    const OpSchema& op = find_op(name);
    if (sample_args.empty()) {  // the samples the op declares
      py::gil_scoped_release nogil;
      return check_op(op, options);
    }
    Values values = to_values(op, sample_args, nullptr);
    py::gil_scoped_release nogil;
    return check_op(op, values, options);
  }, py::arg("name"), py::arg("options"),
     "Runs the generic op checks on op `name` with the sample arguments (converted by the schema), "
     "or, given none, with every sample the op declares.");
}

}  // namespace sampan::python
