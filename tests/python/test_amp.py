"""sp.amp: autocast's casts by each op's declared policy (and only those), nesting, overrides,
gradients to float32 master weights, the cast recorded in traced graphs; GradScaler's scaling,
skipped steps, growth and back-off, and its state; Model.prepare(amp=...) training to the float32
result and checkpointing the scaler. The bfloat16 products themselves are tested against double
products in tests/cpp/framework/gemm_bf16_test.cpp."""
import numpy as np
import pytest

import sampan as sp
from sampan import nn
from sampan.nn import functional as F


def randn(*shape, seed=0):
    return sp.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def test_low_precision_ops_run_in_bfloat16_and_equal_the_cast_product():
    x, w = randn(8, 5), randn(5, 3, seed=1)
    want = sp.matmul(x.to(sp.bfloat16), w.to(sp.bfloat16))
    with sp.amp.autocast("cpu", dtype=sp.bfloat16):
        got = sp.matmul(x, w)
        assert sp.amp.is_autocast_enabled("cpu") and not sp.amp.is_autocast_enabled("cuda")
        assert sp.amp.get_autocast_dtype("cpu") == sp.bfloat16
        assert sp.matmul(x.to(sp.float64), w.to(sp.float64)).dtype == sp.float64  # float64 is left alone
    assert got.dtype == sp.bfloat16
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert not sp.amp.is_autocast_enabled("cpu")
    assert sp.matmul(x, w).dtype == sp.float32


def test_float32_ops_widen_and_other_ops_keep_their_dtype():
    h = randn(4, 6).to(sp.bfloat16)
    with sp.amp.autocast("cpu"):
        assert sp.amp.get_autocast_dtype("cpu") == sp.bfloat16  # the CPU's default
        assert sp.softmax(h, -1).dtype == sp.float32
        assert sp.log_softmax(h, -1).dtype == sp.float32
        assert sp.sum(h).dtype == sp.float32
        assert sp.exp(h).dtype == sp.float32
        assert (h + h).dtype == sp.bfloat16
        np.testing.assert_array_equal(sp.sum(h).numpy(), sp.sum(h.to(sp.float32)).numpy())
    assert sp.exp(h).dtype == sp.bfloat16  # outside the scope exp keeps bfloat16


def test_a_linear_layer_under_autocast_and_its_float32_gradients():
    layer = nn.Linear(6, 4)
    x = randn(16, 6, seed=2)
    with sp.amp.autocast("cpu", dtype=sp.bfloat16):
        y = layer(x)
        loss = F.mse_loss(y, sp.zeros((16, 4)))
    # The product runs in bfloat16; the float32 bias then promotes the sum to float32.
    want = sp.matmul(x.to(sp.bfloat16), layer.weight.detach().mT.to(sp.bfloat16)).to(sp.float32) + layer.bias.detach()
    np.testing.assert_array_equal(y.detach().numpy(), want.numpy())
    assert y.dtype == sp.float32 and loss.dtype == sp.float32
    loss.backward()
    g_amp = {n: p.grad.numpy() for n, p in layer.named_parameters()}
    assert all(p.grad.dtype == sp.float32 for p in layer.parameters())
    layer.zero_grad()
    F.mse_loss(layer(x), sp.zeros((16, 4))).backward()
    for n, p in layer.named_parameters():
        # bfloat16 keeps 8 significant bits: the two gradients agree to a few parts in 100.
        np.testing.assert_allclose(g_amp[n], p.grad.numpy(), rtol=0.05, atol=0.02 * np.abs(p.grad.numpy()).max())
        assert not np.array_equal(g_amp[n], p.grad.numpy()) or n == "bias"


def test_scopes_nest_disable_and_work_as_a_decorator():
    x = randn(3, 3)

    @sp.amp.autocast("cpu", dtype=sp.float16)
    def product(a):
        return sp.matmul(a, a)

    assert product(x).dtype == sp.float16
    with sp.amp.autocast("cpu", dtype=sp.bfloat16):
        with sp.amp.autocast("cpu", enabled=False):
            assert sp.matmul(x, x).dtype == sp.float32
        assert sp.matmul(x, x).dtype == sp.bfloat16
        assert product(x).dtype == sp.float16
        assert sp.matmul(x, x).dtype == sp.bfloat16


def test_overrides_and_bad_names():
    x = randn(3, 3)
    with sp.amp.autocast("cpu", float32_ops=["matmul"], low_precision_ops=["core::add"]):
        assert sp.matmul(x, x).dtype == sp.float32
        assert (x + x).dtype == sp.bfloat16
    with pytest.raises(ValueError, match="no_such_op"):
        with sp.amp.autocast("cpu", low_precision_ops=["no_such_op"]):
            pass
    with pytest.raises(ValueError, match="in both low_precision_ops and float32_ops"):
        with sp.amp.autocast("cpu", low_precision_ops=["matmul"], float32_ops=["matmul"]):
            pass
    with pytest.raises(ValueError, match="dtype must be bfloat16 or float16, got float64"):
        with sp.amp.autocast("cpu", dtype=sp.float64):
            pass
    with pytest.raises(ValueError, match="device must be 'cpu' or 'cuda'"):
        sp.amp.autocast("tpu")
    assert not sp.amp.is_autocast_enabled("cpu")


def test_lists_are_the_declared_policies():
    lists = sp.amp.lists()
    assert "core::matmul" in lists["low_precision"]
    assert {"core::softmax", "core::log_softmax", "core::sum", "core::batch_norm_train"} <= set(lists["float32"])
    assert not set(lists["low_precision"]) & set(lists["float32"])
    for name in lists["low_precision"]:
        assert sp._C.op_schema(name)["amp"] == "low_precision"
    assert sp._C.op_schema("core::add")["amp"] == "keep"


def test_a_traced_graph_carries_the_casts():
    layer = nn.Linear(4, 2).eval()
    x = randn(5, 4)
    with sp.amp.autocast("cpu"):
        graph = sp.jit.trace(layer, (x,))
    assert "core::cast" in graph.ops
    out = graph(x)  # replayed outside any scope: the recorded casts run
    with sp.amp.autocast("cpu"):
        want = layer(x)
    np.testing.assert_array_equal(out.numpy(), want.detach().numpy())
    assert not np.array_equal(out.numpy(), layer(x).detach().numpy())  # not the float32 product


# ---- GradScaler ---------------------------------------------------------------------------------

def one_param(value):
    p = nn.Parameter(sp.tensor(np.array(value, dtype=np.float32)))
    return p, sp.optim.SGD([p], lr=0.5)


def test_scaler_scales_the_loss_and_unscales_the_gradients_exactly():
    p, opt = one_param([1.0, -2.0])
    scaler = sp.amp.GradScaler(init_scale=1024.0)
    loss = sp.sum(p * sp.tensor(np.array([3.0, 0.25], dtype=np.float32)))
    scaled = scaler.scale(loss)
    assert scaled.item() == pytest.approx(1024.0 * loss.item())
    scaled.backward()
    np.testing.assert_array_equal(p.grad.numpy(), [3072.0, 256.0])
    scaler.step(opt)
    np.testing.assert_array_equal(p.numpy(), [1.0 - 0.5 * 3.0, -2.0 - 0.5 * 0.25])
    scaler.update()
    assert scaler.get_scale() == 1024.0


def test_scaler_skips_a_step_with_an_overflow_and_backs_off():
    p, opt = one_param([1.0, 2.0])
    scaler = sp.amp.GradScaler(init_scale=8.0, backoff_factor=0.25)
    p.grad = sp.tensor(np.array([np.inf, 1.0], dtype=np.float32))
    assert scaler.step(opt) is None
    np.testing.assert_array_equal(p.numpy(), [1.0, 2.0])  # unchanged
    scaler.update()
    assert scaler.get_scale() == 2.0 and scaler.skipped_steps == 1
    p.grad = sp.tensor(np.array([np.nan, 1.0], dtype=np.float32))
    scaler.unscale_(opt)
    with pytest.raises(RuntimeError, match="already called"):
        scaler.unscale_(opt)
    assert scaler.step(opt) is None and scaler.skipped_steps == 2


def test_scaler_grows_after_clean_steps_and_its_state_round_trips(tmp_path):
    p, opt = one_param([1.0])
    scaler = sp.amp.GradScaler(init_scale=4.0, growth_factor=3.0, growth_interval=2)
    for _ in range(3):
        p.grad = sp.tensor(np.array([4.0], dtype=np.float32))
        scaler.step(opt)
        scaler.update()
    assert scaler.get_scale() == 12.0  # grown once after 2 clean steps, 1 step into the next interval
    sp.save(scaler.state_dict(), tmp_path / "scaler.h5")
    other = sp.amp.GradScaler()
    other.load_state_dict(sp.load(tmp_path / "scaler.h5"))
    assert other.state_dict() == scaler.state_dict()
    with pytest.raises(ValueError, match="lacks growth_tracker"):
        other.load_state_dict({"scale": 1.0, "growth_factor": 2.0, "backoff_factor": 0.5, "growth_interval": 5})
    with pytest.raises(ValueError, match="init_scale must be a positive finite number"):
        sp.amp.GradScaler(init_scale=0.0)


def test_disabled_scaler_is_a_pass_through():
    p, opt = one_param([1.0])
    scaler = sp.amp.GradScaler(enabled=False)
    loss = sp.sum(p * 2.0)
    assert scaler.scale(loss) is loss
    loss.backward()
    scaler.step(opt)
    scaler.update()
    np.testing.assert_array_equal(p.numpy(), [0.0])
    assert scaler.get_scale() == 1.0 and scaler.state_dict() == {}


# ---- Model.prepare(amp=...) --------------------------------------------------------------------

def regression(n=128, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 8)).astype(np.float32)
    y = (np.tanh(x @ rng.standard_normal((8, 1))) + 0.05 * rng.standard_normal((n, 1))).astype(np.float32)
    return x, y


def fit(amp, epochs=30):
    sp.manual_seed(3)
    net = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 1))
    model = sp.Model(net)
    model.prepare(sp.optim.Adam(model.parameters(), lr=1e-2), F.mse_loss, amp=amp)
    data = sp.io.TensorDataset(*regression())
    model.fit(data, batch_size=32, epochs=epochs, shuffle=False, verbose=0)
    return model, model.evaluate(data, batch_size=128)["loss"]


@pytest.mark.parametrize("amp", ["bfloat16", {"dtype": "float16", "init_scale": 256.0}])
def test_model_trains_under_amp_to_the_float32_loss(amp):
    _, loss32 = fit(None)
    model, loss = fit(amp)
    start = float(np.var(regression()[1]))
    assert loss < 0.2 * start                      # it learned
    assert abs(loss - loss32) < 0.1 * start        # as far as float32 did, within low-precision noise
    assert all(p.dtype == sp.float32 for p in model.parameters())  # master weights


def test_model_checkpoints_the_float16_scaler(tmp_path):
    model, _ = fit({"dtype": "float16", "init_scale": 256.0, "growth_interval": 3}, epochs=2)
    assert model.grad_scaler.is_enabled() and model.grad_scaler.get_scale() == 256.0 * 2 ** (8 // 3)
    model.save(tmp_path / "ckpt.h5")
    other = sp.Model(nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 1)))
    other.prepare(sp.optim.Adam(other.parameters(), lr=1e-2), F.mse_loss, amp="float16")
    other.load(tmp_path / "ckpt.h5")
    assert other.grad_scaler.state_dict() == model.grad_scaler.state_dict()
    bf16, _ = fit("bfloat16", epochs=1)
    assert not bf16.grad_scaler.is_enabled()  # bfloat16 needs no loss scaling


def test_scopes_closed_out_of_order_are_an_error():
    outer, inner = sp.amp.autocast("cpu", dtype=sp.bfloat16), sp.amp.autocast("cpu", enabled=False)
    outer.__enter__()
    inner.__enter__()
    assert not sp.amp.is_autocast_enabled("cpu")
    with pytest.raises(RuntimeError, match="reverse order of opening"):
        outer.__exit__(None, None, None)
    assert not sp.amp.is_autocast_enabled("cpu")  # nothing was restored by the refused close
    inner.__exit__(None, None, None)
    assert sp.amp.is_autocast_enabled("cpu") and sp.amp.get_autocast_dtype("cpu") == sp.bfloat16
    outer.__exit__(None, None, None)
    assert not sp.amp.is_autocast_enabled("cpu")
