"""Differentiable circuit unitaries (vs the C++ simulator), the LOCC framework (layout, local
operations, measurement branches, teleportation, no-signalling, gradients)."""
import math

import numpy as np
import pytest

import sampan as sp
from sampan.quantum import Circuit
from sampan.quantum import info as qi
from sampan.quantum import states as qs
from sampan.quantum.locc import LoccNet, LoccState, combine
from sampan.quantum.matrices import apply_matrix, circuit_unitary, conjugate_density_matrix


def np_(t):
    return t.detach().numpy()


def every_gate_circuit(seed=1):
    c = Circuit(4, seed=seed)
    for q in range(4):
        c.u3(None, None, None, q)
    c.h(0).x(1).y(2).z(3).s(0).sdg(1).t(2).tdg(3).p(None, 0).rx(None, 1).ry(None, 2).rz(None, 3)
    c.cnot(0, 1).cy(1, 2).cz(2, 3).swap(0, 3).cp(None, 1, 0).crx(None, 2, 1).cry(None, 3, 2).crz(None, 0, 3)
    c.rxx(None, 0, 2).ryy(None, 1, 3).rzz(None, 2, 0).ccx(0, 1, 2).cu(None, None, None, 3, 1).ms(1, 2)
    c.cswap(2, 0, 3).unitary(np_(qs.haar_unitary(2, seed=3)), [3, 1])
    c.controlled_unitary(np_(qs.haar_unitary(1, seed=4)), [0, 2], [1]).universal_two_qubit(None, 2, 0)
    c.rx(0.3, 2)   # a fixed angle
    return c


def test_circuit_unitary_matches_cpp_simulator_for_every_gate():
    for seed in (1, 2):
        c = every_gate_circuit(seed)
        u = np_(circuit_unitary(c))
        # Column 0 is circuit|0000>; the random U3 layer makes it generic, so every gate matrix
        # (and its qubit order) is checked against quantum/src/circuit.cpp.
        assert np.abs(u[:, 0] - np_(c.state())).max() < 1e-13
        assert np.abs(u.conj().T @ u - np.eye(16)).max() < 1e-13


def test_circuit_unitary_gradient_against_finite_differences():
    c = every_gate_circuit(5)
    params = c.parameters
    target = np_(qs.random_state(4, seed=9))
    tgt = sp.tensor(target)

    def loss():
        return sp.abs(sp.vdot(tgt, circuit_unitary(c)[:, 3])) ** 2

    (g,) = sp.grad(loss(), params)
    base = np_(params).copy()
    for i in (0, 7, 13, len(base) - 1):
        vals = []
        for sign in (1, -1):
            with sp.no_grad():
                params.copy_(sp.tensor(base + sign * 1e-6 * np.eye(len(base))[i]))
                vals.append(loss().item())
        with sp.no_grad():
            params.copy_(sp.tensor(base))
        assert g.numpy()[i] == pytest.approx((vals[0] - vals[1]) / 2e-6, rel=1e-5, abs=1e-8)


def test_apply_matrix_on_noncontiguous_qubits_against_kron():
    rho = qs.random_density_matrix(3, seed=2)
    u = np_(qs.haar_unitary(2, seed=3))
    got = np_(conjugate_density_matrix(rho, sp.tensor(u), [2, 0], 3))
    # Global matrix: u's bit 0 = qubit 2, bit 1 = qubit 0; qubit 1 untouched.
    full = np.zeros((8, 8), dtype=complex)
    for i in range(8):
        for j in range(8):
            if ((i >> 1) & 1) != ((j >> 1) & 1):
                continue
            li = ((i >> 2) & 1) | ((i & 1) << 1)
            lj = ((j >> 2) & 1) | ((j & 1) << 1)
            full[i, j] = u[li, lj]
    assert np.allclose(got, full @ np_(rho) @ full.conj().T, atol=1e-14)
    with pytest.raises(ValueError, match="distinct"):
        apply_matrix(rho, sp.tensor(u), [1, 1], 3)


def two_party_net():
    net = LoccNet()
    net.add_party("Alice", 2)
    net.add_party("Bob", 2)
    return net


def test_register_layout_and_errors():
    net = two_party_net()
    r1, r2 = qs.random_density_matrix(2, seed=1), qs.random_density_matrix(2, seed=2)
    s = net.initial_state((r1, [("Alice", 0), ("Bob", 0)]), (r2, [("Alice", 1), ("Bob", 1)]))
    assert [s.qubit("Alice", 0), s.qubit("Bob", 0), s.qubit("Alice", 1), s.qubit("Bob", 1)] == [0, 1, 2, 3]
    assert np.allclose(np_(s.matrix), np.kron(np_(r2), np_(r1)))
    assert s.prob.item() == pytest.approx(1.0)
    with pytest.raises(ValueError, match="unknown party 'Carol'"):
        net.apply(s, "Carol", Circuit(1).h(0))
    with pytest.raises(ValueError, match="local qubits 0 to 1, got 2"):
        net.initial_state((r1, [("Alice", 2), ("Bob", 0)]))
    with pytest.raises(ValueError, match="appears twice"):
        net.initial_state((r1, [("Alice", 0), ("Bob", 0)]), (r2, [("Alice", 0), ("Bob", 1)]))
    with pytest.raises(ValueError, match="a circuit on 1 qubits for 2 local qubits"):
        net.apply(s, "Alice", Circuit(1).h(0))
    with pytest.raises(ValueError, match="must be a string of 1 bits"):
        net.measure(s, "Bob", [1], ["01"])
    with pytest.raises(ValueError, match="already exists"):
        net.add_party("Alice", 1)


def test_measurement_branches_probabilities_and_collapse():
    net = two_party_net()
    rho = qs.random_density_matrix(4, seed=4)
    s = LoccState(rho, [("Alice", 0), ("Bob", 0), ("Alice", 1), ("Bob", 1)])
    branches = net.measure(s, "Alice", [1, 0])
    assert [b.outcome for b in branches] == ["00", "10", "01", "11"]
    r = np_(rho)
    for b in branches:
        # Alice local 1 = register qubit 2, local 0 = qubit 0; bits in the order asked.
        q2, q0 = int(b.outcome[0]), int(b.outcome[1])
        idx = [i for i in range(16) if ((i >> 2) & 1) == q2 and (i & 1) == q0]
        assert b.prob.item() == pytest.approx(np.trace(r[np.ix_(idx, idx)]).real)
        assert b.labels == (("Bob", 0), ("Bob", 1))
        assert b.record == (("Alice", (1, 0), b.outcome),)
        assert np.trace(np_(b.state)).real == pytest.approx(1.0)
    assert sum(b.prob.item() for b in branches) == pytest.approx(1.0)
    kept = net.measure(s, "Alice", [1, 0], ["01"], discard=False)[0]
    assert kept.n_qubits == 4
    disc = net.measure(s, "Alice", [1, 0], ["01"])[0]
    assert np.allclose(np_(qi.partial_trace(kept.matrix, [0, 2])), np_(disc.matrix), atol=1e-15)
    # The mixture of all branches has the reduced state of Bob unchanged.
    mixed = combine(branches)
    assert np.allclose(np_(mixed.matrix), np_(qi.partial_trace(rho, [0, 2])), atol=1e-14)


def test_no_signalling_alice_cannot_change_bobs_state():
    net = two_party_net()
    rho = qs.random_density_matrix(4, seed=6)
    s = LoccState(rho, [("Alice", 0), ("Bob", 0), ("Alice", 1), ("Bob", 1)])
    bob_before = np_(qi.reduced_density_matrix(rho, [1, 3]))
    c = Circuit(2, seed=3).universal_two_qubit(None, 0, 1)
    after = net.measure(net.apply(s, "Alice", c), "Alice", [0, 1])
    assert np.allclose(np_(combine(after).matrix), bob_before, atol=1e-13)


def test_teleportation_with_classical_communication():
    # Alice holds psi (local 0) and half of Phi+ (local 1); Bob holds the other half. Bell
    # measurement by Alice, then Bob applies X^m1 Z^m0: every branch has prob 1/4 and Bob holds psi.
    net = LoccNet()
    net.add_party("Alice", 2)
    net.add_party("Bob", 1)
    psi = qs.random_state(1, seed=12)
    s = net.initial_state((psi, [("Alice", 0)]), (qs.bell_state("phi+"), [("Alice", 1), ("Bob", 0)]))
    s = net.apply(s, "Alice", Circuit(2).cnot(0, 1).h(0))
    for b in net.measure(s, "Alice", [0, 1]):
        m0, m1 = int(b.outcome[0]), int(b.outcome[1])
        fix = Circuit(1)
        if m1:
            fix.x(0)
        if m0:
            fix.z(0)
        out = net.apply(b, "Bob", fix) if len(fix) else b
        assert out.prob.item() == pytest.approx(0.25)
        assert qi.fidelity(psi, out.state).item() == pytest.approx(1.0, abs=1e-12)


def test_gradients_flow_through_branch_probabilities_and_states():
    net = two_party_net()
    rho = qs.random_density_matrix(4, seed=8)
    s = LoccState(rho, [("Alice", 0), ("Bob", 0), ("Alice", 1), ("Bob", 1)])
    theta = sp.tensor([0.4, 1.1], dtype=sp.float64, requires_grad=True)

    def objective(th):
        ca = Circuit(2).ry(th[0], 0).cnot(0, 1).rx(th[1], 1)
        cb = Circuit(2).ry(th[0] * th[1], 1).cz(0, 1)
        t = net.apply(net.apply(s, "Alice", ca), "Bob", cb)
        b = [x for x in net.measure(net.measure(t, "Alice", [1]), "Bob", [1]) if x.outcome == "01"][0]
        return b.prob * 2 + qi.purity(b.state)

    (g,) = sp.grad(objective(theta), theta)
    for i in range(2):
        d = np.eye(2)[i] * 1e-6
        with sp.no_grad():
            fp = objective(sp.tensor(np_(theta) + d)).item()
            fm = objective(sp.tensor(np_(theta) - d)).item()
        assert g.numpy()[i] == pytest.approx((fp - fm) / 2e-6, rel=1e-6, abs=1e-9)
