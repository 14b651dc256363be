"""``device=`` on the creation and random functions, and the *_like functions keeping their
argument's device (as PyTorch's do). On the CPU: the same values as without the argument, leaves
with requires_grad, a clear error for a name that is no device or a GPU that is not there. On a
GPU (skipped, naming the reason, where there is none): the CPU's bits, made on the device."""
import numpy as np
import pytest

import sampan as sp

needs_gpu = pytest.mark.skipif(not sp.cuda.is_available(),
                               reason=f"no GPU in this process: {sp.cuda.unavailable_reason()}")

MAKERS = {
    "zeros": lambda **kw: sp.zeros(2, 3, **kw),
    "ones": lambda **kw: sp.ones((2, 3), dtype=sp.float64, **kw),
    "empty": lambda **kw: sp.empty(4, **kw),
    "full": lambda **kw: sp.full((3,), 2.5, **kw),
    "full int64": lambda **kw: sp.full((2, 2), 7, **kw),
    "full complex": lambda **kw: sp.full((2,), 1 + 2j, **kw),
    "tensor": lambda **kw: sp.tensor([[1.0, -2.0], [3.5, 0.25]], **kw),
    "scalar_tensor": lambda **kw: sp.scalar_tensor(3.0, **kw),
    "arange": lambda **kw: sp.arange(0, 5, 0.5, **kw),
}
RANDOM = {
    "rand": lambda **kw: sp.rand(3, 4, **kw),
    "randn": lambda **kw: sp.randn(5, dtype=sp.float64, **kw),
    "randint": lambda **kw: sp.randint(0, 10, size=(6,), **kw),
    "randperm": lambda **kw: sp.randperm(7, **kw),
    "normal": lambda **kw: sp.normal(1.0, 2.0, size=(4,), **kw),
    "uniform": lambda **kw: sp.uniform(-1.0, 1.0, size=(4,), **kw),
}


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_device_cpu_makes_the_same_tensor(name):
    plain, placed = MAKERS[name](), MAKERS[name](device="cpu")
    assert placed.device == "cpu"
    assert placed.dtype == plain.dtype
    np.testing.assert_array_equal(placed.numpy(), plain.numpy())


@pytest.mark.parametrize("name", sorted(RANDOM))
def test_random_with_device_cpu_draws_the_same_bits(name):
    sp.manual_seed(11)
    plain = RANDOM[name]()
    sp.manual_seed(11)
    placed = RANDOM[name](device="cpu")
    assert placed.device == "cpu"
    np.testing.assert_array_equal(placed.numpy(), plain.numpy())


def test_requires_grad_with_a_device_is_a_leaf():
    for t in (sp.zeros(3, requires_grad=True, device="cpu"), sp.rand(3, requires_grad=True, device="cpu"),
              sp.tensor([1.0, 2.0], requires_grad=True, device="cpu")):
        assert t.requires_grad and t.is_leaf


def test_like_functions_keep_the_dtype_and_device_and_take_an_override():
    x = sp.tensor([[1.0, 2.0]], dtype=sp.float64)
    for like in (sp.zeros_like(x), sp.ones_like(x), sp.full_like(x, 3.0), sp.rand_like(x), sp.randn_like(x)):
        assert like.device == "cpu" and like.dtype == sp.float64 and like.shape == x.shape
    assert sp.zeros_like(x, device="cpu").device == "cpu"


@pytest.mark.parametrize("call", [lambda: sp.zeros(2, device="gpu"), lambda: sp.tensor([1.0], device="tpu:0"),
                                  lambda: sp.rand(2, device="npu"), lambda: sp.arange(3, device=0)])
def test_a_name_that_is_no_device_is_a_value_error(call):
    with pytest.raises(ValueError, match="device must be 'cpu', 'cuda' or 'cuda:N'"):
        call()


@pytest.mark.parametrize("name", sorted(RANDOM))
def test_a_refused_device_takes_no_draw_from_the_generator(name):
    sp.manual_seed(3)
    with pytest.raises(ValueError):
        RANDOM[name](device="npu")
    after_refusal = RANDOM[name]()
    sp.manual_seed(3)
    np.testing.assert_array_equal(after_refusal.numpy(), RANDOM[name]().numpy())


@pytest.mark.skipif(sp.cuda.is_available(), reason="a GPU is present; the no-GPU errors are not reachable")
@pytest.mark.parametrize("name", ["zeros", "full", "tensor", "arange"])
def test_without_a_gpu_device_cuda_names_the_reason(name):
    error = NotImplementedError if not sp.cuda.built() else RuntimeError
    with pytest.raises(error, match="cuda:0"):
        MAKERS[name](device="cuda")


@needs_gpu
@pytest.mark.parametrize("name", sorted(MAKERS))
def test_on_the_gpu_creation_gives_the_cpus_values(name):
    t = MAKERS[name](device="cuda")
    assert t.device == "cuda:0"
    np.testing.assert_array_equal(t.cpu().numpy(), MAKERS[name]().numpy())


@needs_gpu
@pytest.mark.parametrize("name", sorted(RANDOM))
def test_on_the_gpu_random_samples_have_the_cpus_bits(name):
    sp.manual_seed(5)
    cpu = RANDOM[name]()
    sp.manual_seed(5)
    gpu = RANDOM[name](device="cuda")
    assert gpu.device == "cuda:0"
    np.testing.assert_array_equal(gpu.cpu().numpy(), cpu.numpy())


@needs_gpu
def test_on_the_gpu_like_functions_stay_on_the_gpu_and_leaves_have_grads_there():
    x = sp.rand(4, 3, device="cuda")
    z = sp.zeros_like(x)
    assert z.device == "cuda:0" and float(z.cpu().numpy().sum()) == 0.0
    w = sp.ones(3, requires_grad=True, device="cuda")
    assert w.is_leaf and w.device == "cuda:0"
    np.testing.assert_array_equal((x * w).cpu().numpy(), x.cpu().numpy())
