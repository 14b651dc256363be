// sampan Python bindings: the autograd entry points (backward and grad over several tensors,
// the grad-mode switch behind sampan.no_grad). The Python API with its defaults is in
// sampan/autograd.py.
#include "bindings.h"
#include "sampan/autograd.h"

namespace sampan::python {

namespace {

std::vector<Tensor> tensor_list(const py::sequence& seq, const std::string& what) {
  std::vector<Tensor> r;
  for (auto e : seq) {
    if (!py::isinstance<Tensor>(e))
      SAMPAN_THROW(TypeError, what, " must hold Tensors, got ", Py_TYPE(e.ptr())->tp_name);
    r.push_back(e.cast<Tensor>());
  }
  return r;
}

// grad_outputs: None entries mean "ones" (for one-element outputs); scalars and arrays are
// converted next to their output.
std::vector<Tensor> grad_list(const py::object& grads, const std::vector<Tensor>& outputs) {
  if (grads.is_none()) return {};
  std::vector<Tensor> r;
  size_t i = 0;
  for (auto e : py::reinterpret_borrow<py::sequence>(grads)) {
    const Tensor& like = i < outputs.size() ? outputs[i] : Tensor();
    r.push_back(e.is_none() ? Tensor() : to_tensor(e, like, "grad_outputs[" + std::to_string(i) + "]"));
    ++i;
  }
  return r;
}

}  // namespace

void init_autograd(py::module_& m) {
  m.def("backward", [](const py::sequence& tensors, const py::object& grad_tensors, bool retain_graph,
                       bool create_graph) {
    auto outs = tensor_list(tensors, "backward(tensors)");
    auto grads = grad_list(grad_tensors, outs);
    py::gil_scoped_release nogil;  // hooks take the GIL back when they run
    sampan::backward(outs, grads, retain_graph, create_graph);
  }, py::arg("tensors"), py::arg("grad_tensors") = py::none(), py::arg("retain_graph") = false,
     py::arg("create_graph") = false);

  m.def("grad", [](const py::sequence& outputs, const py::sequence& inputs, const py::object& grad_outputs,
                   bool create_graph, bool retain_graph, bool allow_unused) {
    auto outs = tensor_list(outputs, "grad(outputs)");
    auto ins = tensor_list(inputs, "grad(inputs)");
    auto grads = grad_list(grad_outputs, outs);
    std::vector<Tensor> res;
    {
      py::gil_scoped_release nogil;
      res = sampan::grad(outs, ins, grads, create_graph, retain_graph, allow_unused);
    }
    py::tuple t(res.size());
    for (size_t i = 0; i < res.size(); ++i) t[i] = res[i].defined() ? py::cast(res[i]) : py::none();
    return t;
  }, py::arg("outputs"), py::arg("inputs"), py::arg("grad_outputs") = py::none(),
     py::arg("create_graph") = false, py::arg("retain_graph") = false, py::arg("allow_unused") = false);

  m.def("set_grad_mode", &set_grad_mode, py::arg("enabled"),
        "Turns graph recording on or off for this thread.");
  m.def("grad_mode_enabled", &grad_mode_enabled, "Whether ops record the autograd graph (this thread).");
  m.def("set_saved_tensor_selection", &set_saved_tensor_selection, py::arg("enabled"),
        "True (the default): the tape keeps only what each vjp reads; False: every argument and output.");
  m.def("saved_tensor_selection_enabled", &saved_tensor_selection_enabled,
        "Whether the tape keeps only what each vjp reads (process-wide).");
  m.def("set_buffer_donation", &set_buffer_donation, py::arg("enabled"),
        "True (the default): an op may write its output over an input buffer its call alone holds.");
  m.def("buffer_donation_enabled", &buffer_donation_enabled, "Whether buffer donation is on (process-wide).");
}

}  // namespace sampan::python
