"""sampan.cuda and Tensor.to(device). Without a GPU (this project's CI machines) every entry point
must say why and leave the CPU tensor intact; with one, copies round-trip bit for bit and
gradients cross devices. The GPU half skips, naming the reason, where there is no GPU."""
import numpy as np
import pytest

import sampan as sp

needs_gpu = pytest.mark.skipif(not sp.cuda.is_available(),
                               reason=f"no GPU in this process: {sp.cuda.unavailable_reason()}")


def test_the_module_reports_a_consistent_state():
    assert sp.cuda.is_available() == (sp.cuda.built() and sp.cuda.device_count() > 0)
    assert (sp.cuda.unavailable_reason() == "") == sp.cuda.is_available()
    if not sp.cuda.built():
        assert "built without CUDA" in sp.cuda.unavailable_reason()


@pytest.mark.skipif(sp.cuda.is_available(), reason="a GPU is present; the no-GPU errors are not reachable")
def test_without_a_gpu_moving_a_tensor_names_the_reason_and_keeps_the_tensor():
    x = sp.tensor([1.0, 2.0, 3.0])
    error = NotImplementedError if not sp.cuda.built() else RuntimeError
    with pytest.raises(error, match="cuda:0") as info:
        x.to("cuda")
    assert sp.cuda.unavailable_reason() in str(info.value)
    with pytest.raises(error):
        x.cuda()
    assert sp.cuda.memory_allocated() == 0
    np.testing.assert_array_equal(x.numpy(), [1.0, 2.0, 3.0])
    # Nothing to move: the same tensor back, not a copy.
    assert x.to("cpu") is x
    assert x.cpu() is x


def test_an_unknown_device_is_a_value_error():
    with pytest.raises(ValueError, match="'gpu' is neither a device"):
        sp.tensor([1.0]).to("gpu")
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        sp.tensor([1.0])._to_device("tpu")
    with pytest.raises(ValueError, match="cuda:1"):
        sp.tensor([1.0])._to_device("cuda:1")


def test_dtype_and_copy_still_work_through_to():
    x = sp.tensor([1.5, 2.5])
    y = x.to("cpu", sp.float32)
    assert y.dtype == sp.float32 and y.device == "cpu"
    z = x.to(copy=True)
    assert z is not x
    np.testing.assert_array_equal(z.numpy(), x.numpy())


@needs_gpu
@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float16", "float32", "float64", "complex64",
                                   "complex128"])
def test_round_trip_is_bit_for_bit(dtype):
    a = (np.arange(12).reshape(3, 4) * 0.37 - 1.1).astype(dtype)
    g = sp.tensor(a).to("cuda")
    assert g.device == "cuda:0"
    with pytest.raises(NotImplementedError, match="copy it to the CPU first"):
        g.numpy()
    np.testing.assert_array_equal(g.cpu().numpy(), a)
    assert "device=cuda:0" in repr(g)


@needs_gpu
def test_gradients_cross_devices_and_memory_is_counted():
    x = sp.tensor([1.5, -2.0, 0.25], requires_grad=True)
    w = sp.tensor([0.5, 3.0, -1.0])
    before = sp.cuda.memory_allocated()
    g = x.to("cuda")
    assert sp.cuda.memory_allocated() == before + 3 * x.dtype.itemsize  # bytes asked, not rounded
    (g.cpu() * w).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), w.numpy())
    del g
    assert sp.cuda.memory_allocated() == before


ELEMENTWISE_BINARY = ["add", "sub", "mul", "div"]


VIEWS = ["reshape", "broadcast_to", "permute", "slice", "select", "squeeze", "unsqueeze", "diagonal"]


ELEMENTWISE_UNARY = ["neg", "square", "floor", "ceil", "round", "relu", "relu_", "conj", "sqrt", "rsqrt",
                     "reciprocal", "sqrt_"]
# Their CUDA results are the CPU's to rounding (CUDA's math library, cuBLAS), not its bits.
ROUNDING_UNARY = ["exp", "log", "log1p", "expm1", "sin", "cos", "tan", "tanh", "erf", "sigmoid", "gelu", "silu"]


@pytest.mark.parametrize("op", [f"core::{n}" for n in ELEMENTWISE_BINARY] + [f"core::{n}_" for n in ELEMENTWISE_BINARY]
                         + [f"core::{n}" for n in VIEWS + ELEMENTWISE_UNARY + ROUNDING_UNARY
                            + ["relu_backward", "cast", "clone", "copy_", "adam_update_", "sum", "mean", "matmul",
                               "exp_", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
                               "logical_xor", "logical_not", "isnan", "where", "clamp", "clamp_", "softplus",
                               "select_scatter", "slice_scatter", "diagonal_scatter", "amax", "amin", "softmax",
                               "log_softmax", "concat", "stack", "pad", "argmax", "argmin", "var", "std", "norm",
                               "cumsum", "logsumexp", "abs", "prod", "maximum", "minimum", "isfinite", "sort", "topk", "real", "imag", "complex", "pow", "sign", "dot", "vdot",
                               "outer", "masked_fill", "atan2", "remainder", "floor_divide", "masked_select",
                               "masked_scatter", "one_hot", "angle", "polar"]])
def test_elementwise_and_view_ops_have_cuda_kernels_exactly_where_cuda_is_built(op):
    assert ("cuda" in sp.ops.schema(op)["devices"]) == sp.cuda.built(), op


@needs_gpu
@pytest.mark.parametrize("name", ELEMENTWISE_BINARY)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
def test_elementwise_binary_on_the_gpu_gives_the_cpus_bits(name, dtype):
    rng = np.random.default_rng(3)
    x = (rng.uniform(-4, 4, size=(6, 5)) * 8).astype(dtype)
    y = (rng.uniform(0.5, 4, size=(5,)) * 8).astype(dtype)  # no zero: div's integers go to float
    op = getattr(sp, name)
    # (x, y) -> operands, applied on each device: the views are made where the data is
    layouts = [lambda a, b: (a, b),                                   # row broadcast
               lambda a, b: (a.transpose(0, 1), a.reshape([5, 6])),   # a transposed operand
               lambda a, b: (a[:, 1:4], b[1:4].unsqueeze(0))]         # sliced views
    for make in layouts:
        want = op(*make(sp.tensor(x), sp.tensor(y)))
        on_gpu = make(sp.tensor(x).cuda(), sp.tensor(y).cuda())
        assert all(t.device == "cuda:0" for t in on_gpu)
        got = op(*on_gpu)  # div of integers converts them to float32 on the GPU first
        assert got.device == "cuda:0" and got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())


@needs_gpu
def test_elementwise_in_place_and_mixed_dtypes_on_the_gpu():
    x = sp.tensor(np.arange(12.0).reshape(3, 4))
    g = x.cuda()
    g.mul_(sp.tensor([0.5, 2.0, -1.0, 3.0]).cuda())
    np.testing.assert_array_equal(g.cpu().numpy(), (x * sp.tensor([0.5, 2.0, -1.0, 3.0])).numpy())
    ints = sp.tensor([1, 2, 3, 4], dtype="int64")
    got = sp.add(g, ints.cuda())  # the int64 operand is converted on the GPU
    assert got.dtype == sp.float64
    np.testing.assert_array_equal(got.cpu().numpy(), sp.add(g.cpu(), ints).numpy())


@needs_gpu
@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "float16", "float32", "float64", "complex64",
                                   "complex128"])
def test_casts_and_strided_copies_on_the_gpu_give_the_cpus_bits(dtype):
    a = (np.arange(12).reshape(3, 4) * 0.37 - 1.1).astype(dtype)
    g = sp.tensor(a).cuda()
    for to in ["bool", "int32", "int64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]:
        widen = (lambda t: t.to("float32")) if to == "bfloat16" else (lambda t: t)  # exact; NumPy has no bfloat16
        np.testing.assert_array_equal(widen(g.to(to)).cpu().numpy(), widen(sp.tensor(a).to(to)).numpy())
    t = g.transpose(0, 1)  # strided on the GPU: contiguous() and the copy back go through clone's kernel
    np.testing.assert_array_equal(t.contiguous().cpu().numpy(), a.T)
    np.testing.assert_array_equal(t.cpu().numpy(), a.T)


@needs_gpu
@pytest.mark.parametrize("name", ["neg", "square", "floor", "ceil", "round", "relu"])
def test_elementwise_unary_on_the_gpu_gives_the_cpus_bits_on_strided_input(name):
    x = np.linspace(-3.0, 3.0, 30).reshape(5, 6)
    x[0, :3] = [2.5, -2.5, 0.5]  # halves: round goes to even
    op = getattr(sp, name)
    for make in (lambda t: t, lambda t: t.transpose(0, 1), lambda t: t[1:4, ::2]):
        want = op(make(sp.tensor(x)))
        np.testing.assert_array_equal(op(make(sp.tensor(x).cuda())).cpu().numpy(), want.numpy())


@needs_gpu
@pytest.mark.parametrize("name", ["sqrt", "rsqrt", "reciprocal"])
def test_correctly_rounded_unary_ops_on_the_gpu_give_the_cpus_bits(name):
    x = np.linspace(0.1, 7.0, 30).reshape(5, 6)
    op = getattr(sp, name)
    for dtype in ("float32", "float64"):
        t = sp.tensor(x.astype(dtype))
        np.testing.assert_array_equal(op(t.cuda().transpose(0, 1)).cpu().numpy(), op(t.transpose(0, 1)).numpy())


@needs_gpu
@pytest.mark.parametrize("name", ROUNDING_UNARY)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_math_library_unary_ops_on_the_gpu_give_the_cpus_values_to_rounding(name, dtype):
    x = np.linspace(0.05, 1.4, 40).reshape(5, 8).astype(dtype)
    op = getattr(sp, name)
    want = op(sp.tensor(x)[1:, ::3]).numpy()
    got = op(sp.tensor(x).cuda()[1:, ::3])
    assert got.device == "cuda:0"
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-6 if dtype == "float32" else 1e-15, atol=0)


@needs_gpu
def test_sum_and_mean_on_the_gpu_give_the_cpus_bits_along_any_axes():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 6, 5)) * np.exp(rng.uniform(-8, 8, (4, 6, 5)))
    for axes in ([], [0], [2], [0, 1], [1, 2]):
        for fn in (sp.sum, sp.mean):
            want = fn(sp.tensor(x).permute(2, 0, 1), axes).numpy()
            np.testing.assert_array_equal(fn(sp.tensor(x).cuda().permute(2, 0, 1), axes).cpu().numpy(), want)


@needs_gpu
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_matmul_on_the_gpu_gives_the_cpus_values_to_rounding(dtype):
    rng = np.random.default_rng(5)
    a = (rng.standard_normal((2, 33, 17)) + (1j * rng.standard_normal((2, 33, 17)) if "complex" in dtype else 0))
    b = (rng.standard_normal((17, 21)) + (1j * rng.standard_normal((17, 21)) if "complex" in dtype else 0))
    a, b = a.astype(dtype), b.astype(dtype)
    rtol = 1e-5 if dtype in ("float32", "complex64") else 1e-12
    for left, right in ((a, b), (a[1], b[:, 3]), (a.transpose(0, 2, 1)[:, :, :10], a[0, :, :5])):
        got = sp.matmul(sp.tensor(np.ascontiguousarray(left)).cuda(), sp.tensor(np.ascontiguousarray(right)).cuda())
        assert got.device == "cuda:0"
        np.testing.assert_allclose(got.cpu().numpy(), left @ right, rtol=rtol, atol=rtol)


def _losses_on(device, layers, dtype, make_optimizer, loss_fn, x, y, steps, seed):
    """The losses of `steps` full-batch steps of Sequential(*layers()) on `device`, and the model."""
    sp.manual_seed(seed)
    model = sp.nn.Sequential(*layers()).to(device, getattr(sp, dtype))
    opt = make_optimizer(model.parameters())
    xs, ys = sp.tensor(x, device=device), sp.tensor(y, device=device)
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = loss_fn(model(xs), ys)
        loss.backward()
        opt.step()
        losses.append(float(loss.cpu().numpy()))
    assert all(p.device == ("cuda:0" if device == "cuda" else "cpu") for p in model.parameters())
    return losses


@needs_gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_perceptron_trains_on_the_gpu_with_the_cpus_losses(dtype):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((128, 8)).astype(dtype)
    y = np.sin(x.sum(axis=1, keepdims=True)).astype(dtype)
    losses = {d: _losses_on(d, lambda: [sp.nn.Linear(8, 32), sp.nn.ReLU(), sp.nn.Linear(32, 1)], dtype,
                            lambda ps: sp.optim.Adam(ps, lr=1e-2), sp.nn.functional.mse_loss, x, y, 20, 0)
              for d in ("cpu", "cuda")}
    assert losses["cuda"][-1] < 0.5 * losses["cuda"][0]  # it learns
    np.testing.assert_allclose(losses["cuda"], losses["cpu"], rtol=1e-4 if dtype == "float32" else 1e-10)


@needs_gpu
def test_a_perceptron_trains_under_float16_autocast_on_the_gpu_as_on_the_cpu():
    # PyTorch's CUDA AMP recipe: float16 products (cuBLAS GemmEx), float32 master weights, a
    # GradScaler; the CPU under its own float16 autocast is the reference, to float16's rounding.
    rng = np.random.default_rng(17)
    x = rng.standard_normal((128, 8)).astype("float32")
    y = np.sin(x.sum(axis=1, keepdims=True)).astype("float32")

    def losses_on(device):
        sp.manual_seed(0)
        model = sp.nn.Sequential(sp.nn.Linear(8, 32), sp.nn.ReLU(), sp.nn.Linear(32, 1)).to(device)
        opt = sp.optim.Adam(model.parameters(), lr=1e-2)
        scaler = sp.amp.GradScaler(init_scale=1024.0)
        xs, ys = sp.tensor(x, device=device), sp.tensor(y, device=device)
        losses = []
        for _ in range(20):
            opt.zero_grad()
            with sp.amp.autocast(device, "float16"):
                hidden = model[0](xs)
                loss = sp.nn.functional.mse_loss(model[2](model[1](hidden)), ys)
            scaler.scale(loss).backward()
            scaler.step(opt)
            scaler.update()
            losses.append(float(loss.cpu().numpy()))
        assert hidden.dtype == sp.float16  # the product ran in float16
        assert all(p.dtype == sp.float32 and p.grad.dtype == sp.float32 for p in model.parameters())
        assert all(p.device == ("cuda:0" if device == "cuda" else "cpu") for p in model.parameters())
        return losses

    cpu, gpu = losses_on("cpu"), losses_on("cuda")
    assert gpu[-1] < 0.5 * gpu[0]  # it learns
    np.testing.assert_allclose(gpu, cpu, rtol=2e-2)


@needs_gpu
def test_randperm_on_the_gpu_is_the_cpus_permutation():
    for n in (1, 17, 5000):
        got = sp.randperm(n, generator=sp.Generator(8), device="cuda")
        assert got.device == "cuda:0"
        np.testing.assert_array_equal(got.cpu().numpy(), sp.randperm(n, generator=sp.Generator(8)).numpy())


@needs_gpu
def test_bernoulli_of_gpu_probabilities_draws_the_cpus_bits_there():
    p = sp.rand(64, 3)
    got = sp.bernoulli(p.cuda(), generator=sp.Generator(4))
    assert got.device == "cuda:0"
    np.testing.assert_array_equal(got.cpu().numpy(), sp.bernoulli(p, generator=sp.Generator(4)).numpy())
    with pytest.raises(ValueError, match="at element 2"):
        sp.bernoulli(sp.tensor([0.1, 0.5, 1.5]).cuda())


@needs_gpu
def test_arange_linspace_and_eye_are_made_on_the_gpu_with_the_cpus_bits():
    for got, want in ((sp.arange(-2.5, 4, 0.75, device="cuda"), sp.arange(-2.5, 4, 0.75)),
                      (sp.arange(7, device="cuda"), sp.arange(7)),
                      (sp.linspace(-1.0, 3.0, 9, device="cuda"), sp.linspace(-1.0, 3.0, 9)),
                      (sp.eye(3, 4, "float64", device="cuda"), sp.eye(3, 4, "float64"))):
        assert got.device == "cuda:0"
        np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())


@needs_gpu
def test_comparisons_where_clamp_and_scatters_on_the_gpu_give_the_cpus_bits():
    rng = np.random.default_rng(13)
    x = rng.standard_normal((4, 6))
    x[0, 0] = np.nan
    y = rng.standard_normal(6)
    cx, cy, gx, gy = sp.tensor(x), sp.tensor(y), sp.tensor(x).cuda(), sp.tensor(y).cuda()
    for name in ("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"):
        got = getattr(sp, name)(gx.transpose(0, 1)[::2], gy[::2, None])
        np.testing.assert_array_equal(got.cpu().numpy(), getattr(sp, name)(cx.transpose(0, 1)[::2], cy[::2, None]).numpy())
    np.testing.assert_array_equal(sp.logical_not(gx).cpu().numpy(), sp.logical_not(cx).numpy())
    np.testing.assert_array_equal(sp.isnan(gx).cpu().numpy(), sp.isnan(cx).numpy())
    np.testing.assert_array_equal(sp.where(sp.gt(gx, gy), gx, gy).cpu().numpy(), sp.where(sp.gt(cx, cy), cx, cy).numpy())
    np.testing.assert_array_equal(sp.clamp(gx, -0.5, 0.5).cpu().numpy(), sp.clamp(cx, -0.5, 0.5).numpy())
    np.testing.assert_array_equal(sp.select_scatter(gx, gy, 0, 2).cpu().numpy(), sp.select_scatter(cx, cy, 0, 2).numpy())
    np.testing.assert_allclose(sp.softplus(gx).cpu().numpy(), sp.softplus(cx).numpy(), rtol=1e-15)


@needs_gpu
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_a_classifier_trains_on_the_gpu_with_cross_entropy(dtype):
    rng = np.random.default_rng(17)
    x = rng.standard_normal((96, 6)).astype(dtype)
    labels = (x[:, 0] > 0).astype(np.int64) + (x[:, 1] > 0).astype(np.int64)
    losses = {d: _losses_on(d, lambda: [sp.nn.Linear(6, 16), sp.nn.ReLU(), sp.nn.Linear(16, 3)], dtype,
                            lambda ps: sp.optim.SGD(ps, lr=0.1), sp.nn.functional.cross_entropy, x, labels, 15, 1)
              for d in ("cpu", "cuda")}
    assert losses["cuda"][-1] < losses["cuda"][0]
    np.testing.assert_allclose(losses["cuda"], losses["cpu"], rtol=1e-4 if dtype == "float32" else 1e-10)


@needs_gpu
def test_item_bool_and_float_of_a_gpu_tensor_read_its_element_back():
    g = sp.tensor([2.5]).cuda()
    assert g.item() == 2.5 and float(g) == 2.5 and bool(g > 2.0) and int(sp.tensor([7]).cuda()) == 7
    assert sp.tensor([[1.5, 2.0]]).cuda().tolist() == [[1.5, 2.0]]


@needs_gpu
@pytest.mark.parametrize("norm_type", [2.0, float("inf")])
def test_gradient_clipping_of_gpu_gradients_gives_the_cpus_norm(norm_type):
    grads = [np.random.default_rng(k).standard_normal((5, 7)).astype(np.float32) for k in range(3)]
    norms, clipped = {}, {}
    for device in ("cpu", "cuda"):
        params = [sp.nn.Parameter(sp.zeros(5, 7, device=device)) for _ in grads]
        for p, g in zip(params, grads):
            p.grad = sp.tensor(g, device=device)
        norms[device] = float(sp.nn.utils.clip_grad_norm_(params, 1.0, norm_type))
        clipped[device] = [p.grad.cpu().numpy() for p in params]
    assert norms["cuda"] == pytest.approx(norms["cpu"], rel=1e-12)
    for a, b in zip(clipped["cuda"], clipped["cpu"]):
        np.testing.assert_allclose(a, b, rtol=1e-6)


@needs_gpu
def test_losses_put_numpy_targets_on_the_inputs_device():
    got = sp.nn.functional.mse_loss(sp.tensor([1.0, 2.0]).cuda(), np.array([1.5, 2.0]))
    assert got.device == "cuda:0" and got.item() == pytest.approx(0.125)


@needs_gpu
def test_batch_norm_without_affine_parameters_trains_on_the_gpu():
    x = np.random.default_rng(2).standard_normal((8, 3))
    want = sp.nn.BatchNorm1d(3, affine=False)(sp.tensor(x)).numpy()
    got = sp.nn.BatchNorm1d(3, affine=False).cuda()(sp.tensor(x).cuda())
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-12)


@needs_gpu
def test_reductions_and_scans_on_the_gpu_give_the_cpus_bits():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((4, 6, 5)) * np.exp(rng.uniform(-6, 6, (4, 6, 5)))
    x[1, 2, 3] = np.nan
    cpu, gpu = sp.tensor(x).permute(2, 0, 1), sp.tensor(x).cuda().permute(2, 0, 1)
    same = np.testing.assert_array_equal
    for axis in ([], [0], [2]):
        same(sp.argmax(gpu, axis).cpu().numpy(), sp.argmax(cpu, axis).numpy())
        same(sp.argmin(gpu, axis).cpu().numpy(), sp.argmin(cpu, axis).numpy())
    finite_cpu, finite_gpu = sp.tensor(np.nan_to_num(x)), sp.tensor(np.nan_to_num(x)).cuda()
    for dtype in (sp.float32, sp.float64, sp.complex128):
        c, g = finite_cpu.to(dtype), finite_gpu.to(dtype)
        for axes in ([], [0], [1, 2]):
            same(sp.var(g, axes, 1.0).cpu().numpy(), sp.var(c, axes, 1.0).numpy())
            same(sp.std(g, axes).cpu().numpy(), sp.std(c, axes).numpy())
            same(sp.norm(g, 2.0, axes).cpu().numpy(), sp.norm(c, 2.0, axes).numpy())
            if dtype != sp.complex128:
                for ord in (1.0, float("inf"), -float("inf")):
                    same(sp.norm(g, ord, axes).cpu().numpy(), sp.norm(c, ord, axes).numpy())
        for axis in (0, 2):
            same(sp.cumsum(g, axis).cpu().numpy(), sp.cumsum(c, axis).numpy())
            same(sp.cumsum(g, axis, True).cpu().numpy(), sp.cumsum(c, axis, True).numpy())
    same(sp.abs(gpu).cpu().numpy(), sp.abs(cpu).numpy())
    near_one_cpu, near_one_gpu = finite_cpu * 0.01 + 1.0, finite_gpu * 0.01 + 1.0
    for axes in ([], [1]):
        same(sp.prod(near_one_gpu, axes).cpu().numpy(), sp.prod(near_one_cpu, axes).numpy())
    y_cpu, y_gpu = sp.tensor(x[:, :, ::-1].copy()).permute(2, 0, 1), sp.tensor(x[:, :, ::-1].copy()).cuda().permute(2, 0, 1)
    same(sp.maximum(gpu, y_gpu).cpu().numpy(), sp.maximum(cpu, y_cpu).numpy())
    same(sp.minimum(gpu, y_gpu).cpu().numpy(), sp.minimum(cpu, y_cpu).numpy())
    special = sp.tensor([1.0, np.inf, -np.inf, np.nan, 0.0])
    same(sp.isfinite(special.cuda()).cpu().numpy(), sp.isfinite(special).numpy())
    same(sp.isfinite(sp.tensor([3, -4]).cuda()).cpu().numpy(), [True, True])
    a, b = rng.standard_normal((3, 4, 5)), rng.standard_normal((5, 6))
    got = sp.einsum("ijk,kl->jil", sp.tensor(a).cuda(), sp.tensor(b).cuda()).cpu().numpy()
    np.testing.assert_allclose(got, np.einsum("ijk,kl->jil", a, b), rtol=1e-12)
    with pytest.raises(NotImplementedError, match="core::norm: ord 1"):
        sp.norm(finite_gpu.to(sp.complex128), 1.0)
    lse = sp.logsumexp(finite_gpu, [1]).cpu().numpy()
    np.testing.assert_allclose(lse, sp.logsumexp(finite_cpu, [1]).numpy(), rtol=1e-14)
    inf_row = sp.tensor([[-np.inf, -np.inf], [np.inf, 1.0]]).cuda()
    same(sp.logsumexp(inf_row, [1]).cpu().numpy(), np.array([-np.inf, np.inf]))


@needs_gpu
def test_sort_and_topk_on_the_gpu_give_the_cpus_permutation():
    rng = np.random.default_rng(9)
    x = np.round(rng.standard_normal((5, 7, 6)), 1)  # many ties: the stable order decides
    x[0, 3, 2], x[4, 1, 5], x[2, 2, 2] = np.nan, -0.0, 0.0
    for dtype in (sp.float64, sp.float32, sp.int64):
        cpu = sp.tensor(x if dtype != sp.int64 else np.nan_to_num(x) * 10).to(dtype)
        gpu = cpu.cuda()
        for axis in (0, 1, 2):
            for descending in (False, True):
                (gv, gi), (cv, ci) = sp.sort(gpu, axis, descending), sp.sort(cpu, axis, descending)
                np.testing.assert_array_equal(gi.cpu().numpy(), ci.numpy())
                np.testing.assert_array_equal(gv.cpu().numpy(), cv.numpy())
            (gv, gi), (cv, ci) = sp.topk(gpu, 3, axis, True), sp.topk(cpu, 3, axis, True)
            np.testing.assert_array_equal(gi.cpu().numpy(), ci.numpy())
            np.testing.assert_array_equal(gv.cpu().numpy(), cv.numpy())
    grads = []
    for device in ("cpu", "cuda"):  # each value's weight goes back to the element it came from
        w = sp.tensor(x[1]).to(device).requires_grad_()
        sp.sum(sp.sort(w, 0)[0] * sp.tensor(np.arange(7.0)[:, None]).to(device)).backward()
        grads.append(w.grad.cpu().numpy())
    np.testing.assert_array_equal(grads[1], grads[0])


@needs_gpu
def test_complex_parts_pow_sign_products_and_masked_fill_on_the_gpu():
    rng = np.random.default_rng(10)
    re, im = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    z_cpu = sp.complex(sp.tensor(re), sp.tensor(im))
    z_gpu = sp.complex(sp.tensor(re).cuda(), sp.tensor(im).cuda())
    same = np.testing.assert_array_equal
    same(z_gpu.cpu().numpy(), z_cpu.numpy())
    same(sp.real(z_gpu.transpose(0, 1)).cpu().numpy(), sp.real(z_cpu.transpose(0, 1)).numpy())
    same(sp.imag(z_gpu[1:, ::2]).cpu().numpy(), sp.imag(z_cpu[1:, ::2]).numpy())
    x = sp.tensor(re)
    same(sp.sign(x.cuda()).cpu().numpy(), sp.sign(x).numpy())
    np.testing.assert_allclose(sp.pow(sp.abs(x).cuda(), sp.tensor(im).cuda()).cpu().numpy(),
                               sp.pow(sp.abs(x), sp.tensor(im)).numpy(), rtol=1e-15)
    w_cpu = sp.complex(sp.tensor(im), sp.tensor(re))  # complex exp, log and pow: glibc's to rounding
    for dt in ("complex128", "complex64"):  # division: std::complex's bits (Smith's algorithm)
        same(sp.div(z_gpu.to(dt), w_cpu.cuda().to(dt)).cpu().numpy(), sp.div(z_cpu.to(dt), w_cpu.to(dt)).numpy())
    for got, want in ((sp.exp(z_gpu), sp.exp(z_cpu)), (sp.log(z_gpu), sp.log(z_cpu)),
                      (sp.pow(z_gpu, w_cpu.cuda()), sp.pow(z_cpu, w_cpu)),
                      (sp.pow(z_gpu.to("complex64"), w_cpu.cuda().to("complex64")),
                       sp.pow(z_cpu.to("complex64"), w_cpu.to("complex64")))):
        assert got.device == "cuda:0" and got.dtype == want.dtype
        tol = 1e-5 if want.dtype == sp.complex64 else 1e-13
        np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=tol, atol=tol)
    a, b = sp.tensor(re[0]), sp.tensor(im[0])
    same(sp.outer(a.cuda(), b.cuda()).cpu().numpy(), sp.outer(a, b).numpy())
    assert sp.dot(a.cuda(), b.cuda()).item() == pytest.approx(sp.dot(a, b).item(), rel=1e-14)
    y = sp.tensor(im * 3)
    same(sp.remainder(x.cuda(), y.cuda()).cpu().numpy(), sp.remainder(x, y).numpy())
    same(sp.floor_divide(x.cuda(), y.cuda()).cpu().numpy(), sp.floor_divide(x, y).numpy())
    np.testing.assert_allclose(sp.atan2(x.cuda(), y.cuda()).cpu().numpy(), sp.atan2(x, y).numpy(), rtol=1e-15)
    a_int, b_int = sp.tensor([7, -7, 7, -7, -9223372036854775807 - 1, 5]), sp.tensor([2, 2, -2, -2, -1, 3])
    for fn in (sp.remainder, sp.floor_divide, sp.pow):
        same(fn(a_int.cuda(), b_int.abs().cuda() if fn is sp.pow else b_int.cuda()).cpu().numpy(),
             fn(a_int, b_int.abs() if fn is sp.pow else b_int).numpy())
    with pytest.raises(ValueError, match="integer division by zero"):
        sp.remainder(sp.tensor([3, 4]).cuda(), sp.tensor([2, 0]).cuda())
    with pytest.raises(ValueError, match="negative integer powers"):
        sp.pow(sp.tensor([3, 4]).cuda(), sp.tensor([2, -1]).cuda())
    mask = sp.tensor(re > 0)
    xg = x.cuda().requires_grad_()
    filled = sp.masked_fill(xg, mask.cuda(), sp.tensor(0.5).cuda())
    same(filled.detach().cpu().numpy(), sp.masked_fill(x, mask, sp.tensor(0.5)).numpy())
    sp.sum(filled).backward()
    same(xg.grad.cpu().numpy(), (~(re > 0)).astype(np.float64))  # no gradient where filled
    same(sp.masked_select(x.cuda(), mask.cuda()).cpu().numpy(), sp.masked_select(x, mask).numpy())
    src = sp.tensor(np.arange(40.0))
    same(sp.masked_scatter(x.cuda(), mask.cuda(), src.cuda()).cpu().numpy(), sp.masked_scatter(x, mask, src).numpy())
    xg = x.cuda().requires_grad_()
    sp.sum(sp.masked_select(xg, mask.cuda())).backward()
    same(xg.grad.cpu().numpy(), (re > 0).astype(np.float64))  # gradient only where selected
    labels = sp.tensor([2, 0, 3, 1])
    same(sp.one_hot(labels.cuda(), 5).cpu().numpy(), sp.one_hot(labels, 5).numpy())
    same(sp.one_hot(labels.cuda()).cpu().numpy(), sp.one_hot(labels).numpy())
    with pytest.raises(IndexError, match="one_hot: class index 3"):
        sp.one_hot(labels.cuda(), 3)
    same(sp.angle(x.cuda()).cpu().numpy(), sp.angle(x).numpy())
    np.testing.assert_allclose(sp.angle(z_gpu).cpu().numpy(), sp.angle(z_cpu).numpy(), rtol=1e-15)
    np.testing.assert_allclose(sp.polar(sp.abs(x).cuda(), y.cuda()).cpu().numpy(), sp.polar(sp.abs(x), y).numpy(),
                               rtol=1e-15, atol=1e-15)


@needs_gpu
def test_concat_stack_and_pad_on_the_gpu_give_the_cpus_bits():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(4.0).reshape(2, 2) - 9
    ca, cb, ga, gb = sp.tensor(a), sp.tensor(b), sp.tensor(a).cuda(), sp.tensor(b).cuda()
    np.testing.assert_array_equal(sp.concat([ga, gb], 1).cpu().numpy(), sp.concat([ca, cb], 1).numpy())
    np.testing.assert_array_equal(sp.stack([ga, ga.transpose(0, 1).transpose(0, 1)], 0).cpu().numpy(),
                                  sp.stack([ca, ca], 0).numpy())
    np.testing.assert_array_equal(sp.pad(ga, [1, 0, 0, 2], 0.5).cpu().numpy(), sp.pad(ca, [1, 0, 0, 2], 0.5).numpy())


@needs_gpu
def test_dropout_on_the_gpu_draws_the_cpus_mask():
    x = np.ones((8, 16), dtype=np.float32)
    sp.manual_seed(4)
    want = sp.nn.functional.dropout(sp.tensor(x), 0.5).numpy()
    sp.manual_seed(4)
    got = sp.nn.functional.dropout(sp.tensor(x).cuda(), 0.5)
    assert got.device == "cuda:0"
    np.testing.assert_array_equal(got.cpu().numpy(), want)


@needs_gpu
def test_rand_randn_and_randint_are_made_on_the_gpu_with_the_cpus_draw():
    for make, kw in ((sp.rand, {"dtype": sp.float32}), (sp.rand, {"dtype": sp.float64}),
                     (sp.randn, {"dtype": sp.float64}), (sp.randint, {})):
        args = (-3, 1000, (5, 9001)) if make is sp.randint else (5, 9001)
        sp.manual_seed(11)
        want = make(*args, **kw).numpy()
        sp.manual_seed(11)
        got = make(*args, device="cuda", **kw)
        assert got.device == "cuda:0"
        if make is sp.randn:  # Box-Muller's log and cos round as CUDA's libm does
            np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-14, atol=1e-14)
        else:
            np.testing.assert_array_equal(got.cpu().numpy(), want)


@needs_gpu
def test_relu_forward_and_backward_run_on_the_gpu():
    x = np.linspace(-1.0, 1.0, 12).reshape(3, 4)
    g = np.arange(12.0).reshape(3, 4)
    xg = sp.tensor(x).cuda().requires_grad_()
    y = sp.relu(xg)
    assert y.device == "cuda:0"
    y.backward(sp.tensor(g).cuda())
    assert xg.grad.device == "cuda:0"
    np.testing.assert_array_equal(xg.grad.cpu().numpy(), np.where(x > 0, g, 0.0))


@needs_gpu
def test_a_python_number_beside_a_gpu_tensor_goes_to_the_gpu():
    x = sp.tensor([1.5, -2.0, 4.0])
    g = x.cuda()
    for got, want in ((g + 1.0, x + 1.0), (2 * g, 2 * x), (g / 4, x / 4), (1.0 - g, 1.0 - x)):
        assert got.device == "cuda:0"
        np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())


OPTIMIZERS = {  # SGD composes elementwise ops that have CUDA kernels; Adam is one fused op
    "Adam": dict(lr=1e-2, weight_decay=0.1),
    "AdamW": dict(lr=1e-2, weight_decay=0.1),
    "SGD": dict(lr=1e-2, momentum=0.9, nesterov=True, weight_decay=0.1),
}


@needs_gpu
@pytest.mark.parametrize("optimizer", sorted(OPTIMIZERS))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_optimizers_step_gpu_parameters_with_the_cpus_bits(optimizer, dtype):
    rng = np.random.default_rng(7)
    w = rng.standard_normal((5, 4)).astype(dtype)
    grads = [rng.standard_normal((5, 4)).astype(dtype) for _ in range(3)]
    params = {"cpu": sp.nn.Parameter(sp.tensor(w)), "cuda": sp.nn.Parameter(sp.tensor(w).cuda())}
    for device, p in params.items():
        opt = getattr(sp.optim, optimizer)([p], **OPTIMIZERS[optimizer])
        for g in grads:
            p.grad = sp.tensor(g, device=device)
            opt.step()
        assert p.device == ("cuda:0" if device == "cuda" else "cpu")
        assert all(t.device == p.device for t in opt.state[p].values() if isinstance(t, sp.Tensor))
    np.testing.assert_array_equal(params["cuda"].cpu().numpy(), params["cpu"].numpy())
