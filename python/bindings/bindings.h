// sampan Python bindings: what the binding files share. Each binding file registers one concept
// into the module `sampan._C`; the conversions between Python values and sampan values live in
// convert.cpp so that every entry point (op calls, operators, check_op) converts alike.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <utility>
#include <vector>

#include "sampan/op.h"
#include "sampan/tensor.h"

namespace sampan::python {

namespace py = pybind11;

// ---- registration, one per binding file ----
// The core concepts, called in this order by module.cpp:
void init_dtype(py::module_& m);
void init_tensor(py::module_& m);
void init_ops(py::module_& m);
void init_autograd(py::module_& m);
void init_testing(py::module_& m);
/// Puts + - * / unary - and their in-place forms into Tensor's CPython number slots (called by
/// init_ops once the bound methods they fall back to exist).
void install_operator_slots(py::module_& m);

using BindingInit = void (*)(py::module_& m);
/// The bindings of other modules (io, nn, quantum ...) register themselves, so that adding a
/// binding file touches no other file: at namespace scope in foo_binding.cpp write
///   SAMPAN_PYTHON_BINDING(foo, init_foo);
/// and module.cpp calls init_foo(m) after the core concepts (in the order of their names).
struct BindingRegistration {
  BindingRegistration(const char* name, BindingInit init);
};
/// (name, init) of every registered module binding, sorted by name.
std::vector<std::pair<std::string, BindingInit>> registered_bindings();

// ---- dtypes (dtype_binding.cpp) ----
/// The module-level dtype object (`sampan.float32` ...): one object per dtype, so `is` works.
py::object dtype_object(DType d);
/// A dtype from a sampan dtype, a name ("float64"), a NumPy dtype or scalar type (np.float32),
/// or the Python types bool/int/float/complex. Throws TypeError naming what was given.
DType to_dtype(py::handle obj);

// ---- the GIL ----
// Ops on more than a few thousand elements, backward and check_op run with the GIL released
// (smaller ops keep it: releasing costs more than they take): other Python threads go on meanwhile,
// and an OpenMP worker that drops the last view of NumPy-borrowed memory can take the GIL to
// release the array without waiting on a thread that holds it. Everything that touches Python
// objects (hooks, borrowed-buffer releases) takes the GIL itself.

// ---- Python values to sampan values (convert.cpp) ----
/// Whether `obj` is a Python or NumPy scalar (bool, int, float, complex, np.generic).
bool is_python_scalar(py::handle obj);
/// A 0-d tensor holding the Python scalar `obj`, with the dtype a scalar gets next to `like`
/// (the weak-scalar rule of PyTorch and NumPy 2): bool keeps any dtype; int keeps the tensor's
/// dtype (bool tensors become int64); float keeps floating and complex dtypes (integer and bool
/// tensors become float32); complex keeps complex dtypes (float64 becomes complex128, others
/// complex64). Without `like` (undefined), the defaults of sp.tensor apply: bool, int64, float32,
/// complex64.
Tensor scalar_to_tensor(py::handle obj, const Tensor& like);
/// A tensor from anything tensor-like: a Tensor is returned as is, scalars follow
/// scalar_to_tensor, everything else (NumPy arrays, nested lists) goes through `sampan.tensor`.
/// `what` names the value in error messages.
Tensor to_tensor(py::handle obj, const Tensor& like, const std::string& what);
/// Converts the Python arguments of a call of `op` into sampan values by the schema's argument
/// kinds. `args` are positional, `kwargs` (may be null) by argument name.
Values to_values(const OpSchema& op, const py::args& args, const py::kwargs* kwargs);
/// One output: the tensor; several: a tuple.
py::object outputs_to_python(std::vector<Tensor>&& outs);
/// Sets the Python function used by to_tensor for non-scalar, non-Tensor values (sampan.tensor).
void set_tensor_factory(py::object factory);

}  // namespace sampan::python

#define SAMPAN_PYTHON_BINDING(name, init) \
  static const ::sampan::python::BindingRegistration sampan_python_binding_##name(#name, init)
