// What helix's binding files share: the submodule sampan._C.helix and NumPy conversions that
// hand a C++ vector's memory to NumPy without copying.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <utility>
#include <vector>

namespace sampan::python::helix {

namespace py = pybind11;

/// sampan._C.helix, made by the first binding file that asks.
inline py::module_ helix_module(py::module_& m) {
  if (py::hasattr(m, "helix")) return m.attr("helix").cast<py::module_>();
  return m.def_submodule("helix", "helix: molecular graphs from RDKit (featurization, readers, "
                                  "splits, drawing)");
}

/// A NumPy array of `shape` owning the vector's buffer (moved, not copied).
template <class T>
py::array_t<T> to_numpy(std::vector<T>&& values, std::vector<py::ssize_t> shape) {
  auto* owner = new std::vector<T>(std::move(values));
  py::capsule free_when_done(owner, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  std::vector<py::ssize_t> strides(shape.size());
  py::ssize_t stride = sizeof(T);
  for (size_t i = shape.size(); i-- > 0;) {
    strides[i] = stride;
    stride *= shape[i];
  }
  return py::array_t<T>(shape, strides, owner->data(), free_when_done);
}

}  // namespace sampan::python::helix
