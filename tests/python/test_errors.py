"""C++ exceptions reach Python as the matching Python exception, with messages naming the op,
the argument and what was expected."""
import pytest

import sampan as sp


def test_value_error_shapes():
    with pytest.raises(ValueError, match=r"op 'core::add'.*cannot be broadcast"):
        sp.zeros(2, 3) + sp.zeros(4)
    with pytest.raises(ValueError, match=r"op 'core::reshape'.*cannot reshape"):
        sp.zeros(2, 3).reshape(4)


def test_type_error_argument_kind():
    with pytest.raises(TypeError, match=r"op 'core::sum': argument 'axes' expects List\[int\], got float"):
        sp.sum(sp.zeros(2), 0.5)
    with pytest.raises(TypeError, match=r"op 'core::sum': argument 'keepdim' expects bool, got int"):
        sp.sum(sp.zeros(2), (), 1)
    with pytest.raises(TypeError, match=r"op 'core::add' takes 2 arguments"):
        sp._C.OpHandle("core::add")(sp.zeros(1), sp.zeros(1), sp.zeros(1))
    with pytest.raises(TypeError, match=r"op 'core::exp': missing argument 'x'"):
        sp._C.OpHandle("core::exp")()
    with pytest.raises(TypeError, match=r"has no argument 'y'"):
        sp._C.OpHandle("core::exp")(y=sp.zeros(1))
    with pytest.raises(TypeError):
        sp.sum()  # Python's own signature check on the generated function


def test_type_error_none_for_tensor():
    with pytest.raises(TypeError, match=r"argument 'y' expects a Tensor, got None"):
        sp.add(sp.zeros(1), None)


def test_type_error_dtype():
    with pytest.raises(TypeError, match="only floating point and complex"):
        sp.zeros(2, dtype=sp.int64).requires_grad_()
    with pytest.raises(TypeError, match="unknown dtype"):
        sp.zeros(2, dtype="float128")


def test_index_error():
    with pytest.raises(IndexError, match=r"op 'core::select'"):
        sp.zeros(3)[5]
    with pytest.raises(IndexError, match="axis"):
        sp.sum(sp.zeros(2, 3), (5,))


def test_unknown_op_is_value_error_with_suggestion():
    with pytest.raises(ValueError, match="core::ad"):
        sp._C.OpHandle("core::ad")


def test_runtime_error():
    with pytest.raises(RuntimeError, match="does not require grad"):
        sp.zeros(1).backward()


def test_os_error_for_missing_library():
    with pytest.raises(OSError, match="nonexistent"):
        sp._C.load_op_library("/nonexistent/lib.so")


def test_not_implemented_error():
    # Writing a view in place while recording gradients is refused (not supported yet).
    y = sp.ones(3, requires_grad=True) * 2
    view = y[0:2]
    with pytest.raises(NotImplementedError, match="view"):
        view.add_(1.0)


def test_exception_types_are_builtin_subclasses():
    try:
        sp.zeros(2) + sp.zeros(3)
    except ValueError as e:
        assert type(e) is ValueError and "[2]" in str(e) and "[3]" in str(e)


def test_subpackages_load_on_first_use_and_missing_names_say_so():
    import importlib
    for name in sp._LAZY_SUBPACKAGES:  # every name the lazy loader promises imports
        assert getattr(sp, name) is importlib.import_module(f"sampan.{name}")
    assert "amp" in sp._LAZY_SUBPACKAGES  # once "not in sampan yet"; now sp.amp
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'$"):
        sp.nonexistent
