// sampan Python bindings: Python values to sampan values, by the op schema's argument kinds.
// One place, so that generated op functions, the C++ fast-path operators and check_op accept
// exactly the same inputs and fail with the same messages.
#include <climits>
#include <complex>

#include "bindings.h"
#include "sampan/ops/copy.h"

namespace sampan::python {

namespace {

// sampan.tensor, set at import time; converts NumPy arrays and nested lists.
py::object* g_tensor_factory = nullptr;

std::string type_name(py::handle obj) { return Py_TYPE(obj.ptr())->tp_name; }

// numpy.generic, looked up once; null when NumPy is not importable (then there are no NumPy
// scalars to recognise). Kept for the life of the process on purpose.
PyObject* numpy_generic_type() {
  static PyObject* generic = [] () -> PyObject* {
    try {
      return py::object(py::module_::import("numpy").attr("generic")).release().ptr();
    } catch (py::error_already_set&) {
      return nullptr;
    }
  }();
  return generic;
}

bool is_numpy_scalar(py::handle obj) {
  PyObject* g = numpy_generic_type();
  return g && PyObject_IsInstance(obj.ptr(), g) == 1;
}

enum class ScalarKind { Bool, Int, Float, Complex };

struct ScalarValue {
  ScalarKind kind;
  int64_t i = 0;
  std::complex<double> c;  // the value as complex (for every kind)
};

ScalarValue read_scalar(py::handle obj) {
  PyObject* p = obj.ptr();
  if (PyBool_Check(p)) {
    bool b = p == Py_True;
    return {ScalarKind::Bool, b, {b ? 1.0 : 0.0, 0.0}};
  }
  if (PyLong_Check(p)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(p, &overflow);
    SAMPAN_CHECK(!overflow, ValueError, "the Python integer ", py::str(obj).cast<std::string>(),
                 " does not fit in int64");
    return {ScalarKind::Int, v, {static_cast<double>(v), 0.0}};
  }
  if (PyFloat_Check(p)) {
    double v = PyFloat_AS_DOUBLE(p);
    return {ScalarKind::Float, 0, {v, 0.0}};
  }
  if (PyComplex_Check(p)) {
    Py_complex v = PyComplex_AsCComplex(p);
    return {ScalarKind::Complex, 0, {v.real, v.imag}};
  }
  if (is_numpy_scalar(obj)) {
    // NumPy scalars act as the Python scalars they hold (weak, like PyTorch treats them).
    py::object item = obj.attr("item")();
    if (PyBool_Check(item.ptr()) || PyLong_Check(item.ptr()) || PyFloat_Check(item.ptr()) ||
        PyComplex_Check(item.ptr()))
      return read_scalar(item);
  }
  SAMPAN_THROW(TypeError, "expected a number (bool, int, float or complex), got ", type_name(obj));
}

DType scalar_dtype(ScalarKind kind, const Tensor& like) {
  if (!like.defined()) {
    switch (kind) {
      case ScalarKind::Bool: return DType::Bool;
      case ScalarKind::Int: return DType::Int64;
      case ScalarKind::Float: return DType::Float32;
      case ScalarKind::Complex: return DType::Complex64;
    }
  }
  DType d = like.dtype();
  switch (kind) {
    case ScalarKind::Bool: return d;
    case ScalarKind::Int: return d == DType::Bool ? DType::Int64 : d;
    case ScalarKind::Float: return (is_floating(d) || is_complex(d)) ? d : DType::Float32;
    case ScalarKind::Complex:
      if (is_complex(d)) return d;
      return d == DType::Float64 ? DType::Complex128 : DType::Complex64;
  }
  return d;
}

// Writes the scalar into a fresh 0-d tensor of dtype `d` (no op call: this is the hot path of
// `x + 1`).
Tensor make_scalar(const ScalarValue& v, DType d) {
  Tensor t = Tensor::empty({}, d);
  void* p = t.raw_data();
  const double re = v.c.real();
  const bool integral = v.kind == ScalarKind::Int || v.kind == ScalarKind::Bool;
  switch (d) {
    case DType::Bool: *static_cast<bool*>(p) = v.c != std::complex<double>(0.0, 0.0); break;
    case DType::Int32: *static_cast<int32_t*>(p) = static_cast<int32_t>(integral ? v.i : static_cast<int64_t>(re)); break;
    case DType::Int64: *static_cast<int64_t*>(p) = integral ? v.i : static_cast<int64_t>(re); break;
    case DType::Float16: *static_cast<Half*>(p) = Half(static_cast<float>(re)); break;
    case DType::BFloat16: *static_cast<BFloat16*>(p) = BFloat16(static_cast<float>(re)); break;
    case DType::Float32: *static_cast<float*>(p) = static_cast<float>(re); break;
    case DType::Float64: *static_cast<double*>(p) = re; break;
    case DType::Complex64: *static_cast<complex64*>(p) = complex64(static_cast<float>(re), static_cast<float>(v.c.imag())); break;
    case DType::Complex128: *static_cast<complex128*>(p) = v.c; break;
  }
  return t;
}

bool is_sequence(py::handle obj) {
  return PySequence_Check(obj.ptr()) && !PyUnicode_Check(obj.ptr()) && !PyBytes_Check(obj.ptr());
}

[[noreturn]] void wrong_kind(const OpSchema& op, size_t i, py::handle got, const std::string& extra = "") {
  SAMPAN_THROW(TypeError, "op '", op.name, "': argument '", op.arg_names[i], "' expects ",
               arg_kind_name(op.arg_kinds[i]), ", got ", type_name(got), extra);
}

int64_t read_int(const OpSchema& op, size_t i, py::handle obj) {
  PyObject* p = obj.ptr();
  if (PyFloat_Check(p) || PyComplex_Check(p) || !PyIndex_Check(p))
    wrong_kind(op, i, obj, " (" + py::repr(obj).cast<std::string>() + ")");
  py::object index = py::reinterpret_steal<py::object>(PyNumber_Index(p));
  if (!index) throw py::error_already_set();
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(index.ptr(), &overflow);
  SAMPAN_CHECK(!overflow, ValueError, "op '", op.name, "': argument '", op.arg_names[i], "': integer ",
               py::str(obj).cast<std::string>(), " does not fit in int64");
  return v;
}

double read_float(const OpSchema& op, size_t i, py::handle obj) {
  PyObject* p = obj.ptr();
  if (PyFloat_Check(p)) return PyFloat_AS_DOUBLE(p);
  if (PyComplex_Check(p) || PyUnicode_Check(p) || !(PyNumber_Check(p) || py::hasattr(obj, "__float__")))
    wrong_kind(op, i, obj);
  double v = PyFloat_AsDouble(p);
  if (v == -1.0 && PyErr_Occurred()) throw py::error_already_set();
  return v;
}

std::string read_string(const OpSchema& op, size_t i, py::handle obj) {
  if (PyUnicode_Check(obj.ptr())) return obj.cast<std::string>();
  // dtype arguments are strings in op schemas: accept sampan and NumPy dtypes for them.
  try {
    return dtype_name(to_dtype(obj));
  } catch (const TypeError&) {
    wrong_kind(op, i, obj);
  }
}

}  // namespace

void set_tensor_factory(py::object factory) {
  if (!g_tensor_factory) g_tensor_factory = new py::object();  // lives as long as the process
  *g_tensor_factory = std::move(factory);
}

bool is_python_scalar(py::handle obj) {
  PyObject* p = obj.ptr();
  if (PyBool_Check(p) || PyLong_Check(p) || PyFloat_Check(p) || PyComplex_Check(p)) return true;
  if (!is_numpy_scalar(obj)) return false;
  py::object item = obj.attr("item")();
  p = item.ptr();
  return PyBool_Check(p) || PyLong_Check(p) || PyFloat_Check(p) || PyComplex_Check(p);
}

Tensor scalar_to_tensor(py::handle obj, const Tensor& like) {
  ScalarValue v = read_scalar(obj);
  Tensor t = make_scalar(v, scalar_dtype(v.kind, like));
  // Beside a GPU tensor the number goes to the GPU too (`x + 1.0`), so the op sees one device.
  return like.defined() && like.device().is_cuda() ? to_device(t, like.device()) : t;
}

Tensor to_tensor(py::handle obj, const Tensor& like, const std::string& what) {
  if (py::isinstance<Tensor>(obj)) return obj.cast<Tensor>();
  SAMPAN_CHECK(!obj.is_none(), TypeError, what, " expects a Tensor, got None");
  if (is_python_scalar(obj)) return scalar_to_tensor(obj, like);
  if (!g_tensor_factory || !*g_tensor_factory)
    SAMPAN_THROW(TypeError, what, " expects a Tensor, got ", type_name(obj));
  py::object t = (*g_tensor_factory)(obj);
  return t.cast<Tensor>();
}

Values to_values(const OpSchema& op, const py::args& args, const py::kwargs* kwargs) {
  const size_t n = op.arg_kinds.size();
  SAMPAN_CHECK(args.size() <= n, TypeError, "op '", op.name, "' takes ", n, " arguments (",
               op.signature(), "), got ", args.size());
  std::vector<py::handle> slot(n);
  for (size_t i = 0; i < args.size(); ++i) slot[i] = args[i];
  if (kwargs) {
    for (auto item : *kwargs) {
      std::string key = item.first.cast<std::string>();
      size_t i = 0;
      while (i < n && op.arg_names[i] != key) ++i;
      SAMPAN_CHECK(i != n, TypeError, "op '", op.name, "' has no argument '", key, "' (", op.signature(), ")");
      if (slot[i])
        SAMPAN_THROW(TypeError, "op '", op.name, "': argument '", key, "' given twice");
      slot[i] = item.second;
    }
  }

  // The first Tensor argument decides the dtype of Python scalars given for tensor arguments.
  Tensor like;
  for (size_t i = 0; i < n && !like.defined(); ++i) {
    if (!slot[i]) continue;
    if (op.arg_kinds[i] == ArgKind::Tensor || op.arg_kinds[i] == ArgKind::OptionalTensor) {
      if (py::isinstance<Tensor>(slot[i])) like = slot[i].cast<Tensor>();
    } else if (op.arg_kinds[i] == ArgKind::TensorList && is_sequence(slot[i])) {
      for (auto e : py::reinterpret_borrow<py::sequence>(slot[i]))
        if (py::isinstance<Tensor>(e)) { like = e.cast<Tensor>(); break; }
    }
  }

  Values values(n);
  for (size_t i = 0; i < n; ++i) {
    py::handle h = slot[i];
    const ArgKind kind = op.arg_kinds[i];
    if (!h) {
      if (i < op.defaults.size() && op.defaults[i]) {  // the op's declared default
        values[i] = *op.defaults[i];
        continue;
      }
      if (kind == ArgKind::OptionalTensor) continue;  // monostate: absent (by keyword calls)
      SAMPAN_THROW(TypeError, "op '", op.name, "': missing argument '", op.arg_names[i], "' (",
                   op.signature(), ")");
    }
    const std::string what = "op '" + op.name + "': argument '" + op.arg_names[i] + "'";
    switch (kind) {
      case ArgKind::Tensor: values[i] = to_tensor(h, like, what); break;
      case ArgKind::OptionalTensor:
        if (!h.is_none()) values[i] = to_tensor(h, like, what);
        break;
      case ArgKind::TensorList: {
        if (!is_sequence(h)) wrong_kind(op, i, h);
        std::vector<Tensor> list;
        for (auto e : py::reinterpret_borrow<py::sequence>(h)) list.push_back(to_tensor(e, like, what));
        values[i] = std::move(list);
        break;
      }
      case ArgKind::Bool:
        if (PyBool_Check(h.ptr())) values[i] = h.ptr() == Py_True;
        else if (is_numpy_scalar(h) && PyBool_Check(h.attr("item")().ptr())) values[i] = h.attr("item")().cast<bool>();
        else wrong_kind(op, i, h);
        break;
      case ArgKind::Int: values[i] = read_int(op, i, h); break;
      case ArgKind::Float: values[i] = read_float(op, i, h); break;
      case ArgKind::String: values[i] = read_string(op, i, h); break;
      case ArgKind::IntList: {
        std::vector<int64_t> v;
        if (is_sequence(h)) {
          for (auto e : py::reinterpret_borrow<py::sequence>(h)) v.push_back(read_int(op, i, e));
        } else {
          v.push_back(read_int(op, i, h));
        }
        values[i] = std::move(v);
        break;
      }
      case ArgKind::FloatList: {
        std::vector<double> v;
        if (is_sequence(h)) {
          for (auto e : py::reinterpret_borrow<py::sequence>(h)) v.push_back(read_float(op, i, e));
        } else {
          v.push_back(read_float(op, i, h));
        }
        values[i] = std::move(v);
        break;
      }
      case ArgKind::StringList: {
        std::vector<std::string> v;
        if (is_sequence(h)) {
          for (auto e : py::reinterpret_borrow<py::sequence>(h)) v.push_back(read_string(op, i, e));
        } else {
          v.push_back(read_string(op, i, h));
        }
        values[i] = std::move(v);
        break;
      }
    }
  }
  return values;
}

py::object outputs_to_python(std::vector<Tensor>&& outs) {
  if (outs.size() == 1) return py::cast(std::move(outs[0]));
  py::tuple t(outs.size());
  for (size_t i = 0; i < outs.size(); ++i) t[i] = py::cast(std::move(outs[i]));
  return std::move(t);
}

}  // namespace sampan::python
