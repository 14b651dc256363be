"""Quantum states as plain sampan tensors: kets (complex128 [2^n]) and density matrices
(complex128 [2^n, 2^n]).

Qubit convention (the package's): qubit q is bit q of the amplitude index, qubit 0 the least
significant, so index i = sum_q b_q 2^q. A two-qubit ket written ``|a b>`` below means qubit 0 = a
(party A) and qubit 1 = b (party B): ``|a b>`` is the basis vector of index a + 2 b. Bipartite
n-qubit states put party A on qubits [0, n/2) and party B on [n/2, n).

Bell states (global signs as in Paddle Quantum):
    ``Phi+- = (|00> +- |11>) / sqrt2``,  ``Psi+- = (|01> +- |10>) / sqrt2``   (``|01>``: qubit 0 = 0, qubit 1 = 1)

Mixed states whose weight ``p`` is an sp Tensor are differentiable in it.

Every constructor takes ``order='little'`` (default, the convention above) or ``order='big'``
(qubit 0 the most significant bit, qubit_order.py): the same state laid out in that order, e.g.
``w_state(3, order='big')[4]`` is the amplitude of qubit 0 = 1. For ``computational_basis`` the
index is read in the same order as the vector, so ``computational_basis(n, i, order=o)[i] == 1``.
"""
import math
import numbers

import numpy as np

import sampan as sp

from .qubit_order import DEFAULT_ORDER, check_order, with_order

_C128 = sp.complex128


# ---- helpers ------------------------------------------------------------------------------------
def _check_n(n_qubits, who, lo=1, hi=16):
    if not isinstance(n_qubits, numbers.Integral) or not lo <= n_qubits <= hi:
        raise ValueError(f"{who}: n_qubits must be an integer in [{lo}, {hi}], got {n_qubits!r}")
    return int(n_qubits)


def _weight(p, who):
    """p as a complex128 scalar tensor (differentiable when p is an sp Tensor) after checking
    that a numeric p lies in [0, 1]."""
    if isinstance(p, sp.Tensor):
        if p.numel() != 1:
            raise ValueError(f"{who}: p must be a scalar, got shape {tuple(p.shape)}")
        p = sp.reshape(p, [])
        return sp.complex(p.to(sp.float64), sp.zeros_like(p.to(sp.float64)))
    if not isinstance(p, numbers.Real) or not 0.0 <= float(p) <= 1.0:
        raise ValueError(f"{who}: p must be a number in [0, 1], got {p!r}")
    return sp.tensor(complex(float(p)), dtype=_C128)


def _basis_np(dim, index):
    v = np.zeros(dim, dtype=np.complex128)
    v[index] = 1.0
    return v


def density_matrix(psi):
    """``|psi><psi|`` for a ket psi [2^n] (differentiable)."""
    psi = sp.as_tensor(psi).to(_C128)
    if psi.dim() != 1:
        raise ValueError(f"density_matrix: expected a ket of shape [2^n], got shape {tuple(psi.shape)}")
    return sp.outer(psi, sp.conj(psi))


def _generator(seed):
    if isinstance(seed, sp.Generator):
        return seed
    if seed is None:
        return sp.default_generator
    return sp.Generator(int(seed))


# ---- pure states ------------------------------------------------------------------------------------
def computational_basis(n_qubits, index, order=DEFAULT_ORDER):
    """The basis ket ``|index>`` of n qubits (index = sum_q b_q 2^q; big order: sum_q b_q 2^(n-1-q)),
    as a vector in the same order."""
    check_order(order, "computational_basis")
    n = _check_n(n_qubits, "computational_basis", hi=30)
    if not isinstance(index, numbers.Integral) or not 0 <= index < 2 ** n:
        raise ValueError(f"computational_basis: index must be in [0, {2 ** n}), got {index!r}")
    return sp.tensor(_basis_np(2 ** n, int(index)))


def zero_state(n_qubits, order=DEFAULT_ORDER):
    """``|0...0>``."""
    return computational_basis(n_qubits, 0, order)


_BELL = {"phi+": (0, 3, 1.0), "phi-": (0, 3, -1.0), "psi+": (2, 1, 1.0), "psi-": (2, 1, -1.0)}


@with_order
def bell_state(which="phi+"):
    """One of the four two-qubit Bell kets: 'phi+', 'phi-', 'psi+', 'psi-' (see the module doc;
    ``Psi- = (|01> - |10>)/sqrt2`` is the vector (e_2 - e_1)/sqrt2 in index order)."""
    key = str(which).lower()
    if key not in _BELL:
        raise ValueError(f"bell_state: which must be one of {sorted(_BELL)}, got {which!r}")
    i, j, sign = _BELL[key]
    v = np.zeros(4, dtype=np.complex128)
    v[i] = 1 / math.sqrt(2)
    v[j] = sign / math.sqrt(2)
    return sp.tensor(v)


@with_order
def max_entangled_state(n_qubits=2):
    """``(1/sqrt D) sum_i |i>_A |i>_B`` with A = qubits [0, n/2), B = [n/2, n), D = 2^(n/2): the
    amplitude of index i + D i is 1/sqrt D. n = 2 gives Phi+ (Paddle Quantum's bell_state(n))."""
    n = _check_n(n_qubits, "max_entangled_state", lo=2)
    if n % 2:
        raise ValueError(f"max_entangled_state: n_qubits must be even, got {n}")
    d = 2 ** (n // 2)
    v = np.zeros(d * d, dtype=np.complex128)
    v[np.arange(d) * (d + 1)] = 1 / math.sqrt(d)
    return sp.tensor(v)


@with_order
def ghz_state(n_qubits):
    """``(|0...0> + |1...1>)/sqrt2``."""
    n = _check_n(n_qubits, "ghz_state", lo=2, hi=30)
    v = np.zeros(2 ** n, dtype=np.complex128)
    v[0] = v[-1] = 1 / math.sqrt(2)
    return sp.tensor(v)


@with_order
def w_state(n_qubits):
    """``(1/sqrt n) sum_q |0..1_q..0>``: one excitation on every qubit, amplitude of index 2^q."""
    n = _check_n(n_qubits, "w_state", lo=2, hi=30)
    v = np.zeros(2 ** n, dtype=np.complex128)
    v[2 ** np.arange(n)] = 1 / math.sqrt(n)
    return sp.tensor(v)


@with_order
def random_state(n_qubits, seed=None):
    """A Haar-random pure ket: a normalised complex Gaussian vector drawn from sp.Generator(seed)
    (seed: an int, an sp.Generator, or None for the default generator)."""
    n = _check_n(n_qubits, "random_state", hi=24)
    g = _generator(seed)
    re = sp.randn(2 ** n, dtype=sp.float64, generator=g).numpy()
    im = sp.randn(2 ** n, dtype=sp.float64, generator=g).numpy()
    v = re + 1j * im
    return sp.tensor(v / np.linalg.norm(v))


@with_order
def haar_unitary(n_qubits, seed=None):
    """A Haar-random unitary [2^n, 2^n]: Q of the QR decomposition of a complex Ginibre matrix,
    with each column multiplied by the phase of R's diagonal entry so that the distribution is
    exactly Haar (Mezzadri, Notices AMS 54, 592 (2007))."""
    n = _check_n(n_qubits, "haar_unitary", hi=10)
    d = 2 ** n
    g = _generator(seed)
    z = (sp.randn(d, d, dtype=sp.float64, generator=g).numpy()
         + 1j * sp.randn(d, d, dtype=sp.float64, generator=g).numpy()) / math.sqrt(2)
    q, r = np.linalg.qr(z)
    diag = np.diagonal(r)
    q = q * (diag / np.abs(diag))[None, :]
    return sp.tensor(np.ascontiguousarray(q))


@with_order
def random_density_matrix(n_qubits, rank=None, seed=None):
    """A random density matrix G G^+ / tr(G G^+) with G a complex Ginibre matrix [2^n, rank]
    (rank = 2^n by default: the Hilbert-Schmidt measure)."""
    n = _check_n(n_qubits, "random_density_matrix", hi=10)
    d = 2 ** n
    k = d if rank is None else int(rank)
    if not 1 <= k <= d:
        raise ValueError(f"random_density_matrix: rank must be in [1, {d}], got {rank!r}")
    g = _generator(seed)
    z = (sp.randn(d, k, dtype=sp.float64, generator=g).numpy()
         + 1j * sp.randn(d, k, dtype=sp.float64, generator=g).numpy())
    rho = z @ z.conj().T
    return sp.tensor(rho / np.trace(rho).real)


# ---- mixed two-qubit (bipartite) families ------------------------------------------------------------
@with_order
def completely_mixed_state(n_qubits):
    """I / 2^n."""
    n = _check_n(n_qubits, "completely_mixed_state")
    return sp.eye(2 ** n, dtype=_C128) * (1.0 / 2 ** n)


@with_order
def isotropic_state(p, n_qubits=2):
    """``p |Phi><Phi| + (1 - p) I / 2^n`` with Phi the maximally entangled state of
    ``max_entangled_state(n)``; for n = 2 the two-qubit Werner state in the Phi+ frame, of
    fidelity ``<Phi+|rho|Phi+> = (1 + 3p)/4``, PPT (not distillable) iff p <= 1/3."""
    w = _weight(p, "isotropic_state")
    phi = density_matrix(max_entangled_state(n_qubits))
    return w * phi + (1 - w) * completely_mixed_state(n_qubits)


@with_order
def werner_state(p):
    """The two-qubit Werner state ``p |Phi+><Phi+| + (1 - p) I/4`` (= isotropic_state(p, 2))."""
    return isotropic_state(p, 2)


@with_order
def s_state(p):
    """``p |Phi+><Phi+| + (1 - p) |00><00|`` (Paddle Quantum's s_state); fidelity (1 + p)/2."""
    w = _weight(p, "s_state")
    return w * density_matrix(bell_state("phi+")) + (1 - w) * density_matrix(computational_basis(2, 0))


@with_order
def r_state(p):
    """``p |Psi+><Psi+| + (1 - p) |11><11|`` (Paddle Quantum's r_state)."""
    w = _weight(p, "r_state")
    return w * density_matrix(bell_state("psi+")) + (1 - w) * density_matrix(computational_basis(2, 3))


BELL_DIAGONAL_ORDER = ("phi+", "psi+", "phi-", "psi-")


@with_order
def bell_diagonal_state(coefficients):
    """``sum_k c_k |B_k><B_k|`` with the four coefficients in the order **(Phi+, Psi+, Phi-, Psi-)**
    (Paddle Quantum's order; ``BELL_DIAGONAL_ORDER``). They must be >= 0 and sum to 1. A list of
    numbers or an sp Tensor [4] (differentiable)."""
    if isinstance(coefficients, sp.Tensor):
        c = sp.reshape(coefficients.to(sp.float64), [-1])
        if c.numel() != 4:
            raise ValueError(f"bell_diagonal_state: expected 4 coefficients, got {c.numel()}")
        vals = c.detach().numpy()
    else:
        vals = np.asarray(coefficients, dtype=np.float64).reshape(-1)
        if vals.size != 4:
            raise ValueError(f"bell_diagonal_state: expected 4 coefficients, got {vals.size}")
        c = sp.tensor(vals)
    if np.any(vals < -1e-12) or abs(vals.sum() - 1) > 1e-9:
        raise ValueError(f"bell_diagonal_state: coefficients (Phi+, Psi+, Phi-, Psi-) must be >= 0 and sum to 1, "
                         f"got {vals.tolist()} (sum {vals.sum():.12g})")
    projs = sp.stack([density_matrix(bell_state(k)) for k in BELL_DIAGONAL_ORDER])   # [4, 4, 4]
    cc = sp.complex(c, sp.zeros_like(c))
    return sp.einsum("k,kij->ij", cc, projs)
