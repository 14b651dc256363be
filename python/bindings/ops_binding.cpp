// sampan Python bindings: calling registered ops. There is ONE generic binding for every op,
// `OpHandle(name)(*args, **kwargs)`, which converts arguments by the op's schema; the Python
// functions sp.ops.<ns>.<name> are generated from `op_names()` and `op_schema()` by
// sampan/_ops.py. The arithmetic operators most used in loops (+ - * / and unary -) are bound
// here directly to sampan::add ... to skip the generic conversion (per-op overhead), and
// operator_slots.cpp puts them into the type's number slots for the common cases.
#include <optional>

#include "bindings.h"
#include "sampan/op_library.h"
#include "sampan/ops.h"

namespace sampan::python {

namespace {

// Releasing and re-taking the GIL costs ~0.2 us, a third of a small op; below this many input
// elements the op is done before another Python thread could make use of the GIL.
constexpr int64_t kReleaseGilElements = 16384;

bool worth_releasing_gil(const Values& values) {
  int64_t n = 0;
  for (const auto& v : values) {
    if (auto* t = std::get_if<Tensor>(&v)) n += t->numel();
    else if (auto* l = std::get_if<std::vector<Tensor>>(&v))
      for (auto& x : *l) n += x.numel();
  }
  return n >= kReleaseGilElements;
}

// A callable for one registered op. The schema pointer stays valid: the registry never frees.
class PyOpHandle {
 public:
  explicit PyOpHandle(const std::string& name) : op_(&find_op(name)) {}
  py::object call(const py::args& args, const py::kwargs& kwargs) const {
    Values values = to_values(*op_, args, kwargs.empty() ? nullptr : &kwargs);
    std::vector<Tensor> outs;
    if (worth_releasing_gil(values)) {
      py::gil_scoped_release nogil;  // see bindings.h: ops run without the GIL
      outs = call_op(*op_, std::move(values));
    } else {
      outs = call_op(*op_, std::move(values));
    }
    return outputs_to_python(std::move(outs));
  }
  const OpSchema& schema() const { return *op_; }

 private:
  const OpSchema* op_;
};

// A default value as Python: lists become tuples (immutable, so a shared default stays unchanged).
struct DefaultToPython {
  py::object operator()(std::monostate) const { return py::none(); }
  py::object operator()(const Tensor& t) const { return py::cast(t); }
  py::object operator()(const std::vector<Tensor>& l) const { return py::tuple(py::cast(l)); }
  py::object operator()(bool b) const { return py::bool_(b); }
  py::object operator()(int64_t i) const { return py::int_(i); }
  py::object operator()(double d) const { return py::float_(d); }
  py::object operator()(const std::string& s) const { return py::str(s); }
  template <class T> py::object operator()(const std::vector<T>& l) const { return py::tuple(py::cast(l)); }
};
py::object default_to_python(const Value& v) { return std::visit(DefaultToPython{}, v); }

py::dict schema_dict(const OpSchema& op) {
  py::dict d;
  d["name"] = op.name;
  d["namespace"] = op.ns();
  d["short_name"] = op.short_name();
  d["doc"] = op.doc;
  d["signature"] = op.signature();
  d["library"] = op.library;
  d["arg_names"] = py::cast(op.arg_names);
  py::list kinds;
  for (ArgKind k : op.arg_kinds) kinds.append(arg_kind_name(k));
  d["arg_kinds"] = kinds;
  d["output_names"] = py::cast(op.output_names);
  d["nondifferentiable"] = op.nondifferentiable;
  d["once_differentiable"] = op.once_differentiable;
  d["inplace"] = py::cast(op.inplace);
  d["views"] = py::cast(op.views);
  d["amp"] = amp_cast_name(op.amp);
  py::list dtypes;
  for (DType t : op.dtypes) dtypes.append(dtype_object(t));
  d["dtypes"] = dtypes;
  py::dict defaults;  // argument name -> default, for the trailing arguments that have one
  for (size_t i = 0; i < op.defaults.size(); ++i)
    if (op.defaults[i]) defaults[py::str(op.arg_names[i])] = default_to_python(*op.defaults[i]);
  d["defaults"] = defaults;
  py::list devices;
  for (const auto& kv : op.kernels) devices.append(kv.first == DeviceType::CPU ? "cpu" : "cuda");
  d["devices"] = devices;
  d["has_samples"] = !op.samples.empty();
  py::list reuses;  // tensor arguments whose buffer output 0 may take
  for (int i : op.output_reuses) reuses.append(op.arg_names[static_cast<size_t>(i)]);
  d["output_may_reuse"] = reuses;
  if (op.vjp_keeps_arg.empty()) {
    d["saves_for_vjp"] = py::none();  // everything is kept
  } else {
    py::list kept;  // argument and output names, arguments first
    for (size_t i = 0; i < op.arg_names.size(); ++i)
      if (op.vjp_keeps_arg[i]) kept.append(op.arg_names[i]);
    for (size_t o = 0; o < op.output_names.size(); ++o)
      if (op.vjp_keeps_output[o] && !kept.contains(op.output_names[o])) kept.append(op.output_names[o]);
    d["saves_for_vjp"] = kept;
  }
  return d;
}

// The right operand of an arithmetic operator as a tensor; nullopt means "not ours"
// (the operator then returns NotImplemented so Python tries the other operand).
std::optional<Tensor> operand(py::handle other, const Tensor& like) {
  if (py::isinstance<Tensor>(other)) return other.cast<Tensor>();
  if (is_python_scalar(other)) return scalar_to_tensor(other, like);
  static PyObject* ndarray = [] () -> PyObject* {
    try {
      return py::object(py::module_::import("numpy").attr("ndarray")).release().ptr();
    } catch (py::error_already_set&) {
      return nullptr;
    }
  }();
  if (ndarray && PyObject_IsInstance(other.ptr(), ndarray) == 1)
    return to_tensor(other, like, "operand");
  return std::nullopt;
}

py::object not_implemented() { return py::reinterpret_borrow<py::object>(Py_NotImplemented); }

using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);

Tensor call_without_gil(BinaryFn f, const Tensor& a, const Tensor& b) {
  if (a.numel() + b.numel() < kReleaseGilElements) return f(a, b);
  py::gil_scoped_release nogil;
  return f(a, b);
}

template <BinaryFn F> py::object forward_op(const Tensor& a, py::handle b) {
  auto t = operand(b, a);
  return t ? py::cast(call_without_gil(F, a, *t)) : not_implemented();
}
template <BinaryFn F> py::object reflected_op(const Tensor& a, py::handle b) {
  auto t = operand(b, a);
  return t ? py::cast(call_without_gil(F, *t, a)) : not_implemented();
}
// x += y writes into x and returns the same Python object.
template <BinaryFn F> py::object inplace_op(py::object self, py::handle b) {
  const Tensor& a = self.cast<const Tensor&>();
  auto t = operand(b, a);
  if (!t) return not_implemented();
  call_without_gil(F, a, *t);
  return self;
}

}  // namespace

void init_ops(py::module_& m) {
  m.def("op_names", &registered_ops, "Names ('ns::name') of all registered ops, sorted.");
  m.def("op_schema", [](const std::string& name) { return schema_dict(find_op(name)); }, py::arg("name"),
        "The schema of op `name` as a dict: name, namespace, short_name, doc, signature, library, "
        "arg_names, arg_kinds, output_names, nondifferentiable, once_differentiable, inplace, "
        "views, amp (autocast policy: keep, low_precision, float32), dtypes, defaults (argument name -> default), devices (those with a kernel), "
        "has_samples, saves_for_vjp (the argument and output names whose data the tape keeps for the "
        "gradient; None: all), output_may_reuse (arguments whose buffer the output may take).");
  m.def("has_op", [](const std::string& name) { return find_op_if(name) != nullptr; }, py::arg("name"));
  // einsum is a C++ composition of registered ops (not an op itself), so it is bound by hand.
  m.def("einsum", [](const std::string& equation, const std::vector<Tensor>& operands) {
    return einsum(equation, operands);
  }, py::arg("equation"), py::arg("operands"));
  m.def("load_op_library", &load_op_library, py::arg("path"),
        "dlopens an op library and returns the names of the ops it registered "
        "(call sampan.ops._refresh() afterwards, or use sampan.ops.load_library).");

  py::class_<PyOpHandle>(m, "OpHandle", "A callable for one registered op: OpHandle('core::add')(x, y).")
      .def(py::init<const std::string&>(), py::arg("name"))
      .def("__call__", &PyOpHandle::call)
      .def_property_readonly("name", [](const PyOpHandle& h) { return h.schema().name; })
      .def_property_readonly("schema", [](const PyOpHandle& h) { return schema_dict(h.schema()); })
      .def("__repr__", [](const PyOpHandle& h) { return "<sampan.OpHandle " + h.schema().signature() + ">"; });

  m.def("_set_tensor_factory", &set_tensor_factory, py::arg("factory"),
        "Sets the function that turns lists and arrays into tensors for op arguments (sampan.tensor).");
  m.def("_scalar_tensor", [](py::handle value, py::object like) {
    return scalar_to_tensor(value, like.is_none() ? Tensor() : like.cast<Tensor>());
  }, py::arg("value"), py::arg("like") = py::none(),
     "A 0-d tensor for a Python scalar with the dtype it takes next to `like` (weak scalar rule).");

  // ---- fast-path operators ----
  auto cls = py::reinterpret_borrow<py::class_<Tensor>>(m.attr("Tensor"));
  cls.def("__add__", &forward_op<add>, py::arg("other"))
      .def("__radd__", &reflected_op<add>, py::arg("other"))
      .def("__sub__", &forward_op<sub>, py::arg("other"))
      .def("__rsub__", &reflected_op<sub>, py::arg("other"))
      .def("__mul__", &forward_op<mul>, py::arg("other"))
      .def("__rmul__", &reflected_op<mul>, py::arg("other"))
      .def("__truediv__", &forward_op<div>, py::arg("other"))
      .def("__rtruediv__", &reflected_op<div>, py::arg("other"))
      .def("__iadd__", &inplace_op<add_>, py::arg("other"))
      .def("__isub__", &inplace_op<sub_>, py::arg("other"))
      .def("__imul__", &inplace_op<mul_>, py::arg("other"))
      .def("__itruediv__", &inplace_op<div_>, py::arg("other"))
      .def("__neg__", [](const Tensor& a) { return neg(a); });
  // Python's number slots for the same operators, on top of these methods (operator_slots.cpp).
  install_operator_slots(m);
}

}  // namespace sampan::python
