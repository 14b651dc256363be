// sampan Python bindings: what sampan.nn needs from C++. A Python subclass of Tensor (such as
// sampan.nn.Parameter) must construct its C++ part; Tensor(other) makes it another handle to
// `other`'s tensor, which Parameter calls with a detached tensor (a new leaf sharing storage).
#include "bindings.h"

namespace sampan::python {

namespace {

void init_nn(py::module_& m) {
  auto cls = py::reinterpret_borrow<py::class_<Tensor>>(m.attr("Tensor"));
  cls.def(py::init([](const Tensor& other) { return other; }), py::arg("other"),
          "Tensor(other): another handle to the same tensor (shared storage, autograd state and "
          "grad). Used by Python subclasses such as sampan.nn.Parameter; create tensors with "
          "sampan.tensor.");
}

}  // namespace

SAMPAN_PYTHON_BINDING(nn, init_nn);

}  // namespace sampan::python
