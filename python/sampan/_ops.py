"""Python functions generated from the op registry: ``sp.ops.<ns>.<name>`` for every registered
op, the ops of namespace ``core`` also as ``sp.<name>`` and as Tensor methods.

Each function is real Python code generated from the op's schema (``_C.op_schema``): its
parameters carry the schema's argument names (so ``inspect.signature`` and keyword calls work),
defaults are the op's declared ones (``schema["defaults"]``), and ``__doc__`` is the schema's signature and doc.
The body calls ``_C.OpHandle(name)``, the one generic binding, which converts each argument by
its kind (Python scalars for tensor arguments take the dtype of the call's first tensor).

Ops registered later (custom op libraries) appear after ``sp.ops._refresh()``, which the JIT
loader calls; ``sp.ops.load_library(path)`` loads a library and refreshes.

Precedence: hand-written Python functions of ``sampan`` (``sp.tensor``, ``sp.mean`` ...) and
attributes of Tensor bound in C++ or ``_tensor.py`` win over generated ones of the same name;
the generated op stays reachable as ``sp.ops.core.<name>``.
"""
import inspect
import keyword
import numbers
import sys
import types

from . import _C
from ._C import Tensor
from ._operators import install as install_operators

# ---- defaults ----
# Each op declares its defaults (``.defaults(...)`` in its SAMPAN_OP, None for optional tensors);
# the schema carries them as ``schema["defaults"]``, argument name -> value, trailing only.

_NO_DEFAULT = object()

# Tensor methods whose only argument after the tensor is a list of ints also take the ints as
# separate arguments: x.reshape(2, 3), x.permute(1, 0), x.squeeze().
_VARARGS_KINDS = ["Tensor", "List[int]"]

# core ops whose first tensor is not "self" in the PyTorch sense (torch's x.where(cond, y) is
# where(cond, x, y)): functions only, no methods.
_NOT_METHODS = {"where", "polar", "complex"}


def _defaults(schema):
    declared = schema["defaults"]
    return [declared.get(name, _NO_DEFAULT) for name in schema["arg_names"]]


def _python_name(name):
    """An identifier for a schema name (keywords get a trailing underscore, as `lambda_`)."""
    ident = "".join(c if c.isalnum() or c == "_" else "_" for c in name)
    if not ident or ident[0].isdigit():
        ident = "_" + ident
    return ident + "_" if keyword.iskeyword(ident) else ident


def _doc(schema):
    outputs = ", ".join(schema["output_names"])
    lines = [schema["signature"], "", schema["doc"] or "(no description)", "",
             f"Op ``{schema['name']}`` from library '{schema['library']}'; returns {outputs}.",
             "Devices: " + ", ".join(schema["devices"]) + "."]
    if schema["nondifferentiable"]:
        lines.append("Not differentiable.")
    elif schema["once_differentiable"]:
        lines.append("Differentiable once (no second derivative).")
    return "\n".join(lines)


def make_function(op_name):
    """A Python function calling op ``op_name`` with a signature from its schema."""
    schema = _C.op_schema(op_name)
    kinds = schema["arg_kinds"]
    params = [_python_name(n) for n in schema["arg_names"]]
    defaults = _defaults(schema)
    fname = _python_name(schema["short_name"])
    env = {"__sampan_call": _C.OpHandle(op_name)}
    sig = []
    for i, (p, d) in enumerate(zip(params, defaults)):
        if d is _NO_DEFAULT:
            sig.append(p)
        else:
            env[f"__sampan_default{i}"] = d
            sig.append(f"{p}=__sampan_default{i}")
    source = (f"def {fname}({', '.join(sig)}):\n"
              f"    return __sampan_call({', '.join(params)})\n")
    exec(compile(source, f"<sampan op {op_name}>", "exec"), env)  # noqa: S102 (generated above)
    fn = env[fname]
    fn.__doc__ = _doc(schema)
    fn.__module__ = f"sampan.ops.{schema['namespace']}"
    fn.__qualname__ = fname
    n_out = len(schema["output_names"])
    fn.__annotations__ = dict(zip(params, kinds))
    fn.__annotations__["return"] = "Tensor" if n_out == 1 else f"Tuple[{', '.join(['Tensor'] * n_out)}]"
    fn.__sampan_op__ = op_name
    fn.schema = schema
    return fn


def _varargs_method(fn):
    """x.reshape(2, 3) as well as x.reshape((2, 3)) and x.reshape(shape=(2, 3))."""
    def method(self, *ints, **kwargs):
        if kwargs:
            return fn(self, *ints, **kwargs)
        if len(ints) == 1 and not isinstance(ints[0], numbers.Integral):
            ints = ints[0]
        return fn(self, ints)
    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = fn.__doc__
    method.__sampan_op__ = fn.__sampan_op__
    return method


# ---- the sp.ops namespace ------------------------------------------------------------------

ops = types.ModuleType("sampan.ops", "Every registered op, by namespace: sp.ops.core.add, ...")
sys.modules["sampan.ops"] = ops

_functions = {}          # op name -> generated function
_owned_top_level = set()  # names this module set on the sampan package
_owned_methods = set()    # names this module set on Tensor


def function(op_name):
    """The generated function of ``op_name``, or None when that op is not registered."""
    if op_name not in _functions and _C.has_op(op_name):
        _refresh()
    return _functions.get(op_name)


def _namespace(ns):
    mod = ops.__dict__.get(ns)
    if not isinstance(mod, types.ModuleType):
        mod = types.ModuleType(f"sampan.ops.{ns}", f"Ops of namespace '{ns}'.")
        setattr(ops, ns, mod)
        sys.modules[f"sampan.ops.{ns}"] = mod
    return mod


def _install_top_level(name, fn):
    package = sys.modules["sampan"]
    if name.startswith("_") or (hasattr(package, name) and name not in _owned_top_level):
        return
    setattr(package, name, fn)
    _owned_top_level.add(name)


def _inplace_method(fn):
    """x.add_(y) returns x itself (the same Python object), as PyTorch does."""
    def method(self, *args, **kwargs):
        fn(self, *args, **kwargs)
        return self
    method.__name__ = method.__qualname__ = fn.__name__
    method.__doc__ = fn.__doc__
    method.__signature__ = inspect.signature(fn)
    method.__sampan_op__ = fn.__sampan_op__
    return method


def _install_method(name, fn):
    if name.startswith("_") or (hasattr(Tensor, name) and name not in _owned_methods):
        return
    if fn.schema["arg_kinds"] == _VARARGS_KINDS:
        fn = _varargs_method(fn)
    elif fn.schema["inplace"] == [(0, 0)] and len(fn.schema["output_names"]) == 1:
        fn = _inplace_method(fn)
    setattr(Tensor, name, fn)
    _owned_methods.add(name)


def _refresh():
    """Generates functions for ops registered since the last call (all of them the first time)."""
    for op_name in _C.op_names():
        if op_name in _functions:
            continue
        fn = make_function(op_name)
        _functions[op_name] = fn
        schema = fn.schema
        attr = _python_name(schema["short_name"])
        setattr(_namespace(schema["namespace"]), attr, fn)
        if schema["namespace"] == "core":
            _install_top_level(attr, fn)
            if schema["arg_kinds"] and schema["arg_kinds"][0] == "Tensor" and attr not in _NOT_METHODS:
                _install_method(attr, fn)
    install_operators(function)


def load_library(path):
    """Loads an op library (a shared object declaring ops with SAMPAN_OP) and makes its ops
    callable as sp.ops.<ns>.<name>; returns the names it registered."""
    names = _C.load_op_library(str(path))
    _refresh()
    return names


ops._refresh = _refresh
ops.load_library = load_library
ops.function = function
ops.schema = _C.op_schema
ops.names = _C.op_names
