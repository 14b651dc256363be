"""Finite-shot <H> estimates and their parameter-shift gradient (sampan/quantum/shots.py).

Statistical checks are deterministic (fixed seeds) with bounds from the estimator's variance, not
tuned: the variance of one estimate is sum over groups of Var_psi(H_group) / N (each group measured
with its own N shots), computed here from the state and the Hamiltonian's matrices. A mean over M
seeds must lie within 5 standard errors of the exact value; the chance that a correct estimator
fails one such check is about 6e-7. The exact values and gradients come from the adjoint method."""
import math

import numpy as np
import pytest

import sampan as sp
from sampan.quantum import Circuit, DensityMatrix, Hamiltonian, shots as shot_estimates

H_MIXED = Hamiltonian([(0.8, "Z0 Z1"), (-0.6, "X0 X1"), (0.5, "Y2"), (0.3, "X1"), (1.1, "Z2 X0"), (0.25, "")])


def build_circuit():
    c = Circuit(3, seed=2)
    c.ry(None, "full")
    c.cnot(0, 1).cnot(1, 2)
    c.rx(None, [0, 2])
    c.rzz(None, 0, 2)
    return c


def estimator_variance(psi, hamiltonian, shots):
    """sum over groups of (<H_g^2> - <H_g>^2) / N for the groups shots.py measures."""
    total = 0.0
    for _, members in shot_estimates.commuting_groups(hamiltonian):
        hg = Hamiltonian([(hamiltonian.terms[k][0], " ".join(f"{'IXYZ'[c]}{q}" for q, c in
                                                             hamiltonian.terms[k][1].items())) for k in members])
        m = hg.matrix(3)
        mean = np.vdot(psi, m @ psi).real
        total += (np.vdot(psi, m @ (m @ psi)).real - mean ** 2) / shots
    return total


def test_greedy_grouping_follows_the_documented_rule():
    h = Hamiltonian([(1.0, "Z0 Z1"), (1.0, "Z0"), (1.0, "X0 X1"), (1.0, "X1"), (1.0, "Y2"), (2.0, "")])
    groups = shot_estimates.commuting_groups(h)
    # Largest support first: Z0Z1 (group A), X0X1 (clashes: group B), Z0 -> A, X1 -> B, Y2 -> A.
    assert [members for _, members in groups] == [[0, 1, 4], [2, 3]]
    for basis, members in groups:
        for k in members:
            assert all(basis[q] == c for q, c in h.terms[k][1].items())


@pytest.mark.parametrize("prepare, term, value", [
    (lambda c: c.x(1), "Z1", -1.0),
    (lambda c: c.x(1), "Z0 Z1", -1.0),
    (lambda c: c.h(0), "X0", 1.0),                  # |+>: the X rotation
    (lambda c: c.h(2).s(2), "Y2", 1.0),              # |+i>: the Y rotation
    (lambda c: c.x(0).h(0).h(1).s(1), "X0 Y1", -1.0),
])
def test_an_eigenstate_of_the_measured_term_gives_the_exact_value(prepare, term, value):
    c = Circuit(3)
    prepare(c)
    for seed in range(5):
        est = c.expectation(Hamiltonian([(0.7, term)]), shots=17, seed=seed).item()
        assert est == pytest.approx(0.7 * value, abs=1e-14)


def test_the_mean_over_seeds_is_within_five_standard_errors_and_std_scales_as_one_over_root_n():
    c = build_circuit()
    exact = c.expectation(H_MIXED).item()
    psi = c.state().detach().numpy()
    n_seeds, shots = 400, 64
    stds = {}
    for n in (shots, 4 * shots):
        with sp.no_grad():
            est = np.array([c.expectation(H_MIXED, shots=n, seed=s).item() for s in range(n_seeds)])
        var = estimator_variance(psi, H_MIXED, n)
        assert abs(est.mean() - exact) < 5 * math.sqrt(var / n_seeds)
        # The sample variance of M draws has relative std sqrt(2 / (M - 1)) (about 7% here).
        assert abs(est.var(ddof=1) / var - 1) < 5 * math.sqrt(2 / (n_seeds - 1))
        stds[n] = est.std(ddof=1)
    # std(N) / std(4N) = 2; each std has relative error ~ 1/sqrt(2M) = 3.5%, the ratio ~5%: 5 sigma = 25%.
    assert abs(stds[shots] / stds[4 * shots] - 2) < 0.5


def test_the_same_seed_gives_the_same_estimate_and_gradient():
    c = build_circuit()
    a = c.expectation(H_MIXED, shots=50, seed=9)
    a.backward()
    ga = c.parameters.grad.numpy().copy()
    c.parameters.grad = None
    b = c.expectation(H_MIXED, shots=50, seed=9)
    b.backward()
    assert a.item() == b.item()
    assert np.array_equal(ga, c.parameters.grad.numpy())


def test_shots_none_is_the_exact_adjoint_value_and_gradient():
    c = build_circuit()
    e1 = c.expectation(H_MIXED)
    e1.backward()
    g1 = c.parameters.grad.numpy().copy()
    c.parameters.grad = None
    e2 = c.expectation(H_MIXED, shots=None, seed=3)
    e2.backward()
    assert e1.item() == e2.item()
    assert np.array_equal(g1, c.parameters.grad.numpy())


def adjoint_gradient(c, h):
    c.parameters.grad = None
    c.expectation(h).backward()
    g = c.parameters.grad.numpy().copy()
    c.parameters.grad = None
    return g


@pytest.mark.parametrize("build", [
    lambda c: c.rx(None, 0).ry(None, 1).rz(None, 2),
    lambda c: c.rxx(None, 0, 1).ryy(None, 1, 2).rzz(None, 0, 2),
    lambda c: c.p(None, 0).u3(None, None, None, 1),
    lambda c: c.qaoa_layer([(0, 1), (1, 2)], depth=2),   # one gamma shared by several gates
])
def test_the_exact_shift_rule_equals_the_adjoint_gradient_for_every_covered_gate(build):
    c = Circuit(3, seed=4).h("full").ry(0.4, 0).rx(1.3, 2)
    build(c)
    c.cnot(0, 1).ry(0.7, 1).cnot(1, 2)
    params, enc, consts = c.encode()
    encoded = shot_estimates._Encoded(3, params, enc, consts, density_matrix=False)
    shifted = shot_estimates.parameter_shift_gradient(encoded, H_MIXED, None, None)
    assert np.allclose(shifted, adjoint_gradient(c, H_MIXED), atol=1e-10)


def test_the_shot_gradient_converges_to_the_adjoint_gradient():
    c = build_circuit()
    exact = adjoint_gradient(c, H_MIXED)
    grads = []
    for seed in range(150):
        c.parameters.grad = None
        c.expectation(H_MIXED, shots=40, seed=seed).backward()
        grads.append(c.parameters.grad.numpy().copy())
    grads = np.array(grads)
    se = grads.std(axis=0, ddof=1) / math.sqrt(len(grads))
    assert np.all(np.abs(grads.mean(axis=0) - exact) < 5 * se)
    assert np.all(se > 0)  # each component really is sampled


def test_the_shot_gradient_reaches_a_user_angle_tensor():
    theta = sp.tensor([0.9], requires_grad=True)
    c = Circuit(1).ry(theta, 0)
    h = Hamiltonian([(1.0, "Z0")])   # <Z> = cos(theta), d/dtheta = -sin(theta)
    values = []
    for seed in range(200):
        theta.grad = None
        c.expectation(h, shots=30, seed=seed).backward()
        values.append(theta.grad.numpy()[0])
    values = np.array(values)
    # Each shifted <Z> is a mean of 30 +-1 shots: Var(grad) = (sin^2(t+pi/2) + sin^2(t-pi/2)) / (4 * 30).
    var = 2 * math.cos(0.9) ** 2 / (4 * 30)
    assert abs(values.mean() + math.sin(0.9)) < 5 * math.sqrt(var / len(values))


def test_a_gate_the_rule_does_not_cover_is_a_clear_error():
    c = Circuit(2).h(0).crx(None, 0, 1)
    h = Hamiltonian([(1.0, "Z1")])
    with pytest.raises(ValueError, match=r"gate 1 \(crx on qubits \[0, 1\]\).*shift rule covers only"):
        c.expectation(h, shots=10, seed=0)
    with sp.no_grad():  # no gradient asked: the estimate alone is fine
        est = c.expectation(h, shots=2000, seed=0).item()
    exact = c.expectation(h).item()
    assert abs(est - exact) < 5 * math.sqrt((1 - exact ** 2) / 2000)


def test_noisy_circuits_and_density_matrices_are_sampled_on_the_density_matrix():
    c = Circuit(2).ry(0.8, 0).cnot(0, 1).depolarizing(0.2, [0])
    h = Hamiltonian([(1.0, "Z0 Z1"), (0.5, "X0")])
    exact = c.expectation(h).item()
    rho = c.density_matrix().numpy()
    var = 0.0
    for _, members in shot_estimates.commuting_groups(h):
        m = Hamiltonian([(h.terms[k][0], " ".join(f"{'IXYZ'[p]}{q}" for q, p in h.terms[k][1].items()))
                         for k in members]).matrix(2)
        var += (np.trace(m @ m @ rho).real - np.trace(m @ rho).real ** 2) / 100
    est = [c.expectation(h, shots=100, seed=s).item() for s in range(300)]
    assert abs(np.mean(est) - exact) < 5 * math.sqrt(var / 300)
    dm = DensityMatrix(c)
    est_dm = [dm.expectation(h, shots=100, seed=s).item() for s in range(300)]
    assert abs(np.mean(est_dm) - exact) < 5 * math.sqrt(var / 300)


@pytest.mark.parametrize("shots", [0, -3, 2.5, True])
def test_bad_shots_are_a_clear_error(shots):
    with pytest.raises(ValueError, match="shots must be a positive integer"):
        Circuit(1).h(0).expectation(Hamiltonian([(1.0, "X0")]), shots=shots)


def test_a_bad_seed_is_a_clear_error():
    with pytest.raises(TypeError, match="seed must be an int"):
        Circuit(1).h(0).expectation(Hamiltonian([(1.0, "X0")]), shots=10, seed="one")
