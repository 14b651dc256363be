// sampan Python bindings: save/load. Python values become an IoValue tree (and back); the file
// format and its errors live in framework/src/io, so this file only converts.
#include "bindings.h"
#include "sampan/io.h"

namespace sampan::python {

namespace {

std::string type_name(py::handle obj) { return Py_TYPE(obj.ptr())->tp_name; }

// Where a value sits in the saved tree, for error messages: "obj['model']['w'][2]".
std::string key_path(const std::string& where, const std::string& key) { return where + "['" + key + "']"; }
std::string index_path(const std::string& where, size_t i) { return where + "[" + std::to_string(i) + "]"; }

PyObject* numpy_type(const char* name) {
  try {
    return py::module_::import("numpy").attr(name).ptr();
  } catch (py::error_already_set&) {
    return nullptr;  // no NumPy: no NumPy values to recognise
  }
}

bool isinstance_numpy(py::handle obj, const char* name) {
  PyObject* type = numpy_type(name);
  return type && PyObject_IsInstance(obj.ptr(), type) == 1;
}

[[noreturn]] void unsupported(py::handle obj, const std::string& where) {
  SAMPAN_THROW(TypeError, "sampan.save: cannot save ", where, " of type '", type_name(obj),
               "' (supported: Tensor, NumPy array, int, float, bool, str, None, and list, tuple "
               "and dict with str keys of these)");
}

IoValue to_io_value(py::handle obj, const std::string& where, int depth) {
  SAMPAN_CHECK(depth <= 500, ValueError, "sampan.save: ", where, " is nested too deeply (a reference cycle?)");
  PyObject* p = obj.ptr();
  if (obj.is_none()) return IoValue();
  if (PyBool_Check(p)) return IoValue(p == Py_True);
  if (py::isinstance<Tensor>(obj)) return IoValue(obj.cast<Tensor>());
  if (PyLong_Check(p)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(p, &overflow);
    SAMPAN_CHECK(!overflow, ValueError, "sampan.save: the integer ", py::str(obj).cast<std::string>(), " at ", where,
                 " does not fit in int64");
    return IoValue(static_cast<int64_t>(v));
  }
  if (PyFloat_Check(p)) return IoValue(PyFloat_AS_DOUBLE(p));
  if (PyUnicode_Check(p)) return IoValue(obj.cast<std::string>());
  if (PyDict_Check(p)) {  // dict and its subclasses (OrderedDict): insertion order is kept
    IoValue::Dict items;
    for (auto item : py::reinterpret_borrow<py::dict>(obj)) {
      if (!PyUnicode_Check(item.first.ptr()))
        SAMPAN_THROW(TypeError, "sampan.save: the dict at ", where, " has a key of type '", type_name(item.first),
                     "' (", py::repr(item.first).cast<std::string>(), "); only str keys can be saved");
      std::string key = item.first.cast<std::string>();
      items.emplace_back(key, to_io_value(item.second, key_path(where, key), depth + 1));
    }
    return IoValue::dict(std::move(items));
  }
  if (PyList_Check(p) || PyTuple_Check(p)) {
    IoValue::List items;
    auto seq = py::reinterpret_borrow<py::sequence>(obj);
    for (size_t i = 0; i < seq.size(); ++i) items.push_back(to_io_value(seq[i], index_path(where, i), depth + 1));
    return PyList_Check(p) ? IoValue::list(std::move(items)) : IoValue::tuple(std::move(items));
  }
  // NumPy: scalars as the Python scalar they hold, arrays as tensors (through sampan.tensor).
  if (isinstance_numpy(obj, "generic")) {
    py::object item = obj.attr("item")();
    if (isinstance_numpy(item, "generic") || PyComplex_Check(item.ptr())) unsupported(obj, where);
    return to_io_value(item, where, depth + 1);
  }
  if (isinstance_numpy(obj, "ndarray")) return IoValue(to_tensor(obj, Tensor(), "sampan.save: " + where));
  unsupported(obj, where);
}

py::object to_python(const IoValue& value) {
  switch (value.kind()) {
    case IoValue::Kind::None: return py::none();
    case IoValue::Kind::Bool: return py::bool_(value.as_bool());
    case IoValue::Kind::Int: return py::int_(value.as_int());
    case IoValue::Kind::Double: return py::float_(value.as_double());
    case IoValue::Kind::String: return py::str(value.as_string());
    case IoValue::Kind::Tensor: return py::cast(value.as_tensor());
    case IoValue::Kind::List: {
      py::list out;
      for (const auto& item : value.as_list()) out.append(to_python(item));
      return std::move(out);
    }
    case IoValue::Kind::Tuple: {
      const auto& items = value.as_list();
      py::tuple out(items.size());
      for (size_t i = 0; i < items.size(); ++i) out[i] = to_python(items[i]);
      return std::move(out);
    }
    case IoValue::Kind::Dict: {
      py::dict out;
      for (const auto& item : value.as_dict()) out[py::str(item.first)] = to_python(item.second);
      return std::move(out);
    }
  }
  return py::none();
}

// A str path from a str or an os.PathLike (pathlib.Path).
std::string fspath(py::handle path) {
  py::object p = py::module_::import("os").attr("fspath")(path);
  if (!PyUnicode_Check(p.ptr()))
    SAMPAN_THROW(TypeError, "sampan: a path must be str or os.PathLike of str, got '", type_name(path), "'");
  return p.cast<std::string>();
}

void init_io(py::module_& m) {
  m.def("save", [](py::handle obj, py::handle path) {
    IoValue tree = to_io_value(obj, "obj", 0);
    std::string file = fspath(path);
    py::gil_scoped_release no_gil;  // file I/O only from here
    save(tree, file);
  }, py::arg("obj"), py::arg("path"),
     "Saves obj (a Tensor, or int/float/bool/str/None, or list/tuple/dict with str keys of these, "
     "nested: e.g. a state_dict) to the HDF5 file `path`. The write is atomic: the file is written "
     "under a temporary name and renamed over `path`, so a crash never leaves a partial file and "
     "the previous file survives a failed save.");
  m.def("load", [](py::handle path) {
    std::string file = fspath(path);
    IoValue tree;
    {
      py::gil_scoped_release no_gil;
      tree = load(file);
    }
    return to_python(tree);
  }, py::arg("path"),
     "Loads what sampan.save wrote: the same nesting of dicts (key order kept), lists, tuples, "
     "scalars and tensors (on the CPU). OSError naming the path when the file is missing, "
     "truncated, not HDF5, or not written by sampan.");
}

}  // namespace

SAMPAN_PYTHON_BINDING(io, init_io);

}  // namespace sampan::python
