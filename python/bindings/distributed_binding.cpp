// sampan._C.distributed: the collectives of sampan/distributed.h. The Python API with the
// data-parallel helper is sampan/distributed.py.
#include "bindings.h"
#include "sampan/distributed.h"

namespace sampan::python {

namespace {
void init_distributed(py::module_& m) {
  namespace d = sampan::distributed;
  auto s = m.def_submodule("distributed", "Collectives over MPI ranks, in place on CPU tensors.");
  s.def("built_with_mpi", &d::built_with_mpi);
  s.def("under_launcher", &d::under_launcher);
  s.def("active", &d::active);
  s.def("rank", &d::rank);
  s.def("world_size", &d::world_size);
  s.def("all_reduce", [](const Tensor& t, const std::string& op) { d::all_reduce(t, d::parse_reduce_op(op)); },
        py::arg("tensor"), py::arg("op") = "sum", py::call_guard<py::gil_scoped_release>());
  s.def("broadcast", &d::broadcast, py::arg("tensor"), py::arg("root") = 0, py::call_guard<py::gil_scoped_release>());
  s.def("all_gather", &d::all_gather, py::arg("tensor"), py::call_guard<py::gil_scoped_release>());
  s.def("barrier", &d::barrier, py::call_guard<py::gil_scoped_release>());
  s.def("send", &d::send, py::arg("tensor"), py::arg("dest"), py::arg("tag") = 0,
        py::call_guard<py::gil_scoped_release>());
  s.def("recv", &d::recv, py::arg("tensor"), py::arg("source"), py::arg("tag") = 0,
        py::call_guard<py::gil_scoped_release>());
}
}  // namespace

SAMPAN_PYTHON_BINDING(distributed, init_distributed);

}  // namespace sampan::python
