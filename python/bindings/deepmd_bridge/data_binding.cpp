// sampan Python bindings of deepmd_bridge data: DeePMD systems as a dict of float64 tensors.
// The reading and its errors live in deepmd_bridge/src/data; this file only converts.
#include "bindings.h"
#include "sampan/deepmd/data.h"
#include "sampan/ops.h"

namespace sampan::python {

namespace {

py::object tensor_or_none(const std::vector<double>& values, const Shape& shape) {
  if (values.empty()) return py::none();
  return py::cast(from_vector(values, shape, DType::Float64));
}

void init_deepmd_data(py::module_& m) {
  m.def("deepmd_load_system", [](const std::string& path) {
    deepmd::System system;
    {
      py::gil_scoped_release no_gil;
      system = deepmd::load_system(path);
    }
    const int64_t nf = system.nframes, na = system.natoms();
    std::vector<double> types(system.atom_types.begin(), system.atom_types.end());
    py::dict out;
    out["path"] = system.path;
    out["type_map"] = system.type_map;
    out["atom_types"] = cast(from_vector(types, {na}, DType::Float64), DType::Int64);
    out["periodic"] = system.periodic;
    out["coord"] = tensor_or_none(system.coord, {nf, na, 3});
    out["box"] = tensor_or_none(system.box, {nf, 3, 3});
    out["energy"] = tensor_or_none(system.energy, {nf});
    out["force"] = tensor_or_none(system.force, {nf, na, 3});
    out["virial"] = tensor_or_none(system.virial, {nf, 3, 3});
    return out;
  }, py::arg("path"),
     "Reads a DeePMD system (deepmd/npy or raw) into a dict of float64 tensors; see "
     "sampan.deepmd.load_system.");
}

}  // namespace

SAMPAN_PYTHON_BINDING(deepmd_data, init_deepmd_data);

}  // namespace sampan::python
