"""sp.nn: Module registration and state dicts, layers against NumPy, initialization, losses
against NumPy (values and gradients), train/eval behaviour, and double backward through a model."""
import copy
import math

import numpy as np
import pytest

import sampan as sp
import sampan.nn.functional as F
from sampan import nn


def arr(x):
    return np.asarray(x.detach().numpy())


def t64(a):
    return sp.tensor(np.asarray(a, dtype=np.float64))


# ---- Parameter and Module ------------------------------------------------------------------------

def test_parameter_is_a_leaf_tensor_requiring_grad():
    p = nn.Parameter(sp.tensor([1.0, 2.0]))
    assert isinstance(p, sp.Tensor) and isinstance(p, nn.Parameter)
    assert p.requires_grad and p.is_leaf
    assert "Parameter containing" in repr(p)
    (p * p).sum().backward()
    np.testing.assert_array_equal(arr(p.grad), [2.0, 4.0])
    q = copy.deepcopy(p)
    assert isinstance(q, nn.Parameter) and not q.shares_storage(p)
    assert not nn.Parameter(sp.tensor([1, 2])).requires_grad  # integer: cannot require grad


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(3, 4)
        self.head = nn.Linear(4, 1, bias=False)
        self.scale = nn.Parameter(sp.ones(1))
        self.register_buffer("count", sp.zeros((), dtype=sp.int64))
        self.register_buffer("scratch", sp.zeros(2), persistent=False)
        self.note = "plain attribute"

    def forward(self, x):
        return self.head(sp.relu(self.body(x))) * self.scale


def test_registration_and_traversal():
    net = Net()
    assert [n for n, _ in net.named_parameters()] == ["scale", "body.weight", "body.bias", "head.weight"]
    assert [n for n, _ in net.named_buffers()] == ["count", "scratch"]
    assert [type(m).__name__ for m in net.modules()] == ["Net", "Linear", "Linear"]
    assert [n for n, _ in net.named_children()] == ["body", "head"]
    assert net.head.bias is None and net.note == "plain attribute"
    assert list(net.state_dict()) == ["scale", "count", "body.weight", "body.bias", "head.weight"]
    assert net.num_parameters() == 1 + 12 + 4 + 4
    with pytest.raises(TypeError, match="parameter 'scale'"):
        net.scale = sp.ones(1)  # a plain tensor cannot replace a parameter
    del net.head
    assert "head" not in dict(net.named_children())
    with pytest.raises(AttributeError, match="no attribute 'head'"):
        net.head


def test_shared_parameter_counted_once():
    a = nn.Linear(2, 2)
    seq = nn.Sequential(a, nn.ReLU(), a)
    assert len(list(seq.parameters())) == 2
    assert list(seq.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]


def test_load_state_dict_strict_reports_every_problem():
    net = Net()
    state = net.state_dict()
    state.pop("body.bias")
    state["extra"] = sp.zeros(1)
    state["body.weight"] = sp.zeros(5, 5)
    with pytest.raises(RuntimeError) as info:
        net.load_state_dict(state)
    message = str(info.value)
    assert "missing keys: 'body.bias'" in message
    assert "unexpected keys: 'extra'" in message
    assert "'body.weight': shape (5, 5) in the state dict, (4, 3) in the model" in message
    state["body.weight"] = sp.full((4, 3), 0.5)
    result = net.load_state_dict(state, strict=False)
    assert result.missing_keys == ["body.bias"] and result.unexpected_keys == ["extra"]
    np.testing.assert_array_equal(arr(net.body.weight), np.full((4, 3), 0.5, np.float32))
    assert net.body.weight.requires_grad  # copied in place: still the same Parameter


def test_state_dict_round_trip_restores_outputs():
    sp.manual_seed(0)
    a, b = Net(), Net()
    x = sp.tensor(np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32))
    b.load_state_dict(a.state_dict())
    np.testing.assert_array_equal(arr(a(x)), arr(b(x)))


def test_train_eval_zero_grad_and_dtype_conversion():
    net = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5), nn.Linear(3, 1))
    assert all(m.training for m in net.modules())
    net.eval()
    assert not any(m.training for m in net.modules())
    net.train()
    net(sp.ones(2, 3)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    net.double()
    assert all(p.dtype == sp.float64 and isinstance(p, nn.Parameter) and p.requires_grad for p in net.parameters())
    assert net(sp.ones(2, 3, dtype=sp.float64)).dtype == sp.float64


def test_repr_tree():
    text = repr(nn.MLP(2, [4], 1, activation="tanh"))
    assert text.splitlines()[0] == "MLP("
    assert "(0): Linear(in_features=2, out_features=4, bias=True)" in text
    assert "(1): Tanh()" in text
    assert "(2): Linear(in_features=4, out_features=1, bias=True)" in text


def test_containers():
    seq = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear) and len(seq[:2]) == 2
    named = nn.Sequential({"first": nn.Identity(), "second": nn.Tanh()})
    assert [n for n, _ in named.named_children()] == ["first", "second"]
    layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(3)])
    layers.append(nn.Linear(2, 1))
    assert len(layers) == 4 and len(list(layers.parameters())) == 8
    assert "3.weight" in layers.state_dict()
    heads = nn.ModuleDict({"energy": nn.Linear(2, 1), "charge": nn.Linear(2, 1)})
    assert list(heads) == ["energy", "charge"] and "charge.bias" in heads.state_dict()


# ---- layers ----------------------------------------------------------------------------------

def test_linear_matches_numpy_and_pytorch_init_bounds():
    sp.manual_seed(3)
    layer = nn.Linear(50, 20)
    w, b = arr(layer.weight), arr(layer.bias)
    bound = 1 / math.sqrt(50)
    assert w.shape == (20, 50) and np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert w.std() == pytest.approx(bound / math.sqrt(3), rel=0.1)  # U(-b, b) has std b/sqrt(3)
    x = np.random.default_rng(3).standard_normal((4, 7, 50)).astype(np.float32)
    np.testing.assert_allclose(arr(layer(sp.tensor(x))), x @ w.T + b, rtol=1e-5, atol=1e-5)
    sp.manual_seed(3)
    np.testing.assert_array_equal(arr(nn.Linear(50, 20).weight), w)  # seeded: reproducible


def test_bilinear_matches_einsum():
    layer = nn.Bilinear(3, 4, 2, dtype=sp.float64)
    rng = np.random.default_rng(4)
    x1, x2 = rng.standard_normal((5, 3)), rng.standard_normal((5, 4))
    expected = np.einsum("ni,kij,nj->nk", x1, arr(layer.weight), x2) + arr(layer.bias)
    np.testing.assert_allclose(arr(layer(t64(x1), t64(x2))), expected, rtol=1e-12)


def test_embedding_lookup_and_padding_gradient():
    emb = nn.Embedding(5, 3, padding_idx=0, dtype=sp.float64)
    assert np.all(arr(emb.weight)[0] == 0)
    idx = sp.tensor([[1, 0], [4, 1]])
    out = emb(idx)
    assert out.shape == (2, 2, 3)
    np.testing.assert_array_equal(arr(out)[1, 0], arr(emb.weight)[4])
    out.sum().backward()
    g = arr(emb.weight.grad)
    np.testing.assert_array_equal(g[0], 0)  # padding row: no gradient
    np.testing.assert_array_equal(g[1], 2)  # used twice
    np.testing.assert_array_equal(g[2], 0)


def test_layer_norm_matches_numpy():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((4, 6))
    ln = nn.LayerNorm(6, dtype=sp.float64)
    with sp.no_grad():
        ln.weight.copy_(t64(rng.standard_normal(6)))
        ln.bias.copy_(t64(rng.standard_normal(6)))
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    expected = (x - mean) / np.sqrt(var + 1e-5) * arr(ln.weight) + arr(ln.bias)
    np.testing.assert_allclose(arr(ln(t64(x))), expected, rtol=1e-10, atol=1e-12)


def test_batch_norm_running_stats_match_numpy():
    rng = np.random.default_rng(6)
    bn = nn.BatchNorm1d(3, momentum=0.2, dtype=sp.float64)
    running_mean, running_var = np.zeros(3), np.ones(3)
    for _ in range(4):
        x = rng.standard_normal((8, 3)) * [1.0, 2.0, 0.5] + [0.0, 1.0, -3.0]
        y = arr(bn(t64(x)))
        mean, var = x.mean(0), x.var(0)
        np.testing.assert_allclose(y, (x - mean) / np.sqrt(var + 1e-5), rtol=1e-10, atol=1e-12)
        running_mean = 0.8 * running_mean + 0.2 * mean
        running_var = 0.8 * running_var + 0.2 * x.var(0, ddof=1)  # unbiased, as PyTorch
    np.testing.assert_allclose(arr(bn.running_mean), running_mean, rtol=1e-12)
    np.testing.assert_allclose(arr(bn.running_var), running_var, rtol=1e-12)
    assert int(bn.num_batches_tracked) == 4
    bn.eval()
    x = rng.standard_normal((2, 3))
    np.testing.assert_allclose(arr(bn(t64(x))), (x - running_mean) / np.sqrt(running_var + 1e-5), rtol=1e-10)
    assert int(bn.num_batches_tracked) == 4  # eval does not count
    # (N, C, L) inputs normalize over N and L.
    bn3 = nn.BatchNorm1d(2, dtype=sp.float64)
    x3 = rng.standard_normal((4, 2, 5))
    m3, v3 = x3.mean((0, 2), keepdims=True), x3.var((0, 2), keepdims=True)
    np.testing.assert_allclose(arr(bn3(t64(x3))), (x3 - m3) / np.sqrt(v3 + 1e-5), rtol=1e-10, atol=1e-12)
    assert "running_mean" in bn.state_dict() and "num_batches_tracked" in bn.state_dict()


def test_dropout_train_and_eval():
    sp.manual_seed(7)
    drop = nn.Dropout(0.25)
    x = sp.ones(200, 200)
    y = arr(drop(x))
    kept = y != 0
    assert abs(1 - kept.mean() - 0.25) < 0.01
    np.testing.assert_allclose(y[kept], 1 / 0.75, rtol=1e-6)
    drop.eval()
    assert drop(x) is x


def test_activations_match_numpy():
    x = np.linspace(-4, 4, 17)
    erf = np.vectorize(math.erf)
    cases = {
        nn.ReLU(): np.maximum(x, 0), nn.Tanh(): np.tanh(x), nn.Sigmoid(): 1 / (1 + np.exp(-x)),
        nn.SiLU(): x / (1 + np.exp(-x)), nn.GELU(): 0.5 * x * (1 + erf(x / math.sqrt(2))),
        nn.GELU("tanh"): 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3))),
        nn.Softplus(): np.log1p(np.exp(x)), nn.LeakyReLU(0.1): np.where(x > 0, x, 0.1 * x),
    }
    for module, expected in cases.items():
        np.testing.assert_allclose(arr(module(t64(x))), expected, rtol=1e-12, atol=1e-12, err_msg=repr(module))


def test_mlp_double_backward_for_force_training():
    # Energy E(x) from an MLP; forces -dE/dx; a loss on the forces trains the weights, which needs
    # the second derivative through every layer.
    sp.manual_seed(8)
    model = nn.MLP(3, [16, 16], 1, activation="tanh", dtype=sp.float64)
    x = sp.tensor(np.random.default_rng(8).standard_normal((10, 3)), requires_grad=True)
    energy = model(x).sum()
    (forces,) = sp.grad(energy, x, create_graph=True)
    (forces * forces).sum().backward()
    last_bias = model[-1].bias  # shifts the energy, not the forces: no gradient
    assert last_bias.grad is None or not np.any(arr(last_bias.grad))
    assert all(p.grad is not None and np.abs(arr(p.grad)).sum() > 0 for p in model.parameters() if p is not last_bias)


# ---- losses --------------------------------------------------------------------------------------

def _grad_of(loss_fn, x):
    x = t64(x)
    x.requires_grad_()
    loss = loss_fn(x)
    loss.backward()
    return float(loss), arr(x.grad)


def test_regression_losses_match_numpy():
    rng = np.random.default_rng(9)
    x, y = rng.standard_normal(20) * 2, rng.standard_normal(20)
    d = x - y
    np.testing.assert_allclose(float(F.mse_loss(t64(x), t64(y))), np.mean(d ** 2), rtol=1e-12)
    np.testing.assert_allclose(float(F.l1_loss(t64(x), t64(y), reduction="sum")), np.abs(d).sum(), rtol=1e-12)
    huber = np.where(np.abs(d) <= 0.7, 0.5 * d ** 2, 0.7 * (np.abs(d) - 0.35))
    np.testing.assert_allclose(arr(F.huber_loss(t64(x), t64(y), "none", delta=0.7)), huber, rtol=1e-12)
    value, grad = _grad_of(lambda t: F.huber_loss(t, t64(y), delta=0.7), x)
    np.testing.assert_allclose(grad, np.clip(d, -0.7, 0.7) / 20, rtol=1e-12)
    with pytest.raises(ValueError, match="shape"):
        F.mse_loss(t64(x).reshape(20, 1), t64(y))
    with pytest.raises(ValueError, match="reduction"):
        F.mse_loss(t64(x), t64(y), reduction="avg")


def test_bce_with_logits_and_missing_labels_match_numpy():
    rng = np.random.default_rng(10)
    x = rng.standard_normal((6, 4)) * 3
    x[0, 0], x[1, 1] = 0.0, 80.0  # the kink-free point and a logit where exp would overflow
    t = (rng.random((6, 4)) > 0.5).astype(np.float64)
    mask = rng.random((6, 4)) > 0.3
    t_nan = np.where(mask, t, np.nan)  # missing labels stored as NaN
    per_element = np.maximum(x, 0) - x * t + np.log1p(np.exp(-np.abs(x)))
    expected = per_element[mask].sum() / mask.sum()
    value, grad = _grad_of(lambda z: F.binary_cross_entropy_with_logits(z, t64(t_nan), mask=sp.tensor(mask)), x)
    np.testing.assert_allclose(value, expected, rtol=1e-12)
    sigmoid = 1 / (1 + np.exp(-x))
    np.testing.assert_allclose(grad, np.where(mask, sigmoid - t, 0) / mask.sum(), rtol=1e-10, atol=1e-15)
    # weight and pos_weight, as PyTorch defines them
    w, pw = rng.random((6, 4)), np.array([1.0, 2.0, 0.5, 3.0])
    log_sig, log_one_minus = -np.log1p(np.exp(-x)), -np.log1p(np.exp(x))
    expected = np.mean(-w * (pw * t * log_sig + (1 - t) * log_one_minus))
    got = F.binary_cross_entropy_with_logits(t64(x), t64(t), weight=t64(w), pos_weight=t64(pw))
    np.testing.assert_allclose(float(got), expected, rtol=1e-10)
    # no label at all: zero, not NaN
    none = F.binary_cross_entropy_with_logits(t64(x), t64(t), mask=sp.zeros(6, 4, dtype=sp.bool))
    assert float(none) == 0.0


def _log_softmax(x, axis=1):
    m = x.max(axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis, keepdims=True))


def test_cross_entropy_and_nll_match_numpy():
    rng = np.random.default_rng(11)
    x = rng.standard_normal((7, 5)) * 3
    target = np.array([0, 4, 2, 2, -100, 1, 3])
    w = rng.random(5) + 0.5
    logp = _log_softmax(x)
    valid = target != -100
    picked = -logp[np.arange(7)[valid], target[valid]]
    np.testing.assert_allclose(float(F.cross_entropy(t64(x), sp.tensor(target))), picked.mean(), rtol=1e-12)
    weighted = (w[target[valid]] * picked).sum() / w[target[valid]].sum()
    np.testing.assert_allclose(float(F.cross_entropy(t64(x), sp.tensor(target), weight=t64(w))), weighted, rtol=1e-12)
    np.testing.assert_allclose(float(F.nll_loss(t64(logp), sp.tensor(target), reduction="sum")), picked.sum(),
                               rtol=1e-12)
    # gradient of the mean cross entropy: (softmax - onehot) / count on counted rows
    value, grad = _grad_of(lambda z: F.cross_entropy(z, sp.tensor(target)), x)
    onehot = np.zeros((7, 5))
    onehot[np.arange(7)[valid], target[valid]] = 1
    expected = np.where(valid[:, None], np.exp(logp) - onehot, 0) / valid.sum()
    np.testing.assert_allclose(grad, expected, rtol=1e-10, atol=1e-14)
    # label smoothing 0.1: (1 - eps) nll + eps * mean_c(-log p)
    eps = 0.1
    smooth = (1 - eps) * picked + eps * (-logp[valid]).mean(1)
    got = F.cross_entropy(t64(x), sp.tensor(target), label_smoothing=eps)
    np.testing.assert_allclose(float(got), smooth.mean(), rtol=1e-12)
    # (N, C, L) inputs
    x3, t3 = rng.standard_normal((2, 5, 3)), rng.integers(0, 5, (2, 3))
    logp3 = _log_softmax(x3)
    expected = -np.take_along_axis(logp3, t3[:, None, :], 1).mean()
    np.testing.assert_allclose(float(F.cross_entropy(t64(x3), sp.tensor(t3))), expected, rtol=1e-12)
    with pytest.raises(IndexError, match=r"\[0, 5\)"):
        F.cross_entropy(t64(x), sp.tensor([5, 0, 0, 0, 0, 0, 0]))
