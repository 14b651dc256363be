"""sp.optim: SGD and Adam against their formulas computed with NumPy, a regression fitted to a
known solution, state_dict round trips, gradient clipping, and the learning-rate schedules
(including DeePMD's exponential decay against its published numbers)."""
import math

import numpy as np
import pytest

import sampan as sp
from sampan import nn, optim
from sampan.optim import lr_scheduler


def arr(x):
    return np.asarray(x.detach().numpy())


def param(values):
    return nn.Parameter(sp.tensor(np.asarray(values, dtype=np.float64)))


GRADS = [np.array([0.5, -1.0, 2.0]), np.array([0.1, 0.3, -0.2]), np.array([-1.5, 0.0, 0.7]),
         np.array([0.2, 0.2, 0.2]), np.array([3.0, -2.0, 1.0])]


def run(opt_factory, start=(1.0, -2.0, 0.5), grads=GRADS):
    """Applies the given gradients one step at a time; returns the parameter after each step."""
    p = param(start)
    opt = opt_factory([p])
    history = []
    for g in grads:
        opt.zero_grad()
        p.grad = sp.tensor(g)
        opt.step()
        history.append(arr(p).copy())
    return history


def test_sgd_momentum_nesterov_and_weight_decay_match_the_formula():
    lr, mu, wd, damp = 0.1, 0.9, 0.01, 0.2
    for nesterov, dampening in ((False, damp), (True, 0.0)):
        got = run(lambda ps: optim.SGD(ps, lr=lr, momentum=mu, dampening=dampening, weight_decay=wd,
                                       nesterov=nesterov))
        p, buf = np.array([1.0, -2.0, 0.5]), None
        for g, step in zip(GRADS, got):
            g = g + wd * p
            buf = g.copy() if buf is None else mu * buf + (1 - dampening) * g
            p = p - lr * (g + mu * buf if nesterov else buf)
            np.testing.assert_allclose(step, p, rtol=1e-14)
    plain = run(lambda ps: optim.SGD(ps, lr=0.5))
    np.testing.assert_allclose(plain[0], np.array([1.0, -2.0, 0.5]) - 0.5 * GRADS[0], rtol=1e-15)


def numpy_adam(grads, lr, b1, b2, eps, wd=0.0, decoupled=False, amsgrad=False, start=(1.0, -2.0, 0.5)):
    p = np.array(start)
    m, v, vmax, out = np.zeros(3), np.zeros(3), np.zeros(3), []
    for t, g in enumerate(grads, start=1):
        if decoupled:
            p = p * (1 - lr * wd)
        else:
            g = g + wd * p
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vmax = np.maximum(vmax, v)
        m_hat = m / (1 - b1 ** t)
        v_hat = (vmax if amsgrad else v) / (1 - b2 ** t)
        p = p - lr * m_hat / (np.sqrt(v_hat) + eps)
        out.append(p.copy())
    return out


def test_adam_first_steps_match_numpy():
    got = run(lambda ps: optim.Adam(ps, lr=0.01, betas=(0.8, 0.99), eps=1e-6))
    for a, b in zip(got, numpy_adam(GRADS, 0.01, 0.8, 0.99, 1e-6)):
        np.testing.assert_allclose(a, b, rtol=1e-13)
    # first step: the bias-corrected update is lr * sign(g) (up to eps)
    np.testing.assert_allclose(got[0], np.array([1.0, -2.0, 0.5]) - 0.01 * np.sign(GRADS[0]), rtol=1e-6)
    got = run(lambda ps: optim.Adam(ps, lr=0.02, weight_decay=0.1, amsgrad=True))
    for a, b in zip(got, numpy_adam(GRADS, 0.02, 0.9, 0.999, 1e-8, wd=0.1, amsgrad=True)):
        np.testing.assert_allclose(a, b, rtol=1e-13)


def test_adamw_decays_the_weights_not_the_gradient():
    got = run(lambda ps: optim.AdamW(ps, lr=0.05, weight_decay=0.3))
    for a, b in zip(got, numpy_adam(GRADS, 0.05, 0.9, 0.999, 1e-8, wd=0.3, decoupled=True)):
        np.testing.assert_allclose(a, b, rtol=1e-13)


def test_adam_fits_a_linear_regression_to_the_known_solution():
    rng = np.random.default_rng(0)
    w_true, b_true = np.array([[1.5, -2.0, 0.5]]), np.array([0.3])
    X = rng.standard_normal((256, 3))
    y = X @ w_true.T + b_true
    sp.manual_seed(0)
    model = nn.Linear(3, 1, dtype=sp.float64)
    opt = optim.Adam(model.parameters(), lr=0.05)
    x_t, y_t = sp.tensor(X), sp.tensor(y)
    for _ in range(400):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x_t), y_t)
        loss.backward()
        opt.step()
    assert float(loss) < 1e-8
    np.testing.assert_allclose(arr(model.weight), w_true, atol=1e-4)
    np.testing.assert_allclose(arr(model.bias), b_true, atol=1e-4)


def test_param_groups_zero_grad_and_errors():
    a, b = param([1.0]), param([1.0])
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 1.0}], lr=0.1)
    a.grad, b.grad = sp.tensor([1.0]), sp.tensor([1.0])
    opt.step()
    assert float(a) == pytest.approx(0.9) and float(b) == pytest.approx(0.0)
    opt.zero_grad()
    assert a.grad is None and b.grad is None
    with pytest.raises(ValueError, match="more than once"):
        optim.SGD([a, a], lr=0.1)
    with pytest.raises(ValueError, match="lr"):
        optim.Adam([a], lr=-1.0)
    with pytest.raises(ValueError, match="leaf"):
        optim.SGD([a * 2], lr=0.1)
    with pytest.raises(TypeError, match="unknown hyperparameter"):
        optim.SGD([{"params": [a], "betas": (0.9, 0.99)}], lr=0.1)
    with pytest.raises(TypeError, match="single Tensor"):
        optim.SGD(a, lr=0.1)


def test_optimizer_state_dict_round_trip_continues_identically():
    def make():
        sp.manual_seed(1)
        model = nn.Linear(4, 2, dtype=sp.float64)
        return model, optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x = sp.tensor(np.random.default_rng(1).standard_normal((8, 4)))
    model, opt = make()
    for _ in range(3):
        opt.zero_grad()
        (model(x) ** 2).sum().backward()
        opt.step()
    clone, clone_opt = make()
    clone.load_state_dict(model.state_dict())
    clone_opt.load_state_dict(opt.state_dict())
    assert "momentum_buffer" in clone_opt.state[clone.weight]
    for m, o in ((model, opt), (clone, clone_opt)):
        o.zero_grad()
        (m(x) ** 2).sum().backward()
        o.step()
    np.testing.assert_array_equal(arr(model.weight), arr(clone.weight))
    with pytest.raises(ValueError, match="group"):
        optim.SGD([param([1.0])], lr=0.1).load_state_dict(opt.state_dict())


def test_clip_grad_norm():
    a, b = param([3.0, 0.0]), param([0.0, 4.0, 0.0])
    a.grad, b.grad = sp.tensor([3.0, 0.0]), sp.tensor([0.0, 4.0, 0.0])
    total = optim.clip_grad_norm_([a, b], max_norm=1.0)
    assert float(total) == pytest.approx(5.0)
    norm_after = math.sqrt(float((a.grad * a.grad).sum()) + float((b.grad * b.grad).sum()))
    assert norm_after == pytest.approx(1.0, rel=1e-5)
    a.grad = sp.tensor([0.1, 0.0])
    assert float(nn.utils.clip_grad_norm_(a, 1.0)) == pytest.approx(0.1)
    np.testing.assert_allclose(arr(a.grad), [0.1, 0.0])  # below the bound: untouched
    a.grad = sp.tensor([-2.0, 0.5])
    assert float(optim.clip_grad_norm_([a], 10.0, norm_type=math.inf)) == pytest.approx(2.0)
    optim.clip_grad_value_([a], 1.0)
    np.testing.assert_allclose(arr(a.grad), [-1.0, 0.5])


# ---- schedules -----------------------------------------------------------------------------------

def lrs(scheduler, steps):
    out = [scheduler.get_last_lr()[0]]
    for _ in range(steps):
        scheduler.optimizer.step()
        scheduler.step()
        out.append(scheduler.get_last_lr()[0])
    return out


def test_exponential_decay_smooth_and_stepped():
    opt = optim.SGD([param([1.0])], lr=1e-3)
    smooth = lr_scheduler.ExponentialDecay(opt, decay_steps=10, decay_rate=0.5)
    got = lrs(smooth, 25)
    np.testing.assert_allclose(got, [1e-3 * 0.5 ** (s / 10) for s in range(26)], rtol=1e-14)
    opt = optim.SGD([param([1.0])], lr=1e-3)
    stepped = lr_scheduler.ExponentialDecay(opt, decay_steps=10, decay_rate=0.5, staircase=True)
    np.testing.assert_allclose(lrs(stepped, 25), [1e-3 * 0.5 ** (s // 10) for s in range(26)], rtol=1e-14)


def test_exponential_decay_reproduces_deepmd_schedule():
    # DeePMD: start_lr 1e-3, stop_lr 3.51e-8, decay_steps 5000, 1 M steps -> decay rate 0.95 and
    # lr 9.0e-4 at 10 k, 3.6e-4 at 100 k, 5.9e-6 at 500 k, 3.5e-8 at 1 M (stepped).
    opt = optim.Adam([param([1.0])], lr=1e-3)
    schedule = lr_scheduler.ExponentialDecay(opt, decay_steps=5000, stop_lr=3.51e-8, stop_steps=1_000_000,
                                             staircase=True)
    assert schedule.rate(1e-3) == pytest.approx(0.95, abs=5e-5)
    for step, expected in ((0, 1.0e-3), (10_000, 9.0e-4), (100_000, 3.6e-4), (500_000, 5.9e-6),
                           (1_000_000, 3.5e-8)):
        schedule.step(step)
        assert opt.param_groups[0]["lr"] == pytest.approx(expected, rel=0.03), step


def test_step_cosine_and_warmup():
    opt = optim.SGD([param([1.0])], lr=1.0)
    np.testing.assert_allclose(lrs(lr_scheduler.StepLR(opt, step_size=3, gamma=0.5), 7),
                               [1, 1, 1, 0.5, 0.5, 0.5, 0.25, 0.25])
    opt = optim.SGD([param([1.0])], lr=1.0)
    cosine = lrs(lr_scheduler.CosineAnnealing(opt, T_max=4, eta_min=0.1), 6)
    np.testing.assert_allclose(cosine, [0.1 + 0.9 * (1 + math.cos(math.pi * min(s, 4) / 4)) / 2 for s in range(7)])
    opt = optim.SGD([param([1.0])], lr=0.8)
    decay = lr_scheduler.ExponentialDecay(opt, decay_steps=1, decay_rate=0.5)
    warm = lr_scheduler.LinearWarmup(decay, warmup_steps=4)
    np.testing.assert_allclose(lrs(warm, 7), [0.0, 0.2, 0.4, 0.6, 0.8, 0.4, 0.2, 0.1])
    state = warm.state_dict()
    opt2 = optim.SGD([param([1.0])], lr=0.8)
    warm2 = lr_scheduler.LinearWarmup(lr_scheduler.ExponentialDecay(opt2, decay_steps=1, decay_rate=0.5), 4)
    warm2.load_state_dict(state)
    assert opt2.param_groups[0]["lr"] == pytest.approx(0.1)
    with pytest.raises(ValueError, match="exactly one"):
        lr_scheduler.ExponentialDecay(opt, decay_steps=10)


def test_fused_adam_matches_numpy_with_l2_decay_maximize_float32_and_strided_grad():
    # Adam without amsgrad runs the fused core::adam_update_; the same NumPy formula must come out.
    got = run(lambda ps: optim.Adam(ps, lr=0.02, betas=(0.85, 0.995), eps=1e-7, weight_decay=0.1))
    for a, b in zip(got, numpy_adam(GRADS, 0.02, 0.85, 0.995, 1e-7, wd=0.1)):
        np.testing.assert_allclose(a, b, rtol=1e-13)
    ascend = run(lambda ps: optim.Adam(ps, lr=0.01, maximize=True))
    for a, b in zip(ascend, numpy_adam([-g for g in GRADS], 0.01, 0.9, 0.999, 1e-8)):
        np.testing.assert_allclose(a, b, rtol=1e-13)
    p = nn.Parameter(sp.tensor(np.array([1.0, -2.0, 0.5], np.float32)))
    opt = optim.Adam([p], lr=0.01)
    for g in GRADS:
        wide = sp.tensor(np.stack([g, 10 * g], 1).astype(np.float32))  # column 0 is a strided view
        p.grad = wide[:, 0]
        opt.step()
    assert p.dtype == sp.float32
    np.testing.assert_allclose(arr(p), numpy_adam(GRADS, 0.01, 0.9, 0.999, 1e-8)[-1], rtol=1e-5)
    assert opt.state[p]["step"] == len(GRADS)

