"""The generated Python API: one function per registered op with a real signature and doc,
namespaces, top-level functions, Tensor methods, refresh, and check_op through Python."""
import inspect

import numpy as np
import pytest

import sampan as sp


def test_every_registered_op_has_a_function():
    names = sp._C.op_names()
    assert "core::add" in names and len(names) >= 20
    for name in names:
        ns, short = name.split("::")
        fn = getattr(getattr(sp.ops, ns), short if short.isidentifier() else short + "_")
        assert fn.__sampan_op__ == name
        schema = sp._C.op_schema(name)
        params = list(inspect.signature(fn).parameters)
        assert len(params) == len(schema["arg_names"])
        assert fn.__doc__.startswith(schema["signature"])
        assert schema["doc"] in fn.__doc__


def test_schema_dict():
    s = sp._C.op_schema("core::sum")
    assert s["name"] == "core::sum" and s["namespace"] == "core" and s["short_name"] == "sum"
    assert s["arg_names"] == ["x", "axes", "keepdim"]
    assert s["arg_kinds"] == ["Tensor", "List[int]", "bool"]
    assert s["output_names"] == ["out"] and s["library"] == "sampan"
    assert sp._C.op_schema("core::add_")["inplace"] == [(0, 0)]


def test_signature_with_defaults():
    sig = inspect.signature(sp.ops.core.sum)
    assert str(sig) == "(x: 'Tensor', axes: 'List[int]' = (), keepdim: 'bool' = False) -> 'Tensor'"
    x = sp.tensor([[1.0, 2.0], [3.0, 4.0]])
    assert sp.sum(x).item() == 10.0
    assert sp.sum(x, keepdim=True).shape == (1, 1)
    assert sp.sum(x, axes=1).tolist() == [3.0, 7.0]
    assert sp.ops.core.sum(x=x, axes=(0,)).tolist() == [4.0, 6.0]


def test_top_level_and_methods():
    x = sp.tensor([0.0, 1.0])
    assert sp.exp is sp.ops.core.exp
    np.testing.assert_allclose(x.exp().numpy(), np.exp([0.0, 1.0]))
    # hand-written functions win over generated ones; the op stays in sp.ops
    assert sp.tensor.__module__ == "sampan._creation"
    assert sp.ops.core.full((2,), 1.0).dtype is sp.float32
    # C++ attributes are not overwritten by ops of the same name
    assert isinstance(sp.Tensor.__dict__["clone"], type(sp.Tensor.__dict__["contiguous"]))


def test_varargs_methods():
    x = sp.zeros(2, 3)
    assert x.reshape(3, 2).shape == x.reshape((3, 2)).shape == x.reshape([3, 2]).shape == (3, 2)
    assert x.reshape(shape=[6]).shape == (6,) and x.reshape(-1).shape == (6,)


def test_op_handle_direct():
    add = sp._C.OpHandle("core::add")
    assert "add(x: Tensor, y: Tensor)" in repr(add)
    assert add(sp.tensor([1.0]), 2).tolist() == [3.0]
    assert add(x=sp.tensor([1.0]), y=sp.tensor([2.0])).tolist() == [3.0]


def test_multiple_outputs_are_a_tuple():
    values, indices = sp.ops.core.topk(sp.tensor([3.0, 1.0, 2.0]), 2, -1, True)
    assert values.tolist() == [3.0, 2.0] and indices.tolist() == [0, 2]


def test_arguments_are_converted_by_kind():
    x = sp.tensor([[1.0, 2.0]])
    assert sp.sum(x, np.array([1])).shape == (1,)         # NumPy int array for List[int]
    assert sp.sum(x, np.int64(0)).shape == (2,)             # NumPy integer for List[int]
    assert sp.sum(x, [sp.tensor(1)]).shape == (1,)          # 0-d integer tensor as an int
    assert sp.ops.core.cast(x, sp.float64).dtype is sp.float64  # dtype object for a str argument
    assert sp.ops.core.cast(x, np.float64).dtype is sp.float64  # NumPy dtype for a str argument
    assert sp.add(x, [[10.0, 20.0]]).tolist() == [[11.0, 22.0]]  # nested list for a Tensor
    assert sp.add(x, np.array([1.0, 1.0])).dtype is sp.float64  # NumPy array keeps its dtype


def test_python_scalars_take_the_tensor_dtype():
    f32 = sp.tensor([1.0, 2.0])
    assert sp.add(f32, 1).dtype is sp.float32 and sp.add(f32, 0.5).dtype is sp.float32
    assert sp.add(f32, 1j).dtype is sp.complex64
    assert sp.add(sp.tensor([1.0], dtype=sp.float64), 1j).dtype is sp.complex128
    i64 = sp.tensor([1, 2])
    assert sp.add(i64, 3).dtype is sp.int64 and sp.add(i64, 0.5).dtype is sp.float32
    assert sp.add(i64, True).dtype is sp.int64
    assert sp.add(2, i64).tolist() == [3, 4]  # the first tensor decides, wherever it is
    assert sp.add(sp.tensor([True]), 2).dtype is sp.int64


def test_refresh_is_idempotent():
    add = sp.ops.core.add
    sp.ops._refresh()
    sp.ops._refresh()
    assert sp.ops.core.add is add and sp.add is add
    assert sp.ops.function("core::add") is add
    assert sp.ops.function("core::no_such_op") is None


def test_load_library_missing_file_is_os_error():
    with pytest.raises(OSError):
        sp.ops.load_library("/nonexistent/libnothing.so")


class TestCheckOp:
    def test_by_name_and_by_function(self):
        x = sp.tensor([[0.3, 0.7], [1.1, 1.9]], dtype=sp.float64)
        y = sp.tensor([0.5, 1.5], dtype=sp.float64)
        r = sp.testing.check_op("core::mul", x, y)
        assert r.ok, r.summary()
        assert bool(r) and isinstance(r.failures, list) and isinstance(r.summary(), str)
        r = sp.testing.check_op(sp.ops.core.exp, x, second_order=False)
        assert r.ok, r.summary()

    def test_options_and_errors(self):
        x = sp.tensor([0.3, 0.7], dtype=sp.float64)
        assert sp.testing.check_op("core::sum", x, (0,), False, eps=1e-5, dtype_sweep=False).ok
        with pytest.raises(TypeError, match="unknown option 'tolerance'"):
            sp.testing.check_op("core::exp", x, tolerance=1)
        with pytest.raises(TypeError, match="op name or a function"):
            sp.testing.check_op(np.exp, x)
        with pytest.raises(ValueError, match="core::no_such_op"):
            sp.testing.check_op("core::no_such_op", x)


def test_signatures_carry_the_declared_defaults():
    """Python's defaults are the op spec's (.defaults in SAMPAN_OP), read from the schema: the
    same values, on exactly the arguments the schema lists, trailing."""
    checked = 0
    for name in sp.ops.names():
        schema = sp._C.op_schema(name)
        params = list(inspect.signature(sp.ops.function(name)).parameters.values())
        declared = schema["defaults"]
        got = {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}
        assert set(got) == set(declared), f"{name}: {got} vs the schema's {declared}"
        for arg, value in declared.items():
            assert got[arg] == value and type(got[arg]) is type(value), f"{name}.{arg}: {got[arg]!r} != {value!r}"
        checked += bool(declared)
    assert checked >= 30  # the reductions, creation, segment, softmax ... ops declare defaults
    assert sp._C.op_schema("core::sum")["defaults"] == {"axes": (), "keepdim": False}
    assert sp._C.op_schema("core::gather_add_scatter")["defaults"]["edge"] is None


def test_some_defaults_in_use():
    x = sp.tensor([[1.0, 2.0], [3.0, 5.0]])
    np.testing.assert_allclose(sp.softmax(x).numpy().sum(-1), [1.0, 1.0], rtol=1e-6)
    assert sp.eye(3).tolist() == np.eye(3).tolist()
    values, indices = sp.sort(sp.tensor([3, 1, 2]))
    assert values.tolist() == [1, 2, 3] and indices.tolist() == [1, 2, 0]


def test_inplace_methods_return_self():
    x = sp.tensor([1.0, 4.0])
    assert x.add_(1) is x and x.tolist() == [2.0, 5.0]
    if sp._C.has_op("core::sqrt_"):
        assert x.mul_(2).sqrt_() is x
        np.testing.assert_allclose(x.numpy(), [2.0, np.sqrt(10.0)], rtol=1e-6)
    assert list(inspect.signature(sp.Tensor.add_).parameters) == ["x", "y"]
