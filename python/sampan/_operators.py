"""Python operators on Tensor that map to registered ops: ** @ % // & | ^ ~ abs() and the
comparisons. (+ - * / and unary - are bound in C++ for speed: python/bindings/ops_binding.cpp.)

An operator whose op is not registered is left undefined (Python then raises TypeError for it,
or falls back to identity for == and !=); ``missing()`` lists them so tests can say so.
Called again by ``sp.ops._refresh()``, so operators appear when their op does.
"""
import numbers

import numpy as np

from . import _C
from ._C import Tensor

# dunder, reflected dunder (or None), in-place dunder (or None), candidate ops in order.
_BINARY = [
    ("__pow__", "__rpow__", "__ipow__", ("core::pow",)),
    ("__matmul__", "__rmatmul__", None, ("core::matmul",)),
    ("__mod__", "__rmod__", None, ("core::remainder",)),
    ("__floordiv__", "__rfloordiv__", None, ("core::floor_divide",)),
    ("__and__", "__rand__", "__iand__", ("core::bitwise_and", "core::logical_and")),
    ("__or__", "__ror__", "__ior__", ("core::bitwise_or", "core::logical_or")),
    ("__xor__", "__rxor__", "__ixor__", ("core::bitwise_xor", "core::logical_xor")),
    ("__lshift__", "__rlshift__", None, ("core::bitwise_left_shift",)),
    ("__rshift__", "__rrshift__", None, ("core::bitwise_right_shift",)),
]
# Comparisons: Python reflects them itself (a < b is b > a), so no reflected forms.
_COMPARE = [
    ("__eq__", ("core::eq", "core::equal")),
    ("__ne__", ("core::ne", "core::not_equal")),
    ("__lt__", ("core::lt", "core::less")),
    ("__le__", ("core::le", "core::less_equal")),
    ("__gt__", ("core::gt", "core::greater")),
    ("__ge__", ("core::ge", "core::greater_equal")),
]
_UNARY = [
    ("__abs__", ("core::abs",)),
    ("__invert__", ("core::bitwise_not", "core::logical_not")),
]

_installed = set()
_missing = {}


def _operand(other):
    return isinstance(other, (Tensor, numbers.Number, np.generic, np.ndarray))


def _first_op(candidates, op_function):
    for name in candidates:
        fn = op_function(name)
        if fn is not None:
            return _bool_only(fn) if name.startswith("core::logical_") else fn
    return None


def _bool_only(fn):
    """core::logical_and ... stand in for & | ^ ~ only on bool tensors (they differ from the
    bitwise operators on integers)."""
    def op(*args):
        for a in args:
            if isinstance(a, Tensor) and a.dtype != _C.bool:
                raise TypeError(f"{fn.__sampan_op__} stands in for a bitwise operator only on bool "
                                f"tensors (no bitwise op is registered), got {a.dtype}")
        return fn(*args)
    op.__sampan_op__ = fn.__sampan_op__
    return op


def _inplace_op(fn, op_function):
    """The in-place twin of op ``fn`` ("core::pow" -> "core::pow_"), if registered."""
    return op_function(fn.__sampan_op__ + "_")


def _forward(fn):
    def op(self, other):
        return fn(self, other) if _operand(other) else NotImplemented
    return op


def _reflected(fn):
    def rop(self, other):
        # The op converts the scalar `other` next to `self` (the call's first tensor).
        return fn(other, self) if _operand(other) else NotImplemented
    return rop


def _inplace(fn):
    def iop(self, other):
        if not _operand(other):
            return NotImplemented
        fn(self, other)
        return self
    return iop


def _set(dunder, method, op_name):
    method.__name__ = dunder
    method.__doc__ = f"Calls {op_name}."
    setattr(Tensor, dunder, method)
    _installed.add(dunder)
    _missing.pop(dunder, None)


def install(op_function):
    """Binds the operators to the ops that exist; ``op_function(name)`` is the generated
    function of an op, or None (sampan._ops passes its own, so this module does not import it)."""
    for dunder, rdunder, idunder, candidates in _BINARY:
        fn = _first_op(candidates, op_function)
        if fn is None:
            _missing[dunder] = candidates
            continue
        if dunder not in _installed:
            _set(dunder, _forward(fn), fn.__sampan_op__)
            _set(rdunder, _reflected(fn), fn.__sampan_op__)
            inplace = _inplace_op(fn, op_function)
            if idunder and inplace is not None:
                _set(idunder, _inplace(inplace), inplace.__sampan_op__)
    for dunder, candidates in _COMPARE:
        fn = _first_op(candidates, op_function)
        if fn is None:
            _missing[dunder] = candidates
        elif dunder not in _installed:
            _set(dunder, _forward(fn), fn.__sampan_op__)
    for dunder, candidates in _UNARY:
        fn = _first_op(candidates, op_function)
        if fn is None:
            _missing[dunder] = candidates
        elif dunder not in _installed:
            _set(dunder, (lambda f: lambda self: f(self))(fn), fn.__sampan_op__)
    if "__pos__" not in _installed:
        _set("__pos__", lambda self: self, "nothing (+x is x)")


def missing():
    """{dunder: candidate op names} for operators whose op is not registered."""
    return dict(_missing)
