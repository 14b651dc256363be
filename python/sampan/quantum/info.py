"""Quantum-information functions on density matrices given as sampan tensors (complex128
[2^n, 2^n]; a ket [2^n] is accepted wherever a state is and read as ``|psi><psi|``).

Qubit convention (the package's): qubit q is bit q of the index, qubit 0 the least significant.
Functions that keep some qubits (partial trace) return them renumbered 0, 1, ... in increasing
order of their old numbers.

``order`` (qubit_order.py) on the functions that name qubits (partial trace and transpose,
negativity, PPT, Schmidt decomposition): 'little' (default) or 'big', the layout of the matrix or
ket given and of the one returned; which qubits are traced or kept is by label either way. The
spectral functions do not depend on the order (both arguments in the same order).

Everything is composed of differentiable sampan ops (einsum, permute, eigh, svd ...), so
gradients flow through every function. Spectral functions use only eigenvalues where they can
(entropy, trace distance, negativity), whose gradients are well defined even for degenerate
spectra; ``fidelity`` and ``relative_entropy`` of two mixed states also use eigenvectors, whose
gradient needs a non-degenerate spectrum of the first (resp. second) argument.

Conventions: ``fidelity`` is Uhlmann's root fidelity tr sqrt(sqrt(rho) sigma sqrt(rho)), NOT
squared, as Paddle Quantum's ``state_fidelity``; for a pure ``sigma = |psi><psi|`` it equals
``sqrt(<psi|rho|psi>)``. Entropies are in bits by default (``base=2``).
"""
import math
import numbers

import numpy as np

import sampan as sp

from .qubit_order import DEFAULT_ORDER, convert

_C128 = sp.complex128
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_EIG_CUTOFF = 1e-14   # eigenvalues below this are zero (log, sqrt)


# ---- validation -------------------------------------------------------------------------------------
def _n_of(dim, who):
    n = int(round(math.log2(dim))) if dim > 0 else -1
    if n < 0 or 2 ** n != dim:
        raise ValueError(f"{who}: the dimension must be a power of two (2^n for n qubits), got {dim}")
    return n


def as_density_matrix(state, who="as_density_matrix", order=DEFAULT_ORDER):
    """A complex128 density-matrix tensor in little order from a ket [2^n] or a matrix [2^n, 2^n]
    (tensor or array-like) given in ``order``, or from an object with a ``to_tensor()`` method (a
    DensityMatrix, which knows its own order); differentiable for tensors."""
    if hasattr(state, "to_tensor") and not isinstance(state, sp.Tensor):
        state, order = state.to_tensor(), DEFAULT_ORDER
    t = sp.as_tensor(state)
    if t.dtype != _C128:
        t = t.to(_C128)
    if t.dim() == 1:
        _n_of(t.shape[0], who)
        t = convert(t, order, who)
        return sp.outer(t, sp.conj(t))
    if t.dim() != 2 or t.shape[0] != t.shape[1]:
        raise ValueError(f"{who}: expected a ket [2^n] or a density matrix [2^n, 2^n], got shape {tuple(t.shape)}")
    _n_of(t.shape[0], who)
    return convert(t, order, who)


def _qubit_list(qubits, n, who, name="qubits"):
    if isinstance(qubits, numbers.Integral):
        qubits = [qubits]
    qs = [int(q) for q in qubits]
    for q in qs:
        if not 0 <= q < n:
            raise ValueError(f"{who}: {name} contains {q}, out of range for {n} qubits (valid 0 to {n - 1})")
    if len(set(qs)) != len(qs):
        raise ValueError(f"{who}: {name} {qs} repeats a qubit")
    return qs


def _real(x):
    return sp.real(x) if x.dtype in (sp.complex64, sp.complex128) else x


# ---- partial trace and transpose -------------------------------------------------------------------
def partial_trace(rho, traced_qubits, order=DEFAULT_ORDER):
    """Traces out ``traced_qubits`` (an int or a list) of the n-qubit density matrix ``rho``; the
    remaining qubits keep their order and are renumbered 0, 1, ... (rho and the result in ``order``)."""
    return convert(_partial_trace(as_density_matrix(rho, "partial_trace", order), traced_qubits), order,
                   "partial_trace")


def _partial_trace(rho, traced_qubits):
    """partial_trace of a little-order density matrix."""
    n = _n_of(rho.shape[0], "partial_trace")
    traced = set(_qubit_list(traced_qubits, n, "partial_trace", "traced_qubits"))
    if len(traced) == n:
        return sp.reshape(sp.einsum("ii->", rho), [1, 1])
    if 2 * n > len(_LETTERS):
        raise ValueError(f"partial_trace: at most {len(_LETTERS) // 2} qubits, got {n}")
    # Reshaped to [2]*2n, row axis k is qubit n-1-k and column axis n+k is qubit n-1-k.
    rows = [_LETTERS[k] for k in range(n)]
    cols = [(_LETTERS[n - 1 - q] if q in traced else _LETTERS[n + k]) for k, q in
            ((k, n - 1 - k) for k in range(n))]
    kept_rows = "".join(rows[k] for k in range(n) if (n - 1 - k) not in traced)
    kept_cols = "".join(cols[k] for k in range(n) if (n - 1 - k) not in traced)
    out = sp.einsum("".join(rows) + "".join(cols) + "->" + kept_rows + kept_cols, sp.reshape(rho, [2] * (2 * n)))
    d = 2 ** (n - len(traced))
    return sp.reshape(out, [d, d])


def reduced_density_matrix(rho, kept_qubits, order=DEFAULT_ORDER):
    """The state of ``kept_qubits`` (renumbered in increasing order): the partial trace over the rest
    (rho and the result in ``order``)."""
    rho = as_density_matrix(rho, "reduced_density_matrix", order)
    n = _n_of(rho.shape[0], "reduced_density_matrix")
    kept = set(_qubit_list(kept_qubits, n, "reduced_density_matrix", "kept_qubits"))
    traced = [q for q in range(n) if q not in kept]
    return convert(_partial_trace(rho, traced) if traced else rho, order, "reduced_density_matrix")


def partial_transpose(rho, transposed_qubits, order=DEFAULT_ORDER):
    """The partial transpose of ``rho`` on ``transposed_qubits``: <i_T j_R|rho^T|k_T l_R> =
    <k_T j_R|rho|i_T l_R> (rho and the result in ``order``)."""
    return convert(_partial_transpose(as_density_matrix(rho, "partial_transpose", order), transposed_qubits),
                   order, "partial_transpose")


def _partial_transpose(rho, transposed_qubits):
    """partial_transpose of a little-order density matrix."""
    n = _n_of(rho.shape[0], "partial_transpose")
    qs = _qubit_list(transposed_qubits, n, "partial_transpose", "transposed_qubits")
    perm = list(range(2 * n))
    for q in qs:   # swap the row and column axes of qubit q
        perm[n - 1 - q], perm[2 * n - 1 - q] = perm[2 * n - 1 - q], perm[n - 1 - q]
    t = sp.permute(sp.reshape(rho, [2] * (2 * n)), perm)
    return sp.reshape(t, [2 ** n, 2 ** n])


# ---- spectra ------------------------------------------------------------------------------------------
def _eigvalsh(m):
    w, _ = sp.eigh(m)
    return w


def _safe(w, fn, zero_value=0.0):
    """fn(w) where w > cutoff, zero_value elsewhere, with finite gradients everywhere (the
    double-where trick: fn never sees a value at or below the cutoff)."""
    mask = w > _EIG_CUTOFF
    return sp.where(mask, fn(sp.where(mask, w, sp.ones_like(w))), sp.full_like(w, zero_value))


def purity(rho):
    """tr(rho^2) (real float64 scalar)."""
    rho = as_density_matrix(rho, "purity")
    return _real(sp.einsum("ij,ji->", rho, rho))


def von_neumann_entropy(rho, base=2):
    """S(rho) = -tr rho log rho = -sum_k l_k log l_k over the eigenvalues (bits for base 2)."""
    rho = as_density_matrix(rho, "von_neumann_entropy")
    w = _eigvalsh(rho)
    return -(w * _safe(w, sp.log)).sum() / math.log(base)


def _matrix_function(m, fn, who, zero_value=0.0):
    w, v = sp.eigh(m)
    fw = sp.complex(_safe(w, fn, zero_value), sp.zeros_like(w))
    return sp.matmul(v * sp.unsqueeze(fw, 0), sp.conj(sp.transpose(v, 0, 1))), w, v


def relative_entropy(rho, sigma, base=2):
    """S(rho || sigma) = tr rho (log rho - log sigma) (bits for base 2); +inf when the support of
    rho is not inside that of sigma."""
    rho = as_density_matrix(rho, "relative_entropy")
    sigma = as_density_matrix(sigma, "relative_entropy")
    if rho.shape != sigma.shape:
        raise ValueError(f"relative_entropy: rho {tuple(rho.shape)} and sigma {tuple(sigma.shape)} differ in shape")
    w_s, v_s = sp.eigh(sigma)
    # Support check: weight of rho on sigma's null space.
    ws, vs, r = w_s.detach().numpy(), v_s.detach().numpy(), rho.detach().numpy()
    null = vs[:, ws <= _EIG_CUTOFF]
    if null.size and np.real(np.trace(null.conj().T @ r @ null)) > 1e-10:
        return sp.tensor(math.inf, dtype=sp.float64)
    log_sigma_w = _safe(w_s, sp.log)
    # tr rho log sigma = sum_k log(s_k) <v_k|rho|v_k>
    diag = _real(sp.einsum("ik,ij,jk->k", sp.conj(v_s), rho, v_s))
    cross = (diag * log_sigma_w).sum()
    return (-von_neumann_entropy(rho, base=math.e) - cross) / math.log(base)


def fidelity(rho, sigma):
    """Uhlmann's root fidelity F(rho, sigma) = tr sqrt(sqrt(rho) sigma sqrt(rho)), in [0, 1], NOT
    squared (Paddle Quantum's ``state_fidelity``). For a ket psi (either argument),
    ``F = sqrt(<psi|rho|psi>)``; for two kets ``|<psi|phi>|``. The distillation fidelity ``<Phi+|rho|Phi+>``
    is the square of this."""
    a = sp.as_tensor(rho)
    b = sp.as_tensor(sigma)
    if a.dim() == 1 and b.dim() == 1:
        if a.shape != b.shape:
            raise ValueError(f"fidelity: kets of shapes {tuple(a.shape)} and {tuple(b.shape)} differ")
        return sp.abs(sp.vdot(a.to(_C128), b.to(_C128)))
    if a.dim() == 1 or b.dim() == 1:
        psi, m = (a, b) if a.dim() == 1 else (b, a)
        m = as_density_matrix(m, "fidelity")
        psi = psi.to(_C128)
        if psi.shape[0] != m.shape[0]:
            raise ValueError(f"fidelity: ket of dimension {psi.shape[0]} and matrix of dimension {m.shape[0]}")
        val = _real(sp.einsum("i,ij,j->", sp.conj(psi), m, psi))
        return sp.sqrt(sp.clamp(val, 0.0, math.inf))
    a = as_density_matrix(a, "fidelity")
    b = as_density_matrix(b, "fidelity")
    if a.shape != b.shape:
        raise ValueError(f"fidelity: rho {tuple(a.shape)} and sigma {tuple(b.shape)} differ in shape")
    sqrt_a, _, _ = _matrix_function(a, sp.sqrt, "fidelity")
    w = _eigvalsh(sp.matmul(sp.matmul(sqrt_a, b), sqrt_a))
    return _safe(w, sp.sqrt).sum()


def trace_distance(rho, sigma):
    """D(rho, sigma) ``= (1/2) ||rho - sigma||_1 = (1/2) sum |eigenvalues of rho - sigma|``."""
    a = as_density_matrix(rho, "trace_distance")
    b = as_density_matrix(sigma, "trace_distance")
    if a.shape != b.shape:
        raise ValueError(f"trace_distance: rho {tuple(a.shape)} and sigma {tuple(b.shape)} differ in shape")
    return sp.abs(_eigvalsh(a - b)).sum() * 0.5


def _default_b(n, qubits, who):
    if qubits is None:
        if n % 2:
            raise ValueError(f"{who}: give transposed_qubits for an odd number of qubits ({n})")
        return list(range(n // 2, n))
    return qubits


def trace_norm_partial_transpose(rho, transposed_qubits=None, order=DEFAULT_ORDER):
    """||rho^{T_B}||_1 with B = transposed_qubits (default: the upper half of the qubits)."""
    rho = as_density_matrix(rho, "negativity", order)
    n = _n_of(rho.shape[0], "negativity")
    pt = _partial_transpose(rho, _default_b(n, transposed_qubits, "negativity"))
    return sp.abs(_eigvalsh(pt)).sum()


def negativity(rho, transposed_qubits=None, order=DEFAULT_ORDER):
    """N(rho) = (||rho^{T_B}||_1 - 1)/2, the sum of ``|negative eigenvalues|`` of the partial transpose
    (Vidal-Werner 2002). B = transposed_qubits, default the upper half [n/2, n). Werner state
    p Phi+ + (1-p) I/4: max(0, (3p - 1)/4)."""
    return (trace_norm_partial_transpose(rho, transposed_qubits, order) - 1) * 0.5


def log_negativity(rho, transposed_qubits=None, order=DEFAULT_ORDER):
    """E_N(rho) = log2 ||rho^{T_B}||_1 (ebits)."""
    return sp.log(trace_norm_partial_transpose(rho, transposed_qubits, order)) / math.log(2)


def is_ppt(rho, transposed_qubits=None, tol=1e-10, order=DEFAULT_ORDER):
    """True when the partial transpose on ``transposed_qubits`` (default upper half) has no
    eigenvalue below -tol (Peres' criterion; for 2 qubits PPT <=> separable, Horodecki 1996)."""
    rho = as_density_matrix(rho, "is_ppt", order)
    n = _n_of(rho.shape[0], "is_ppt")
    pt = _partial_transpose(rho, _default_b(n, transposed_qubits, "is_ppt")).detach().numpy()
    return bool(np.linalg.eigvalsh(pt).min() >= -tol)


def schmidt_decompose(psi, qubits_a=None, order=DEFAULT_ORDER):
    """Schmidt decomposition of a ket psi [2^n] across A = ``qubits_a`` (default the lower half
    [0, n/2)) and B = the rest: ``psi = sum_k c_k |a_k>_A |b_k>_B`` with c_k >= 0 descending.

    Returns (c [K] float64, a ``[K, 2^|A|]``, b ``[K, 2^|B|]``), ``K = min(2^|A|, 2^|B|)``. The local indices
    number each party's qubits in increasing order (its lowest qubit is bit 0). For A = [0, k)
    the global ket is sum_k c_k kron(b_k, a_k) in NumPy's kron order (index = a + 2^k b).
    Differentiable (through svd) where the coefficients are distinct. ``order='big'``: psi in big
    order, and each party's local index has its lowest qubit as the most significant bit."""
    t = sp.as_tensor(psi).to(_C128)
    if t.dim() != 1:
        raise ValueError(f"schmidt_decompose: expected a ket [2^n], got shape {tuple(t.shape)}")
    n = _n_of(t.shape[0], "schmidt_decompose")
    t = convert(t, order, "schmidt_decompose")
    if n < 2:
        raise ValueError("schmidt_decompose: needs at least 2 qubits")
    qa = list(range(n // 2)) if qubits_a is None else _qubit_list(qubits_a, n, "schmidt_decompose", "qubits_a")
    if not 0 < len(qa) < n:
        raise ValueError(f"schmidt_decompose: qubits_a must be a proper non-empty subset, got {qa}")
    qb = [q for q in range(n) if q not in qa]
    # Axis n-1-q holds qubit q; order each party's axes from its highest qubit down so that the
    # reshaped index has the party's lowest qubit as bit 0.
    axes_a = [n - 1 - q for q in sorted(qa, reverse=True)]
    axes_b = [n - 1 - q for q in sorted(qb, reverse=True)]
    m = sp.reshape(sp.permute(sp.reshape(t, [2] * n), axes_a + axes_b), [2 ** len(qa), 2 ** len(qb)])
    u, s, vh = sp.svd(m)
    local = lambda rows: sp.stack([convert(rows[k], order, "schmidt_decompose") for k in range(rows.shape[0])])
    return s, local(sp.transpose(u, 0, 1)), local(vh)
