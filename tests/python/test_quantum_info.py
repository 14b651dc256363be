"""sampan.quantum.states and .info against analytic values (Bell/GHZ/W entropies, Werner
negativity and its PPT threshold, commuting-state closed forms) and finite-difference gradients."""
import itertools
import math

import numpy as np
import pytest

import sampan as sp
from sampan.quantum import info as qi
from sampan.quantum import states as qs


def np_(t):
    return t.detach().numpy()


def fd_check(fn, x0, eps=1e-6, rtol=1e-6, atol=1e-8):
    """sp.grad of fn(x) (x a float64 scalar tensor) against a central finite difference."""
    x = sp.tensor(float(x0), dtype=sp.float64, requires_grad=True)
    (g,) = sp.grad(fn(x), x)
    with sp.no_grad():
        plus = fn(sp.tensor(x0 + eps, dtype=sp.float64)).item()
        minus = fn(sp.tensor(x0 - eps, dtype=sp.float64)).item()
    fd = (plus - minus) / (2 * eps)
    assert g.item() == pytest.approx(fd, rel=rtol, abs=atol)
    return g.item()


def c(x):
    """A real sp scalar as complex128."""
    return sp.complex(x, sp.zeros_like(x))


# ---- states --------------------------------------------------------------------------------------
def test_bell_states_are_orthonormal_and_match_definitions():
    kets = np.stack([np_(qs.bell_state(k)) for k in ("phi+", "phi-", "psi+", "psi-")])
    assert np.allclose(kets @ kets.conj().T, np.eye(4), atol=1e-15)
    r = 1 / math.sqrt(2)
    # index = q0 + 2 q1: |00> = 0, |11> = 3, |01> (q0=0, q1=1) = 2, |10> = 1
    assert np.allclose(kets[0], [r, 0, 0, r]) and np.allclose(kets[1], [r, 0, 0, -r])
    assert np.allclose(kets[2], [0, r, r, 0]) and np.allclose(kets[3], [0, -r, r, 0])
    assert np.allclose(np_(qs.max_entangled_state(2)), kets[0])
    with pytest.raises(ValueError, match="which must be one of"):
        qs.bell_state("phi0")


def test_ghz_w_basis():
    g = np_(qs.ghz_state(3))
    assert g[0] == pytest.approx(1 / math.sqrt(2)) and g[7] == pytest.approx(1 / math.sqrt(2))
    w = np_(qs.w_state(3))
    assert np.allclose(w[[1, 2, 4]], 1 / math.sqrt(3)) and abs(np.linalg.norm(w) - 1) < 1e-15
    assert np_(qs.computational_basis(3, 5))[5] == 1
    with pytest.raises(ValueError, match=r"index must be in \[0, 8\)"):
        qs.computational_basis(3, 8)


def test_entanglement_entropies_of_named_states():
    # Each Bell state has a maximally mixed marginal: 1 bit, purity 1/2.
    for k in ("phi+", "phi-", "psi+", "psi-"):
        red = qi.partial_trace(qs.bell_state(k), 1)
        assert qi.von_neumann_entropy(red).item() == pytest.approx(1.0, abs=1e-12)
        assert qi.purity(red).item() == pytest.approx(0.5, abs=1e-14)
    # GHZ_3: any one qubit is I/2 (1 bit); W_3: one qubit is diag(2/3, 1/3), entropy H2(1/3).
    assert qi.von_neumann_entropy(qi.reduced_density_matrix(qs.ghz_state(3), [1])).item() == pytest.approx(1.0)
    h = -(1 / 3) * math.log2(1 / 3) - (2 / 3) * math.log2(2 / 3)
    assert qi.von_neumann_entropy(qi.reduced_density_matrix(qs.w_state(3), [2])).item() == pytest.approx(h)
    # Pure state entropy 0; I/4 has 2 bits (and ln 4 nats).
    assert abs(qi.von_neumann_entropy(qs.random_state(3, seed=1)).item()) < 1e-10
    assert qi.von_neumann_entropy(qs.completely_mixed_state(2), base=math.e).item() == pytest.approx(math.log(4))


def test_mixed_families():
    p = 0.37
    phi = np.outer(np_(qs.bell_state()), np_(qs.bell_state()).conj())
    assert np.allclose(np_(qs.isotropic_state(p)), p * phi + (1 - p) * np.eye(4) / 4)
    e00 = np.diag([1.0, 0, 0, 0])
    assert np.allclose(np_(qs.s_state(p)), p * phi + (1 - p) * e00)
    psip = np.outer(np_(qs.bell_state("psi+")), np_(qs.bell_state("psi+")).conj())
    assert np.allclose(np_(qs.r_state(p)), p * psip + (1 - p) * np.diag([0, 0, 0, 1.0]))
    coeffs = [0.4, 0.3, 0.2, 0.1]   # Phi+, Psi+, Phi-, Psi-
    bd = np_(qs.bell_diagonal_state(coeffs))
    for k, name in enumerate(qs.BELL_DIAGONAL_ORDER):
        b = np_(qs.bell_state(name))
        assert (b.conj() @ bd @ b).real == pytest.approx(coeffs[k])
    with pytest.raises(ValueError, match="sum to 1"):
        qs.bell_diagonal_state([0.5, 0.5, 0.5, 0.0])
    with pytest.raises(ValueError, match=r"p must be a number in \[0, 1\]"):
        qs.s_state(1.5)
    # Fidelities with Phi+: isotropic (1+3p)/4, S-state (1+p)/2 (Paddle Quantum tutorials).
    assert qi.fidelity(qs.isotropic_state(p), qs.bell_state()).item() ** 2 == pytest.approx((1 + 3 * p) / 4)
    assert qi.fidelity(qs.s_state(p), qs.bell_state()).item() ** 2 == pytest.approx((1 + p) / 2)


def test_seeded_random_states_and_haar_unitaries():
    a, b = np_(qs.random_state(4, seed=7)), np_(qs.random_state(4, seed=7))
    assert np.array_equal(a, b) and abs(np.linalg.norm(a) - 1) < 1e-14
    assert not np.allclose(a, np_(qs.random_state(4, seed=8)))
    # Without a seed: the default generator, reproducible through sp.manual_seed.
    sp.manual_seed(3)
    first, second = np_(qs.random_state(2)), np_(qs.random_state(2))
    sp.manual_seed(3)
    assert np.array_equal(first, np_(qs.random_state(2))) and not np.allclose(first, second)
    u = np_(qs.haar_unitary(3, seed=3))
    assert np.abs(u.conj().T @ u - np.eye(8)).max() < 1e-13
    assert np.array_equal(u, np_(qs.haar_unitary(3, seed=3)))
    # Haar moments (d = 4): E[tr U] = 0 and E|tr U|^2 = 1 (Diaconis-Shahshahani); QR without the
    # phase fix biases the diagonal and fails the first one.
    g = sp.Generator(11)
    traces = np.array([np.trace(np_(qs.haar_unitary(2, seed=g))) for _ in range(600)])
    assert abs(traces.mean()) < 0.15
    assert np.mean(np.abs(traces) ** 2) == pytest.approx(1.0, abs=0.2)
    rho = np_(qs.random_density_matrix(3, rank=2, seed=1))
    assert np.trace(rho).real == pytest.approx(1) and np.linalg.matrix_rank(rho, tol=1e-10) == 2


# ---- partial trace / transpose --------------------------------------------------------------------
def explicit_partial_trace(rho, n, traced):
    kept = [q for q in range(n) if q not in traced]
    out = np.zeros((2 ** len(kept),) * 2, dtype=complex)
    for i, j in itertools.product(range(2 ** n), repeat=2):
        bi = [(i >> q) & 1 for q in range(n)]
        bj = [(j >> q) & 1 for q in range(n)]
        if any(bi[q] != bj[q] for q in traced):
            continue
        ki = sum(bi[q] << k for k, q in enumerate(kept))
        kj = sum(bj[q] << k for k, q in enumerate(kept))
        out[ki, kj] += rho[i, j]
    return out


def test_partial_trace_every_subset_against_explicit_sum():
    n = 3
    rho_t = qs.random_density_matrix(n, seed=5)
    rho = np_(rho_t)
    for r in range(1, n + 1):
        for traced in itertools.combinations(range(n), r):
            got = np_(qi.partial_trace(rho_t, list(traced)))
            assert np.allclose(got, explicit_partial_trace(rho, n, traced), atol=1e-14), traced
    with pytest.raises(ValueError, match="out of range"):
        qi.partial_trace(rho_t, [3])


def test_partial_transpose_against_explicit_indices():
    n = 3
    rho = np_(qs.random_density_matrix(n, seed=9))
    got = np_(qi.partial_transpose(sp.tensor(rho), [0, 2]))
    mask = 0b101
    for i, j in itertools.product(range(8), repeat=2):
        # swap the transposed bits between row and column index
        i2 = (i & ~mask) | (j & mask)
        j2 = (j & ~mask) | (i & mask)
        assert got[i, j] == pytest.approx(rho[i2, j2])


# ---- entanglement measures -------------------------------------------------------------------------
@pytest.mark.parametrize("p", [0.0, 0.2, 1 / 3, 0.5, 0.7, 1.0])
def test_werner_negativity_and_ppt_threshold(p):
    # PT eigenvalues of p Phi+ + (1-p) I/4: (1+p)/4 (x3) and (1-3p)/4 (Peres 1996).
    rho = qs.werner_state(p)
    assert qi.negativity(rho).item() == pytest.approx(max(0.0, (3 * p - 1) / 4), abs=1e-12)
    assert qi.log_negativity(rho).item() == pytest.approx(math.log2(max(1.0, (1 + 3 * p) / 2)), abs=1e-12)
    if p < 1 / 3 - 1e-9:
        assert qi.is_ppt(rho)
    elif p > 1 / 3 + 1e-9:
        assert not qi.is_ppt(rho)
    assert qi.is_ppt(qs.werner_state(0.333)) and not qi.is_ppt(qs.werner_state(0.334))


def test_bell_state_log_negativity_is_one_ebit():
    assert qi.log_negativity(qs.bell_state("psi-")).item() == pytest.approx(1.0)
    assert qi.negativity(qs.max_entangled_state(4)).item() == pytest.approx(1.5)   # (d - 1)/2, d = 4


def test_commuting_states_give_classical_closed_forms():
    p = np.array([0.5, 0.2, 0.2, 0.1])
    q = np.array([0.25, 0.25, 0.4, 0.1])
    rho, sigma = sp.tensor(np.diag(p).astype(complex)), sp.tensor(np.diag(q).astype(complex))
    assert qi.fidelity(rho, sigma).item() == pytest.approx(np.sum(np.sqrt(p * q)))   # Bhattacharyya
    assert qi.trace_distance(rho, sigma).item() == pytest.approx(0.5 * np.abs(p - q).sum())
    assert qi.relative_entropy(rho, sigma).item() == pytest.approx(np.sum(p * np.log2(p / q)))
    assert qi.relative_entropy(rho, rho).item() == pytest.approx(0.0, abs=1e-12)
    assert qi.relative_entropy(rho, sp.tensor(np.diag([1.0, 0, 0, 0]).astype(complex))).item() == math.inf


def test_pure_state_fidelity_and_trace_distance():
    a, b = qs.random_state(2, seed=1), qs.random_state(2, seed=2)
    ov = abs(np.vdot(np_(a), np_(b)))
    assert qi.fidelity(a, b).item() == pytest.approx(ov)
    assert qi.fidelity(qi.as_density_matrix(a), qi.as_density_matrix(b)).item() == pytest.approx(ov, abs=1e-7)
    assert qi.fidelity(a, qi.as_density_matrix(b)).item() == pytest.approx(ov)
    assert qi.trace_distance(a, b).item() == pytest.approx(math.sqrt(1 - ov ** 2))
    r = qs.random_density_matrix(2, seed=3)
    assert qi.fidelity(r, r).item() == pytest.approx(1.0, abs=1e-10)


def test_schmidt_decomposition():
    cc, _, _ = qi.schmidt_decompose(qs.bell_state("psi-"))
    assert np.allclose(np_(cc), [1 / math.sqrt(2)] * 2)
    psi = qs.random_state(4, seed=3)
    cc, a, b = qi.schmidt_decompose(psi, [0, 1])
    rebuilt = sum(np_(cc)[k] * np.kron(np_(b)[k], np_(a)[k]) for k in range(4))
    assert np.allclose(rebuilt, np_(psi), atol=1e-13)
    assert np.sum(np_(cc) ** 2) == pytest.approx(1.0)
    # Non-contiguous A = {1, 3}: the squared coefficients are the spectrum of rho_A.
    cc, _, _ = qi.schmidt_decompose(psi, [3, 1])
    spec = np.sort(np.linalg.eigvalsh(np_(qi.reduced_density_matrix(psi, [1, 3]))))[::-1]
    assert np.allclose(np_(cc) ** 2, spec, atol=1e-12)
    product = np.kron(np_(qs.random_state(1, seed=1)), np_(qs.random_state(1, seed=2)))
    cc, _, _ = qi.schmidt_decompose(sp.tensor(product))
    assert np.allclose(np_(cc), [1, 0], atol=1e-12)


# ---- gradients ---------------------------------------------------------------------------------------
def test_gradients_match_finite_differences():
    A = qs.random_density_matrix(2, seed=21)
    B = qs.random_density_matrix(2, seed=22)
    C = qs.random_density_matrix(2, seed=23)
    U = qs.haar_unitary(2, seed=24)

    def rho(x):   # a full-rank state whose spectrum and eigenvectors both move with x
        mix = A * c(1 - x) + B * c(x)
        return sp.matmul(sp.matmul(U, mix), sp.conj(sp.transpose(U, 0, 1))) * c(1 - 0.3 * x) + C * c(0.3 * x)

    for fn in (qi.von_neumann_entropy, qi.purity, lambda r: qi.fidelity(r, C), lambda r: qi.fidelity(C, r),
               lambda r: qi.trace_distance(r, C), lambda r: qi.relative_entropy(r, C),
               lambda r: qi.relative_entropy(C, r), lambda r: qi.partial_trace(r, [1])[0, 1].abs(),
               lambda r: qi.von_neumann_entropy(qi.partial_trace(r, 0))):
        fd_check(lambda x: fn(rho(x)), 0.4)
    # Werner negativity has slope 3/4 above p = 1/3; log-negativity 3/((1+3p) ln 2).
    assert fd_check(lambda p: qi.negativity(qs.werner_state(p)), 0.6) == pytest.approx(0.75)
    assert fd_check(lambda p: qi.log_negativity(qs.werner_state(p)), 0.6) == pytest.approx(3 / (2.8 * math.log(2)))
    # Schmidt coefficients of cos(x)|00> + sin(x)|11>: (cos x, sin x) for x < pi/4.
    ket = lambda x: sp.stack([c(sp.cos(x)), c(x * 0), c(x * 0), c(sp.sin(x))])
    assert fd_check(lambda x: qi.schmidt_decompose(ket(x))[0][0], 0.3) == pytest.approx(-math.sin(0.3))


def test_bad_inputs_are_clear_errors():
    with pytest.raises(ValueError, match="power of two"):
        qi.purity(sp.eye(3, dtype=sp.complex128))
    with pytest.raises(ValueError, match=r"differ in shape"):
        qi.trace_distance(qs.werner_state(0.5), qs.completely_mixed_state(3))
    with pytest.raises(ValueError, match="repeats a qubit"):
        qi.partial_transpose(qs.werner_state(0.5), [1, 1])
    with pytest.raises(ValueError, match="give transposed_qubits for an odd number"):
        qi.negativity(qs.completely_mixed_state(3))
    with pytest.raises(ValueError, match="proper non-empty subset"):
        qi.schmidt_decompose(qs.ghz_state(3), [0, 1, 2])
