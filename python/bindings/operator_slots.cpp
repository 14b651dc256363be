// sampan Python bindings: CPython number slots for the operators most used in loops
// (+ - * / unary -, and their in-place forms). Python calls a type's nb_add directly, so `a + b`
// on two tensors skips pybind11's generic call (overload dispatch, argument casters, type-map
// lookups and instance registration), which cost more than the 1-element op itself.
//
// The slots only short-cut the argument handling: they call the same registered ops
// (sampan::add ... -> call_op) as every other path. Anything that is not the common case (a
// subclass such as nn.Parameter, NumPy arrays, lists, objects that are not ours) is passed to the
// pybind11-bound methods `__add__`, `__radd__` ... of ops_binding.cpp, so conversions, errors and
// NotImplemented stay exactly as they were.
#include "bindings.h"
#include "sampan/ops.h"

namespace sampan::python {

namespace {

using BinaryFn = Tensor (*)(const Tensor&, const Tensor&);

PyTypeObject* g_tensor_type = nullptr;
const py::detail::type_info* g_tensor_info = nullptr;

// Releasing the GIL costs more than a small op; same threshold as the generic op path.
constexpr int64_t kReleaseGilElements = 16384;

// The Tensor held by `obj` when it is exactly a sampan.Tensor (not a subclass), or nullptr
// (also for an instance whose __init__ has not run).
inline Tensor* exact_tensor(PyObject* obj) {
  if (Py_TYPE(obj) != g_tensor_type) return nullptr;
  auto* inst = reinterpret_cast<py::detail::instance*>(obj);
  return inst->simple_layout ? static_cast<Tensor*>(inst->simple_value_holder[0]) : nullptr;
}

// A new Python Tensor owning `t`. As pybind11's own cast with the move policy, but without
// looking the type up by name and without entering the instance in pybind11's registry of
// C++ pointers (a fresh result is never looked up by address; deallocation checks the flag).
// The layout (checked once by install_operator_slots) is pybind11's simple one: value pointer
// then holder (std::unique_ptr<Tensor>) inline in the instance.
using Holder = std::unique_ptr<Tensor>;
inline Holder& holder_of(py::detail::instance* inst) {
  return *reinterpret_cast<Holder*>(&inst->simple_value_holder[1]);
}

PyObject* wrap(Tensor&& t) {
  PyObject* self = g_tensor_type->tp_alloc(g_tensor_type, 0);  // zero-filled
  if (!self) return nullptr;
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  auto* value = new Tensor(std::move(t));
  inst->simple_layout = true;
  inst->owned = true;
  inst->simple_value_holder[0] = value;
  new (&holder_of(inst)) Holder(value);
  inst->simple_holder_constructed = true;
  return self;
}

// tp_dealloc of Tensor: the common case (an exact Tensor that pybind11 did not register, no
// weak references, no pending Python error) frees directly; everything else goes to pybind11's
// own deallocation.
destructor g_pybind_dealloc = nullptr;
void tensor_dealloc(PyObject* self) {
  auto* inst = reinterpret_cast<py::detail::instance*>(self);
  if (Py_TYPE(self) != g_tensor_type || !inst->simple_layout || !inst->simple_holder_constructed ||
      inst->simple_instance_registered || inst->weakrefs || inst->has_patients || PyErr_Occurred()) {
    g_pybind_dealloc(self);
    return;
  }
  holder_of(inst).~Holder();  // may release NumPy-borrowed memory, which takes the GIL (held)
  inst->simple_value_holder[0] = nullptr;
  inst->simple_holder_constructed = false;
  PyTypeObject* type = g_tensor_type;
  type->tp_free(self);
  Py_DECREF(type);  // instances of heap types hold a reference to their type
}

// Sets the Python error for the exception being handled, as pybind11's dispatcher does.
void set_python_error() {
  try {
    throw;
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (...) {
    auto& local = py::detail::get_local_internals().registered_exception_translators;
    if (py::detail::apply_exception_translators(local)) return;
    auto& global = py::detail::get_internals().registered_exception_translators;
    if (py::detail::apply_exception_translators(global)) return;
    PyErr_SetString(PyExc_SystemError, "sampan: an exception escaped the exception translators");
  }
}

// A Python int or float (exact types: bool, complex and NumPy scalars take the general path)
// as the 0-d tensor it becomes next to `like`.
inline bool plain_number(PyObject* obj) { return PyFloat_CheckExact(obj) || PyLong_CheckExact(obj); }

Tensor call(BinaryFn f, const Tensor& a, const Tensor& b) {
  if (a.numel() + b.numel() < kReleaseGilElements) return f(a, b);
  py::gil_scoped_release nogil;
  return f(a, b);
}

// The pybind11-bound methods, for everything but the common case.
struct Fallback {
  PyObject* forward = nullptr;    // __add__
  PyObject* reflected = nullptr;  // __radd__
  PyObject* inplace = nullptr;    // __iadd__
};

template <BinaryFn F, const Fallback* FB> PyObject* binary_slot(PyObject* a, PyObject* b) {
  try {
    if (Tensor* ta = exact_tensor(a)) {
      if (Tensor* tb = exact_tensor(b)) return wrap(call(F, *ta, *tb));
      if (plain_number(b)) return wrap(call(F, *ta, scalar_to_tensor(b, *ta)));
    } else if (Tensor* tb = exact_tensor(b)) {
      if (plain_number(a)) return wrap(call(F, scalar_to_tensor(a, *tb), *tb));
    }
  } catch (...) {
    set_python_error();
    return nullptr;
  }
  // Python calls this slot for `a op b` when either operand is a Tensor.
  if (PyObject_TypeCheck(a, g_tensor_type)) return PyObject_CallFunctionObjArgs(FB->forward, a, b, nullptr);
  return PyObject_CallFunctionObjArgs(FB->reflected, b, a, nullptr);
}

template <BinaryFn F, const Fallback* FB> PyObject* inplace_slot(PyObject* a, PyObject* b) {
  try {
    if (Tensor* ta = exact_tensor(a)) {
      Tensor* tb = exact_tensor(b);
      if (tb || plain_number(b)) {
        call(F, *ta, tb ? *tb : scalar_to_tensor(b, *ta));
        Py_INCREF(a);
        return a;  // x += y keeps the same Python object
      }
    }
  } catch (...) {
    set_python_error();
    return nullptr;
  }
  return PyObject_CallFunctionObjArgs(FB->inplace, a, b, nullptr);
}

PyObject* g_neg_fallback = nullptr;
PyObject* negative_slot(PyObject* a) {
  try {
    if (Tensor* ta = exact_tensor(a)) return wrap(neg(*ta));
  } catch (...) {
    set_python_error();
    return nullptr;
  }
  return PyObject_CallFunctionObjArgs(g_neg_fallback, a, nullptr);
}

Fallback g_add, g_sub, g_mul, g_div;

PyObject* bound_method(py::handle cls, const char* name) {
  return py::object(cls.attr(name)).release().ptr();  // kept for the life of the process
}

void fill(Fallback& fb, py::handle cls, const char* fwd, const char* refl, const char* inpl) {
  fb.forward = bound_method(cls, fwd);
  fb.reflected = bound_method(cls, refl);
  fb.inplace = bound_method(cls, inpl);
}

}  // namespace

void install_operator_slots(py::module_& m) {
  py::handle cls = m.attr("Tensor");
  g_tensor_type = reinterpret_cast<PyTypeObject*>(cls.ptr());
  g_tensor_info = py::detail::get_type_info(typeid(Tensor));
  // The slots read the Tensor straight from pybind11's simple instance layout; check that this
  // build of pybind11 gives Tensor that layout (else keep the bound methods alone).
  {
    py::object probe = py::cast(Tensor());
    auto* inst = reinterpret_cast<py::detail::instance*>(probe.ptr());
    if (!inst->simple_layout || !g_tensor_info || g_tensor_info->holder_size_in_ptrs != 1 ||
        g_tensor_info->type != g_tensor_type || g_tensor_type->tp_dictoffset != 0)
      return;
  }
  fill(g_add, cls, "__add__", "__radd__", "__iadd__");
  fill(g_sub, cls, "__sub__", "__rsub__", "__isub__");
  fill(g_mul, cls, "__mul__", "__rmul__", "__imul__");
  fill(g_div, cls, "__truediv__", "__rtruediv__", "__itruediv__");
  g_neg_fallback = bound_method(cls, "__neg__");

  // Setting a slot directly (not through setattr) leaves the bound methods in the type's dict,
  // so `Tensor.__add__(a, b)` and subclasses (which inherit the methods, not these slots) keep
  // working through them.
  g_pybind_dealloc = g_tensor_type->tp_dealloc;
  g_tensor_type->tp_dealloc = &tensor_dealloc;
  PyNumberMethods* nb = g_tensor_type->tp_as_number;
  nb->nb_add = &binary_slot<add, &g_add>;
  nb->nb_subtract = &binary_slot<sub, &g_sub>;
  nb->nb_multiply = &binary_slot<mul, &g_mul>;
  nb->nb_true_divide = &binary_slot<div, &g_div>;
  nb->nb_inplace_add = &inplace_slot<add_, &g_add>;
  nb->nb_inplace_subtract = &inplace_slot<sub_, &g_sub>;
  nb->nb_inplace_multiply = &inplace_slot<mul_, &g_mul>;
  nb->nb_inplace_true_divide = &inplace_slot<div_, &g_div>;
  nb->nb_negative = &negative_slot;
  PyType_Modified(g_tensor_type);
}

}  // namespace sampan::python
