"""Quantum machine learning on sampan circuits: VQE, QAOA for MaxCut, quantum-kernel classification.

All three train or evaluate through the C++ ops (``quantum::expectation`` with its adjoint
gradient, ``quantum::statevector``); gradients reach ``sp.optim`` optimizers like any parameter.

Bit convention (as everywhere in sampan.quantum): qubit q is bit q of the amplitude index, so a
MaxCut assignment ``z`` read from index i puts node q on side (i >> q) & 1.
"""
import itertools
import math
import numbers
from dataclasses import dataclass, field

import numpy as np

import sampan as sp

from .circuit import Circuit
from .hamiltonian import Hamiltonian


# ---- VQE ------------------------------------------------------------------------------------------
@dataclass
class VQEResult:
    energy: float                 # <H> at the final parameters
    history: list                 # <H> before each optimizer step
    parameters: np.ndarray        # the final trainable angles (concatenated)


def vqe(hamiltonian, circuit, steps=200, lr=0.1, parameters=None, tol=None):
    """Minimises <psi(theta)|H|psi(theta)> over the circuit's angles with ``sp.optim.Adam``; the
    gradient is the adjoint-method vjp of ``quantum::expectation``. ``parameters``: the tensors to
    train (default: ``[circuit.parameters]``). ``tol``: stop once ``|E_k - E_{k-1}| < tol``."""
    if not isinstance(hamiltonian, Hamiltonian):
        hamiltonian = Hamiltonian(hamiltonian)
    if not isinstance(steps, numbers.Integral) or steps < 0:
        raise ValueError(f"vqe: steps must be a non-negative integer, got {steps!r}")
    params = [circuit.parameters] if parameters is None else list(parameters)
    opt = sp.optim.Adam(params, lr=lr)
    history = []
    for _ in range(steps):
        opt.zero_grad()
        e = circuit.expectation(hamiltonian)
        e.backward()
        opt.step()
        history.append(e.item())
        if tol is not None and len(history) > 1 and abs(history[-1] - history[-2]) < tol:
            break
    with sp.no_grad():
        energy = circuit.expectation(hamiltonian).item()
    flat = np.concatenate([p.detach().numpy().reshape(-1) for p in params]) if params else np.zeros(0)
    return VQEResult(energy, history, flat)


# ---- QAOA for MaxCut ------------------------------------------------------------------------------
def _check_graph(n_nodes, edges, weights, who):
    if not isinstance(n_nodes, numbers.Integral) or n_nodes < 1:
        raise ValueError(f"{who}: n_nodes must be a positive integer, got {n_nodes!r}")
    edges = [tuple(int(v) for v in e) for e in edges]
    for k, e in enumerate(edges):
        if len(e) != 2 or e[0] == e[1] or not all(0 <= v < n_nodes for v in e):
            raise ValueError(f"{who}: edge {k} = {e} must join two different nodes in [0, {n_nodes})")
    w = np.ones(len(edges)) if weights is None else np.asarray(weights, dtype=np.float64).reshape(-1)
    if w.shape[0] != len(edges):
        raise ValueError(f"{who}: {len(edges)} edges but {w.shape[0]} weights")
    return edges, w


def cut_value(bits, edges, weights=None):
    """Total weight of the edges whose ends lie on different sides; ``bits``: an int (bit q =
    side of node q) or a sequence of 0/1 per node."""
    if isinstance(bits, numbers.Integral):
        side = lambda q: (int(bits) >> q) & 1
    else:
        side = lambda q: int(bits[q])
    w = [1.0] * len(edges) if weights is None else weights
    return float(sum(wk for (u, v), wk in zip(edges, w) if side(u) != side(v)))


def cut_values(n_nodes, edges, weights=None):
    """The cut value of every assignment 0 .. 2^n - 1 (NumPy [2^n])."""
    edges, w = _check_graph(n_nodes, edges, weights, "cut_values")
    idx = np.arange(2 ** n_nodes)
    total = np.zeros(2 ** n_nodes)
    for (u, v), wk in zip(edges, w):
        total += wk * (((idx >> u) ^ (idx >> v)) & 1)
    return total


def brute_force_maxcut(n_nodes, edges, weights=None):
    """(max cut value, [assignments reaching it]) by enumerating all 2^n assignments one by one
    (plain Python, independent of ``cut_values``)."""
    edges, w = _check_graph(n_nodes, edges, weights, "brute_force_maxcut")
    best, argbest = -math.inf, []
    for bits in itertools.product((0, 1), repeat=n_nodes):
        value = cut_value(bits[::-1], edges, w)  # bits[::-1][q] is node q
        z = int("".join(map(str, bits)), 2)
        if value > best + 1e-12:
            best, argbest = value, [z]
        elif abs(value - best) <= 1e-12:
            argbest.append(z)
    return best, argbest


def maxcut_hamiltonian(n_nodes, edges, weights=None):
    """H = -C with the cut operator C = sum_{(u,v)} w_uv (1 - Z_u Z_v) / 2, so that minimising
    <H> maximises the expected cut."""
    edges, w = _check_graph(n_nodes, edges, weights, "maxcut_hamiltonian")
    terms = [(-0.5 * float(w.sum()), "I")] + [(0.5 * float(wk), f"Z{u} Z{v}") for (u, v), wk in zip(edges, w)]
    return Hamiltonian(terms)


def qaoa_circuit(n_nodes, edges, gamma, beta, weights=None):
    """H on every qubit, then per layer l: RZZ(gamma_l w_uv) = exp(-i gamma_l w_uv Z_u Z_v / 2) on
    every edge and RX(beta_l) on every node (Farhi, Goldstone, Gutmann, arXiv:1411.4028, with the
    cost's constant dropped). gamma, beta: sp Tensors [p] (gradients flow into them) or numbers."""
    edges, w = _check_graph(n_nodes, edges, weights, "qaoa_circuit")
    to_tensor = lambda a: a if isinstance(a, sp.Tensor) else sp.tensor(np.asarray(a, dtype=np.float64).reshape(-1))
    gamma, beta = to_tensor(gamma), to_tensor(beta)
    if gamma.numel() != beta.numel():
        raise ValueError(f"qaoa_circuit: gamma has {gamma.numel()} layers but beta has {beta.numel()}")
    p = gamma.numel()
    c = Circuit(n_nodes).superposition_layer()
    if not edges:
        return c
    # Angles of layer l: gamma_l * w (one per edge), as a [p, E] tensor so gradients reach gamma.
    angles = sp.reshape(gamma.to(sp.float64), [p, 1]) * sp.tensor(w.reshape(1, -1))
    for layer in range(p):
        c.rzz(angles[layer], edges)
        c.rx(beta[layer], "full")
    return c


@dataclass
class QAOAResult:
    max_cut: float                # brute force
    expected_cut: float           # <C> at the trained angles
    ratio: float                  # expected_cut / max_cut
    most_probable: int            # assignment with the largest probability
    most_probable_cut: float
    best_sampled: int             # the best cut among `shots` seeded samples
    best_sampled_cut: float
    probabilities: np.ndarray     # [2^n]
    gamma: np.ndarray
    beta: np.ndarray
    history: list = field(default_factory=list)   # <C> per step of the best restart


def interp_angles(angles):
    """INTERP initialisation for depth p + 1 from optimal depth-p angles (Zhou, Wang, Choi,
    Pichler, Lukin, Phys. Rev. X 10, 021067 (2020), Eq. B1): a'_i = (i - 1)/p a_{i-1} +
    (p - i + 1)/p a_i for i = 1 .. p + 1, with a_0 = a_{p+1} = 0."""
    a = np.asarray(angles, dtype=np.float64).reshape(-1)
    p = a.size
    if p == 0:
        raise ValueError("interp_angles: needs at least one angle")
    padded = np.concatenate([[0.0], a, [0.0]])
    i = np.arange(1, p + 2)
    return (i - 1) / p * padded[i - 1] + (p - i + 1) / p * padded[i]


def qaoa_maxcut(n_nodes, edges, weights=None, depth=3, steps=150, lr=0.05, restarts=4, shots=256, seed=0,
                initial=None):
    """QAOA of the given depth for MaxCut, trained with Adam from `restarts` seeded random starts
    (gamma, beta uniform in [0, pi/2)); the restart with the largest <C> is kept and checked
    against brute force. ``initial``: (gamma, beta) of `depth` angles each, used as the first
    start (e.g. ``interp_angles`` of a depth - 1 result) in place of a random one."""
    edges, w = _check_graph(n_nodes, edges, weights, "qaoa_maxcut")
    ham = maxcut_hamiltonian(n_nodes, edges, w)
    rng = np.random.default_rng(seed)
    if initial is not None:
        initial = [np.asarray(a, dtype=np.float64).reshape(-1) for a in initial]
        if len(initial) != 2 or any(a.size != depth for a in initial):
            raise ValueError(f"qaoa_maxcut: initial must be (gamma, beta) with {depth} angles each, got sizes "
                             f"{[a.size for a in initial]}")
    best = None
    for restart in range(restarts):
        g0, b0 = rng.uniform(0, math.pi / 2, depth), rng.uniform(0, math.pi / 2, depth)
        if restart == 0 and initial is not None:
            g0, b0 = initial
        gamma = sp.tensor(g0.copy(), requires_grad=True)
        beta = sp.tensor(b0.copy(), requires_grad=True)
        opt = sp.optim.Adam([gamma, beta], lr=lr)
        history = []
        for _ in range(steps):
            opt.zero_grad()
            e = qaoa_circuit(n_nodes, edges, gamma, beta, w).expectation(ham)
            e.backward()
            opt.step()
            history.append(-e.item())
        with sp.no_grad():
            expected = -qaoa_circuit(n_nodes, edges, gamma, beta, w).expectation(ham).item()
        if best is None or expected > best[0]:
            best = (expected, gamma.detach().numpy().copy(), beta.detach().numpy().copy(), history)
    expected, g, b, history = best
    probs = np.abs(qaoa_circuit(n_nodes, edges, g, b, w).state().numpy()) ** 2
    cuts = cut_values(n_nodes, edges, w)
    max_cut, _ = brute_force_maxcut(n_nodes, edges, w)
    top = int(np.argmax(probs))
    samples = rng.choice(probs.size, size=shots, p=probs / probs.sum())
    sampled = int(samples[np.argmax(cuts[samples])])
    return QAOAResult(max_cut, expected, expected / max_cut, top, float(cuts[top]), sampled,
                      float(cuts[sampled]), probs, g, b, history)


# ---- quantum kernels ------------------------------------------------------------------------------
def zz_feature_map(x, reps=2, scale=1.0):
    """Havlicek et al., Nature 567, 209 (2019) feature map on d = len(x) qubits, `reps` times:
    H on every qubit, RZ(2 phi_i) on qubit i, RZZ(2 phi_ij) on every pair i < j, i.e.
    exp(-i sum_S phi_S Z_S) with phi_i = u_i, phi_ij = (pi - u_i)(pi - u_j) for the scaled
    features u = s x (`scale` s is the kernel bandwidth)."""
    x = scale * np.asarray(x, dtype=np.float64).reshape(-1)
    d = x.size
    c = Circuit(d)
    for _ in range(reps):
        c.h("full")
        for i in range(d):
            c.rz(2 * float(x[i]), i)
        for i in range(d):
            for j in range(i + 1, d):
                c.rzz(2 * (math.pi - x[i]) * (math.pi - x[j]), i, j)
    return c


def angle_feature_map(x, reps=2, scale=1.0):
    """Data re-uploading map on d = len(x) qubits, `reps` times: RY(s x_i) then RZ(s x_i) on
    qubit i, then CNOT 'cycle' (linear for d = 2) so that the features entangle."""
    x = np.asarray(x, dtype=np.float64).reshape(-1)
    d = x.size
    c = Circuit(d)
    for _ in range(reps):
        for i in range(d):
            c.ry(scale * float(x[i]), i).rz(scale * float(x[i]), i)
        if d > 1:
            c.cnot("cycle")
    return c


def feature_states(X, feature_map=zz_feature_map, **kwargs):
    """[N, 2^d] complex128 NumPy array of feature_map(x)|0> for each row of X."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"feature_states: X must be 2-D [samples, features], got shape {X.shape}")
    return np.stack([feature_map(x, **kwargs).state().numpy() for x in X])


def fidelity_kernel(states_a, states_b=None):
    """``K_ij = |<phi(x_i)|phi(y_j)>|^2`` from feature states (rows): the state-fidelity kernel."""
    states_b = states_a if states_b is None else states_b
    return np.abs(np.conj(states_a) @ np.asarray(states_b).T) ** 2


class QuantumKernelClassifier:
    """Binary kernel ridge classifier on the fidelity kernel: alpha = (K + lam I)^-1 y with
    y = +-1, predict sign(K(x, train) alpha). Labels may be any two values."""

    def __init__(self, feature_map=zz_feature_map, regularization=1e-3, **map_kwargs):
        if regularization <= 0:
            raise ValueError(f"QuantumKernelClassifier: regularization must be > 0, got {regularization}")
        self.feature_map = feature_map
        self.regularization = float(regularization)
        self.map_kwargs = map_kwargs

    def fit(self, X, y):
        y = np.asarray(y).reshape(-1)
        self.classes_ = np.unique(y)
        if self.classes_.size != 2:
            raise ValueError(f"QuantumKernelClassifier: expected two classes, got {self.classes_.size}: {self.classes_}")
        if len(y) != len(X):
            raise ValueError(f"QuantumKernelClassifier: {len(X)} samples but {len(y)} labels")
        self.train_states_ = feature_states(X, self.feature_map, **self.map_kwargs)
        K = fidelity_kernel(self.train_states_)
        target = np.where(y == self.classes_[1], 1.0, -1.0)
        self.alpha_ = np.linalg.solve(K + self.regularization * np.eye(len(y)), target)
        return self

    def decision_function(self, X):
        states = feature_states(X, self.feature_map, **self.map_kwargs)
        return fidelity_kernel(states, self.train_states_) @ self.alpha_

    def predict(self, X):
        return np.where(self.decision_function(X) >= 0, self.classes_[1], self.classes_[0])

    def score(self, X, y):
        return float(np.mean(self.predict(X) == np.asarray(y).reshape(-1)))


def make_circles(n_samples, noise=0.1, factor=0.5, seed=0):
    """Two concentric noisy circles (radius 1, label 0, and `factor`, label 1), seeded: (X [N, 2], y [N])."""
    rng = np.random.default_rng(seed)
    n_out = n_samples // 2
    t = rng.uniform(0, 2 * math.pi, n_samples)
    r = np.where(np.arange(n_samples) < n_out, 1.0, factor)
    X = np.stack([r * np.cos(t), r * np.sin(t)], axis=1) + rng.normal(0, noise, (n_samples, 2))
    y = (np.arange(n_samples) >= n_out).astype(np.int64)
    perm = rng.permutation(n_samples)
    return X[perm], y[perm]


def make_moons(n_samples, noise=0.1, seed=0):
    """Two interleaving half circles (label 0: upper, 1: lower shifted), seeded: (X [N, 2], y [N])."""
    rng = np.random.default_rng(seed)
    n_out = n_samples // 2
    t_out = rng.uniform(0, math.pi, n_out)
    t_in = rng.uniform(0, math.pi, n_samples - n_out)
    upper = np.stack([np.cos(t_out), np.sin(t_out)], axis=1)
    lower = np.stack([1 - np.cos(t_in), 0.5 - np.sin(t_in)], axis=1)
    X = np.concatenate([upper, lower]) + rng.normal(0, noise, (n_samples, 2))
    y = np.concatenate([np.zeros(n_out, np.int64), np.ones(n_samples - n_out, np.int64)])
    perm = rng.permutation(n_samples)
    return X[perm], y[perm]
