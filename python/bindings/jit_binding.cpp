// sampan Python bindings: static graphs (sampan/jit.h); sampan/jit.py is the Python API.
#include <pybind11/stl.h>

#include "bindings.h"
#include "sampan/jit.h"

namespace sampan::python {

namespace {

py::list input_specs(const jit::Graph& g) {
  py::list l;
  for (const jit::InputSpec& s : g.inputs()) {
    py::dict d;
    d["name"] = s.name;
    d["dtype"] = dtype_object(s.dtype);
    d["shape"] = py::tuple(py::cast(s.shape));
    py::list dims;
    for (const auto& x : s.dims) dims.append(x.empty() ? py::object(py::none()) : py::object(py::str(x)));
    d["dims"] = dims;
    l.append(d);
  }
  return l;
}

void init_jit(py::module_& m) {
  py::class_<jit::Graph>(m, "JitGraph", "A traced graph of registered ops (sampan.jit.TracedGraph wraps it).")
      .def("run", [](const jit::Graph& g, const std::vector<Tensor>& inputs) {
        py::gil_scoped_release nogil;
        return g.run(inputs);
      }, py::arg("inputs"))
      .def("__str__", &jit::Graph::str)
      .def_property_readonly("num_nodes", &jit::Graph::num_nodes)
      .def_property_readonly("num_outputs", &jit::Graph::num_outputs)
      .def_property_readonly("inputs", &input_specs)
      .def_property_readonly("ops", [](const jit::Graph& g) {
        std::vector<std::string> names;
        for (const auto& n : g.nodes()) names.push_back(n.is_guard() ? std::string("<guard>") : n.op_name);
        return names;
      })
      .def_property_readonly("libraries", [](const jit::Graph& g) {
        std::vector<std::pair<std::string, std::string>> libs;
        for (const auto& l : g.libraries()) libs.emplace_back(l.name, l.hash);
        return libs;
      })
      .def("eliminate_dead_code", &jit::Graph::eliminate_dead_code)
      .def("fold_constants", &jit::Graph::fold_constants, py::call_guard<py::gil_scoped_release>())
      .def("plan_memory", &jit::Graph::plan_memory)
      .def_property_readonly("memory_planned", &jit::Graph::memory_planned);

  py::class_<jit::Tracer>(m, "JitTracer", "Records the op calls of this thread (sampan.jit.trace uses it).")
      .def(py::init<const std::vector<Tensor>&, std::vector<std::string>,
                    const std::map<std::string, std::map<int64_t, std::string>>&>(),
           py::arg("inputs"), py::arg("names"), py::arg("dynamic_dims"))
      .def("finish", &jit::Tracer::finish, py::arg("outputs"));

  m.def("jit_save", &jit::save, py::arg("graph"), py::arg("path"), py::arg("embed_libraries") = false,
        py::call_guard<py::gil_scoped_release>());
  m.def("jit_load", &jit::load, py::arg("path"), py::call_guard<py::gil_scoped_release>());
}

}  // namespace

SAMPAN_PYTHON_BINDING(jit, init_jit);

}  // namespace sampan::python
