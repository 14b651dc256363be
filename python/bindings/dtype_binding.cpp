// sampan Python bindings: `sampan.dtype` and the module constants sampan.float32, ... One Python
// object per dtype (so `x.dtype is sp.float32` holds); it compares equal to its name and to the
// matching NumPy dtype, and prints as `sampan.float32`.
#include <array>

#include "bindings.h"

namespace sampan::python {

namespace {

constexpr std::array<DType, 9> kAllDTypes = {
    DType::Bool,    DType::Int32,   DType::Int64,     DType::Float16,   DType::BFloat16,
    DType::Float32, DType::Float64, DType::Complex64, DType::Complex128,
};

// Created in init_dtype and never freed: they must outlive every tensor the interpreter holds.
std::array<py::object, 9>* g_dtype_objects = nullptr;

}  // namespace

py::object dtype_object(DType d) { return (*g_dtype_objects)[static_cast<size_t>(d)]; }

DType to_dtype(py::handle obj) {
  if (py::isinstance<DType>(obj)) return obj.cast<DType>();
  if (PyUnicode_Check(obj.ptr())) return dtype_from_name(obj.cast<std::string>());
  // Python's own scalar types, as NumPy reads them (float is float64, int is int64).
  if (obj.ptr() == reinterpret_cast<PyObject*>(&PyBool_Type)) return DType::Bool;
  if (obj.ptr() == reinterpret_cast<PyObject*>(&PyLong_Type)) return DType::Int64;
  if (obj.ptr() == reinterpret_cast<PyObject*>(&PyFloat_Type)) return DType::Float64;
  if (obj.ptr() == reinterpret_cast<PyObject*>(&PyComplex_Type)) return DType::Complex128;
  // NumPy dtypes and scalar types (np.float32, np.dtype('int64')) by their name.
  std::string name;
  try {
    name = py::module_::import("numpy").attr("dtype")(obj).attr("name").cast<std::string>();
  } catch (py::error_already_set&) {
    SAMPAN_THROW(TypeError, "cannot interpret ", py::repr(obj).cast<std::string>(),
                 " as a sampan dtype: expected sampan.float32 ..., a name such as 'float64', "
                 "or a NumPy dtype");
  }
  return dtype_from_name(name);
}

void init_dtype(py::module_& m) {
  py::class_<DType> cls(m, "dtype",
                        "Element type of a Tensor. Compares equal to its name ('float32') and to "
                        "the matching NumPy dtype.");
  cls.def(py::init([](py::handle obj) { return to_dtype(obj); }), py::arg("spec"),
          "dtype from a name, a NumPy dtype or another dtype.")
      .def_property_readonly("name", [](DType d) { return std::string(dtype_name(d)); })
      .def_property_readonly("itemsize", [](DType d) { return itemsize(d); }, "Bytes per element.")
      .def_property_readonly("is_floating_point", [](DType d) { return is_floating(d); })
      .def_property_readonly("is_complex", [](DType d) { return is_complex(d); })
      .def_property_readonly("is_integer", [](DType d) { return is_integral(d); })
      .def_property_readonly("is_differentiable", [](DType d) { return is_differentiable(d); },
                             "Floating or complex: the dtypes gradients flow through.")
      .def("__repr__", [](DType d) { return std::string("sampan.") + dtype_name(d); })
      .def("__str__", [](DType d) { return std::string(dtype_name(d)); })
      .def("__hash__", [](DType d) { return py::hash(py::str(dtype_name(d))); })
      .def("__eq__", [](DType d, py::handle other) {
        if (other.is_none()) return false;
        try {
          return to_dtype(other) == d;
        } catch (const std::exception&) {
          return false;
        }
      })
      .def("__ne__", [](DType d, py::handle other) {
        try {
          return other.is_none() || to_dtype(other) != d;
        } catch (const std::exception&) {
          return true;
        }
      })
      // Pickled by name: the module attribute of the same name is the one object.
      .def("__reduce__", [](DType d) { return std::string(dtype_name(d)); });

  g_dtype_objects = new std::array<py::object, 9>();
  for (DType d : kAllDTypes) {
    py::object o = py::cast(d);
    (*g_dtype_objects)[static_cast<size_t>(d)] = o;
    m.attr(dtype_name(d)) = o;
  }
  m.def("promote_types", [](py::handle a, py::handle b) { return dtype_object(promote_types(to_dtype(a), to_dtype(b))); },
        py::arg("a"), py::arg("b"), "NumPy's result_type for two dtypes.");
  m.def("all_dtypes", [] {
    py::list l;
    for (DType d : kAllDTypes) l.append(dtype_object(d));
    return py::tuple(l);
  });
}

}  // namespace sampan::python
