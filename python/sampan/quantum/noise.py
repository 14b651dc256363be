"""Noise channels, density matrices and measurement for ``Circuit`` (mixed into it).

Channel methods follow Paddle Quantum's names and conventions (see
quantum/include/sampan/quantum/channels.h for every formula). A channel parameter is a number
(fixed) or an sp Tensor (differentiated like an angle). Channels act on density matrices only: a
circuit that holds one simulates with ``quantum::density_matrix`` / ``dm_expectation``, and asking
for a state vector of it raises ValueError.

Measurement conventions: an outcome of the measured qubits ``qubits = [q_0, ..., q_{m-1}]`` is the
integer b = sum_j bit(q_j) 2^j, written as the bitstring ``format(b, '0mb')`` whose LAST character
is q_0 (Qiskit's order; with the default qubits = all, the bitstring reads q_{n-1} ... q_0).
"""
import numbers

import numpy as np

import sampan as sp

from .hamiltonian import Hamiltonian

# Must match ChannelOpcode in quantum/include/sampan/quantum/circuit.h.
CHANNEL_OPCODES = {
    "bit_flip": 100, "phase_flip": 101, "bit_phase_flip": 102, "amplitude_damping": 103,
    "generalized_amplitude_damping": 104, "phase_damping": 105, "depolarizing": 106, "pauli_channel": 107,
    "reset_channel": 108, "thermal_relaxation": 109, "generalized_depolarizing": 110,
    "mixed_unitary_channel": 111, "kraus_repr": 112, "choi_repr": 113,
}
_MATRIX_CHANNELS = ("mixed_unitary_channel", "kraus_repr", "choi_repr")


def encode_channel(name, qubits, refs, slot):
    """The IntList entries of one channel; `slot` maps an angle reference to its slot."""
    op = CHANNEL_OPCODES[name]
    if name in _MATRIX_CHANNELS:
        _, k, m, offset = refs[0]
        head = [op, k, m] if name != "choi_repr" else [op, k]
        return head + list(qubits) + [offset]
    if name == "generalized_depolarizing":
        return [op, len(qubits), *qubits, slot(refs[0])]
    return [op, *qubits, *(slot(r) for r in refs)]


def _complex_matrix(m, what, dim):
    if isinstance(m, sp.Tensor):
        m = m.detach().numpy()
    a = np.asarray(m, dtype=np.complex128)
    if a.shape != (dim, dim):
        raise ValueError(f"Circuit.{what}: expected a {dim}x{dim} matrix, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"Circuit.{what}: the matrix has non-finite entries")
    return a


def _as_tensor(x):
    return x if isinstance(x, sp.Tensor) else sp.tensor(np.asarray(x))


class NoiseMixin:
    """Channel methods, density-matrix simulation and measurement of ``Circuit``."""

    # ---- channels -------------------------------------------------------------------------------
    def _channel(self, name, qubits, values):
        """One channel per selected qubit; values: numbers or sp Tensors (one element each)."""
        for q in self._select(qubits, name):
            refs = []
            for v in values:
                if isinstance(v, sp.Tensor) and v.numel() != 1:
                    raise ValueError(f"Circuit.{name}: a channel parameter tensor must have one element, "
                                     f"got {v.numel()}")
                if not isinstance(v, (sp.Tensor, numbers.Real)):
                    raise TypeError(f"Circuit.{name}: a channel parameter is a number or an sp Tensor, got "
                                    f"{type(v).__name__}")
                refs.append(self._angle_refs(v, 1, name)[0])
            self._add(name, (q,), refs)
        return self

    def bit_flip(self, prob, qubits="full"):
        """(1-p) rho + p X rho X on each selected qubit."""
        return self._channel("bit_flip", qubits, [prob])

    def phase_flip(self, prob, qubits="full"):
        """(1-p) rho + p Z rho Z."""
        return self._channel("phase_flip", qubits, [prob])

    def bit_phase_flip(self, prob, qubits="full"):
        """(1-p) rho + p Y rho Y."""
        return self._channel("bit_phase_flip", qubits, [prob])

    def amplitude_damping(self, gamma, qubits="full"):
        """Kraus [[1,0],[0,sqrt(1-g)]], [[0,sqrt g],[0,0]]: |1> decays to |0> with probability g."""
        return self._channel("amplitude_damping", qubits, [gamma])

    def generalized_amplitude_damping(self, gamma, prob, qubits="full"):
        """Amplitude damping towards |0> with weight p and towards |1> with weight 1-p (Paddle's)."""
        return self._channel("generalized_amplitude_damping", qubits, [gamma, prob])

    def phase_damping(self, gamma, qubits="full"):
        """Kraus [[1,0],[0,sqrt(1-g)]], [[0,0],[0,sqrt g]]: coherences scale by sqrt(1-g)."""
        return self._channel("phase_damping", qubits, [gamma])

    def depolarizing(self, prob, qubits="full"):
        """(1-p) rho + p I/2 on each selected qubit: the Bloch vector shrinks by 1-p."""
        return self._channel("depolarizing", qubits, [prob])

    def pauli_channel(self, prob, qubits="full"):
        """prob = (px, py, pz): (1-px-py-pz) rho + px X.X + py Y.Y + pz Z.Z."""
        prob = list(prob) if not isinstance(prob, sp.Tensor) else [prob[i] for i in range(3)]
        if len(prob) != 3:
            raise ValueError(f"Circuit.pauli_channel: prob is (px, py, pz), got {len(prob)} values")
        return self._channel("pauli_channel", qubits, prob)

    def reset_channel(self, prob, qubits="full"):
        """prob = (p0, p1): (1-p0-p1) rho + p0 |0><0| + p1 |1><1| (times tr rho)."""
        prob = list(prob) if not isinstance(prob, sp.Tensor) else [prob[i] for i in range(2)]
        if len(prob) != 2:
            raise ValueError(f"Circuit.reset_channel: prob is (p0, p1), got {len(prob)} values")
        return self._channel("reset_channel", qubits, prob)

    def thermal_relaxation(self, const_t, exec_time, qubits="full"):
        """const_t = (T1, T2), exec_time = t, all in ONE unit (Paddle takes T in us and t in ns; here
        no conversion is made): zero-temperature relaxation, P(1) decays as e^{-t/T1} and
        coherences as e^{-t/T2}; needs T2 <= 2 T1."""
        const_t = list(const_t) if not isinstance(const_t, sp.Tensor) else [const_t[i] for i in range(2)]
        if len(const_t) != 2:
            raise ValueError(f"Circuit.thermal_relaxation: const_t is (T1, T2), got {len(const_t)} values")
        return self._channel("thermal_relaxation", qubits, [*const_t, exec_time])

    def generalized_depolarizing(self, prob, qubits):
        """(1-p) rho + p tr_Q(rho) (x) I/2^k on the k = 1..3 qubits Q together (one channel)."""
        qs = self._select(qubits, "generalized_depolarizing")
        if not 1 <= len(qs) <= 3:
            raise ValueError(f"Circuit.generalized_depolarizing: acts on 1 to 3 qubits, got {len(qs)}")
        return self._add("generalized_depolarizing", tuple(qs), (self._angle_refs(prob, 1, "generalized_depolarizing")[0],))

    def _matrix_channel(self, name, qubits, numbers_):
        qs = [qubits] if isinstance(qubits, numbers.Integral) else list(self._select(qubits, name))
        for q in qs:
            self._check_qubit(q, name)
        if not 1 <= len(qs) <= 3:
            raise ValueError(f"Circuit.{name}: a channel acts on 1 to 3 qubits, got {len(qs)}")
        offset = len(self._constants)
        self._constants.extend(float(x) for x in numbers_)
        return qs, offset

    @staticmethod
    def _flat(m):
        return np.stack([m.real, m.imag], axis=-1).reshape(-1).tolist()

    def mixed_unitary_channel(self, unitaries, probs, qubits):
        """sum_m p_m U_m rho U_m^+ (probabilities >= 0 summing to 1, unitaries 2^k x 2^k on `qubits`,
        qubits[0] the low bit of the matrix index)."""
        k = 1 if isinstance(qubits, numbers.Integral) else len(list(qubits))
        us = [_complex_matrix(u, "mixed_unitary_channel", 2 ** k) for u in unitaries]
        ps = [float(p) for p in probs]
        if len(ps) != len(us) or not us:
            raise ValueError(f"Circuit.mixed_unitary_channel: {len(us)} unitaries but {len(ps)} probabilities")
        qs, offset = self._matrix_channel("mixed_unitary_channel", qubits, ps + sum((self._flat(u) for u in us), []))
        return self._add("mixed_unitary_channel", tuple(qs), (("mat", len(qs), len(us), offset),))

    def kraus_repr(self, kraus_oper, qubits):
        """sum_k K_k rho K_k^+ for Kraus operators of 2^k x 2^k (k = len(qubits) <= 3), checked trace
        preserving (max |sum K^+ K - I| <= 1e-10) when the circuit runs."""
        k = 1 if isinstance(qubits, numbers.Integral) else len(list(qubits))
        ks = [_complex_matrix(m, "kraus_repr", 2 ** k) for m in kraus_oper]
        if not ks:
            raise ValueError("Circuit.kraus_repr: no Kraus operators given")
        dev = float(np.abs(sum(m.conj().T @ m for m in ks) - np.eye(2 ** k)).max())
        if not dev <= 1e-10:
            raise ValueError(f"Circuit.kraus_repr: the channel is not trace preserving: max |sum_k K_k^+ K_k - I| = "
                             f"{dev:.3g} (tolerance 1e-10)")
        qs, offset = self._matrix_channel("kraus_repr", qubits, sum((self._flat(m) for m in ks), []))
        return self._add("kraus_repr", tuple(qs), (("mat", len(qs), len(ks), offset),))

    def choi_repr(self, choi_oper, qubits):
        """The channel of Choi matrix J = sum_ij |i><j| (x) E(|i><j|) (input factor first, 4^k x 4^k),
        checked Hermitian, positive semidefinite and trace preserving (tr_out J = I)."""
        k = 1 if isinstance(qubits, numbers.Integral) else len(list(qubits))
        j = _complex_matrix(choi_oper, "choi_repr", 4 ** k)
        d = 2 ** k
        tr_out = np.einsum("iaja->ij", j.reshape(d, d, d, d))
        dev = float(np.abs(tr_out - np.eye(d)).max())
        if not dev <= 1e-10:
            raise ValueError(f"Circuit.choi_repr: the channel is not trace preserving: max |tr_out J - I| = "
                             f"{dev:.3g} (tolerance 1e-10)")
        qs, offset = self._matrix_channel("choi_repr", qubits, self._flat(j))
        return self._add("choi_repr", tuple(qs), (("mat", len(qs), 0, offset),))

    # ---- simulation -----------------------------------------------------------------------------
    @property
    def has_channels(self):
        """Whether the circuit holds a noise channel (then it runs on density matrices)."""
        return any(name in CHANNEL_OPCODES for name, _, _ in self._gates)

    def _use_dm(self, density_matrix):
        return self.has_channels if density_matrix is None else bool(density_matrix)

    def expectation(self, hamiltonian, density_matrix=None):
        """<H> as a float64 sp scalar, differentiable (adjoint method) in every angle and channel
        parameter tensor. density_matrix=None: on a density matrix iff the circuit holds a channel."""
        if not isinstance(hamiltonian, Hamiltonian):
            hamiltonian = Hamiltonian(hamiltonian)
        params, enc, consts = self._encode()
        paulis, coeffs = hamiltonian.encode(self.n_qubits)
        op = sp.ops.quantum.dm_expectation if self._use_dm(density_matrix) else sp.ops.quantum.expectation
        return op(params, enc, consts, self.n_qubits, paulis, coeffs)

    def density_matrix(self):
        """rho after the circuit from |0...0><0...0|: complex128 sp tensor [2^n, 2^n], differentiable."""
        params, enc, consts = self._encode()
        return sp.ops.quantum.density_matrix(params, enc, consts, self.n_qubits)

    def _final_state(self, density_matrix):
        return self.density_matrix() if self._use_dm(density_matrix) else self.state()

    def probabilities(self, qubits=None, density_matrix=None):
        """Probabilities (float64 sp tensor [2^m], differentiable) of the outcomes of `qubits`
        (default: all) in the computational basis; index b = sum_j bit(qubits[j]) 2^j."""
        return DensityMatrix._probabilities(self._final_state(density_matrix), self._qubit_list(qubits))

    def sample(self, shots, qubits=None, seed=None, generator=None, density_matrix=None, format="counts"):
        """`shots` measurement outcomes of `qubits` (default all). format='counts': {bitstring: count}
        (bitstrings with qubits[0] LAST, Qiskit's order); 'bitstrings': a list of str; 'outcomes': int64
        sp tensor of outcome integers. Seeded: seed=int (a fresh sp.Generator(seed)) or generator=
        (one draw taken from it); else the default generator."""
        return DensityMatrix._sample(self._final_state(density_matrix), self._qubit_list(qubits), shots, seed,
                                     generator, format)

    def measure(self, qubits, outcome, density_matrix=None):
        """Measures `qubits` and keeps `outcome` (a list of bits, outcome[j] for qubits[j], or a
        bitstring with qubits[0] LAST). Returns (post-measurement state on all n qubits, normalised,
        measured qubits collapsed; its probability), both differentiable sp tensors."""
        return DensityMatrix._measure(self._final_state(density_matrix), self._qubit_list(qubits), outcome)

    def _qubit_list(self, qubits):
        if qubits is None:
            return []
        qs = [qubits] if isinstance(qubits, numbers.Integral) else list(qubits)
        for q in qs:
            self._check_qubit(q, "measure")
        return [int(q) for q in qs]


class DensityMatrix:
    """A density matrix (complex sp tensor [2^n, 2^n], rho[r, c] with qubit q = bit q of r and c)
    with the observables of sampan.quantum, ``apply(circuit)`` and one method per channel
    (``rho.amplitude_damping(0.2, 0)``), all differentiable. ``DensityMatrix(circuit)`` runs a circuit (with or
    without channels) from ``|0...0><0...0|``; ``DensityMatrix(tensor)`` wraps a matrix;
    ``DensityMatrix.from_state(psi)`` is ``|psi><psi|`` (differentiable in psi)."""

    def __init__(self, data):
        if hasattr(data, "density_matrix") and hasattr(data, "n_qubits"):
            data = data.density_matrix()
        t = _as_tensor(data)
        if t.dtype not in (sp.complex64, sp.complex128):
            t = t.to(sp.complex128)
        shape = list(t.shape)
        if len(shape) != 2 or shape[0] != shape[1] or shape[0] < 2 or shape[0] & (shape[0] - 1):
            raise ValueError(f"DensityMatrix: expected a [2^n, 2^n] matrix, got shape {shape}")
        self.data = t
        self.n_qubits = int(shape[0]).bit_length() - 1

    @classmethod
    def from_state(cls, psi):
        psi = _as_tensor(psi)
        if psi.dtype not in (sp.complex64, sp.complex128):
            psi = psi.to(sp.complex128)
        col = sp.reshape(psi, [-1, 1])
        return cls(sp.matmul(col, sp.conj(sp.reshape(psi, [1, -1]))))

    def numpy(self):
        return self.data.detach().numpy()

    def apply(self, circuit):
        """E(rho) for a Circuit (gates and channels) on as many qubits: a new DensityMatrix,
        differentiable in this matrix and in the circuit's parameters (op
        quantum::evolve_density_matrix). The channel methods (bit_flip, depolarizing, kraus_repr,
        ...) are shortcuts: ``rho.depolarizing(0.1, [0])`` = ``rho.apply(Circuit(n).depolarizing(0.1, [0]))``."""
        if circuit.n_qubits != self.n_qubits:
            raise ValueError(f"DensityMatrix.apply: the circuit has {circuit.n_qubits} qubits, the state "
                             f"{self.n_qubits}")
        params, enc, consts = circuit._encode()
        return DensityMatrix(sp.ops.quantum.evolve_density_matrix(params, self.data, enc, consts))

    def trace(self):
        """tr(rho) (real part, float64 sp scalar)."""
        return sp.sum(sp.real(sp.diagonal(self.data)))

    def purity(self):
        """``tr(rho^2) = sum |rho_ij|^2`` for Hermitian rho."""
        return sp.sum(sp.real(sp.mul(self.data, sp.conj(self.data))))

    def expectation(self, hamiltonian):
        """tr(H rho) (differentiable in the tensor): sum_ij H_ji rho_ij."""
        if not isinstance(hamiltonian, Hamiltonian):
            hamiltonian = Hamiltonian(hamiltonian)
        h = sp.tensor(np.ascontiguousarray(hamiltonian.matrix(self.n_qubits).T)).to(self.data.dtype)
        return sp.sum(sp.real(sp.mul(h, self.data)))

    def probabilities(self, qubits=None):
        return self._probabilities(self.data, list(qubits) if qubits is not None else [])

    def sample(self, shots, qubits=None, seed=None, generator=None, format="counts"):
        return self._sample(self.data, list(qubits) if qubits is not None else [], shots, seed, generator, format)

    def measure(self, qubits, outcome):
        """(post-measurement DensityMatrix, probability); see Circuit.measure."""
        post, p = self._measure(self.data, [qubits] if isinstance(qubits, numbers.Integral) else list(qubits), outcome)
        return DensityMatrix(post), p

    # Shared by Circuit and DensityMatrix: `state` is a state vector or a density matrix tensor.
    @staticmethod
    def _probabilities(state, qubits):
        return sp.ops.quantum.probabilities(state, qubits)

    @staticmethod
    def _sample(state, qubits, shots, seed, generator, format):
        from .._random import _draw
        if not isinstance(shots, numbers.Integral) or shots < 0:
            raise ValueError(f"sample: shots must be a non-negative integer, got {shots!r}")
        if seed is not None and generator is not None:
            raise ValueError("sample: give seed or generator, not both")
        gen = sp.Generator(int(seed)) if seed is not None else generator
        s, offset = _draw(gen)
        out = sp.ops.quantum.sample(state.detach(), qubits, int(shots), s, offset)
        if format == "outcomes":
            return out
        m = len(qubits) if qubits else int(state.shape[0]).bit_length() - 1
        bits = [format_bits(int(b), m) for b in out.numpy()]
        if format == "bitstrings":
            return bits
        if format != "counts":
            raise ValueError(f"sample: format is 'counts', 'bitstrings' or 'outcomes', got {format!r}")
        counts = {}
        for b in bits:
            counts[b] = counts.get(b, 0) + 1
        return dict(sorted(counts.items()))

    @staticmethod
    def _measure(state, qubits, outcome):
        if not qubits:
            raise ValueError("measure: give the qubits to measure")
        if isinstance(outcome, str):
            if len(outcome) != len(qubits) or set(outcome) - {"0", "1"}:
                raise ValueError(f"measure: the bitstring {outcome!r} must have one 0/1 per measured qubit "
                                 f"({len(qubits)})")
            bits = [int(c) for c in reversed(outcome)]  # last character is qubits[0]
        else:
            bits = [int(b) for b in ([outcome] if isinstance(outcome, numbers.Integral) else outcome)]
        return sp.ops.quantum.measure(state, qubits, bits)


def _channel_shortcut(name):
    def method(self, *args, **kwargs):
        from .circuit import Circuit
        c = Circuit(self.n_qubits)
        getattr(c, name)(*args, **kwargs)
        return self.apply(c)
    method.__name__ = name
    method.__doc__ = f"A new DensityMatrix: this one after the channel Circuit.{name} (same arguments)."
    return method


for _name in CHANNEL_OPCODES:
    setattr(DensityMatrix, _name, _channel_shortcut(_name))


def format_bits(b, m):
    """The bitstring of outcome b over m qubits, qubits[0] last (Qiskit's order)."""
    return format(b, f"0{m}b") if m else ""
