"""Noise channels of ``Circuit`` (its channel methods, mixed into it by circuit.py).

Channel methods follow Paddle Quantum's names and conventions (see
quantum/include/sampan/quantum/channels.h for every formula). A channel parameter is a number
(fixed) or an sp Tensor (differentiated like an angle). Channels act on density matrices only: a
circuit that holds one simulates with ``quantum::density_matrix`` / ``dm_expectation``, and asking
for a state vector of it raises ValueError. Which names are channels, their opcodes and layouts
come from the gate table (gates.py); every channel is validated in C++ when it is added
(domains of fixed parameters, trace preservation, unitarity, qubits).

The methods record channels through the Circuit's recording interface (``_select``,
``_angle_refs``, ``_add``, ``_constants``, defined in circuit.py); this module imports no other
module of sampan.quantum but gates.py.
"""
import numbers

import numpy as np

import sampan as sp

from .gates import CHANNEL_OPCODES

# Kraus operators of the non-selective Z measurement of one qubit (a mid-circuit measurement).
MEASUREMENT_KRAUS = (np.array([[1, 0], [0, 0]], dtype=np.complex128), np.array([[0, 0], [0, 1]], dtype=np.complex128))


def complex_matrix(m, what, dim):
    """``m`` (NumPy array, nested list or sp Tensor) as a complex128 dim x dim array; ValueError
    naming ``Circuit.<what>`` and the shape otherwise."""
    if isinstance(m, sp.Tensor):
        m = m.detach().numpy()
    a = np.asarray(m, dtype=np.complex128)
    if a.shape != (dim, dim):
        raise ValueError(f"Circuit.{what}: expected a {dim}x{dim} matrix, got shape {a.shape}")
    return a


def flat_numbers(m):
    """A complex matrix as the (re, im) pairs, row-major, the encoding's constants hold."""
    return np.stack([m.real, m.imag], axis=-1).reshape(-1).tolist()


class ChannelMixin:
    """The channel methods of ``Circuit`` (one per channel of the gate table, plus reset_channel's
    shortcuts in classical.py)."""

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
        """Kraus [[1,0],[0,sqrt(1-g)]], [[0,sqrt g],[0,0]]: ``|1>`` decays to ``|0>`` with probability g."""
        return self._channel("amplitude_damping", qubits, [gamma])

    def generalized_amplitude_damping(self, gamma, prob, qubits="full"):
        """Amplitude damping towards ``|0>`` with weight p and towards ``|1>`` with weight 1-p (Paddle's)."""
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
        """prob = (p0, p1): ``(1-p0-p1) rho + p0 |0><0| + p1 |1><1|`` (times tr rho)."""
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
        return self._add("generalized_depolarizing", tuple(qs), (self._angle_refs(prob, 1, "generalized_depolarizing")[0],))

    def _matrix_channel(self, name, qubits, numbers_, m):
        """Records the matrix channel `name` on `qubits` with its numbers appended to the constants."""
        qs = [qubits] if isinstance(qubits, numbers.Integral) else list(self._select(qubits, name))
        offset = len(self._constants)
        self._constants.extend(float(x) for x in numbers_)
        return self._add(name, tuple(qs), (("mat", len(qs), m, offset),))

    def mixed_unitary_channel(self, unitaries, probs, qubits):
        """sum_m p_m U_m rho U_m^+ (probabilities >= 0 summing to 1, unitaries 2^k x 2^k on `qubits`,
        qubits[0] the low bit of the matrix index)."""
        k = 1 if isinstance(qubits, numbers.Integral) else len(list(qubits))
        us = [complex_matrix(u, "mixed_unitary_channel", 2 ** k) for u in unitaries]
        ps = [float(p) for p in probs]
        if len(ps) != len(us) or not us:
            raise ValueError(f"Circuit.mixed_unitary_channel: {len(us)} unitaries but {len(ps)} probabilities")
        return self._matrix_channel("mixed_unitary_channel", qubits, ps + sum((flat_numbers(u) for u in us), []),
                                    len(us))

    def kraus_repr(self, kraus_oper, qubits):
        """sum_k K_k rho K_k^+ for Kraus operators of 2^k x 2^k (k = len(qubits) <= 3), checked trace
        preserving (``max |sum K^+ K - I| <= 1e-10``)."""
        k = 1 if isinstance(qubits, numbers.Integral) else len(list(qubits))
        ks = [complex_matrix(m, "kraus_repr", 2 ** k) for m in kraus_oper]
        return self._matrix_channel("kraus_repr", qubits, sum((flat_numbers(m) for m in ks), []), len(ks))

    def choi_repr(self, choi_oper, qubits):
        """The channel of Choi matrix ``J = sum_ij |i><j| (x) E(|i><j|)`` (input factor first, 4^k x 4^k),
        checked Hermitian, positive semidefinite and trace preserving (tr_out J = I)."""
        k = 1 if isinstance(qubits, numbers.Integral) else len(list(qubits))
        j = complex_matrix(choi_oper, "choi_repr", 4 ** k)
        return self._matrix_channel("choi_repr", qubits, flat_numbers(j), 0)

    @property
    def has_channels(self):
        """Whether the circuit holds a noise channel (then it runs on density matrices)."""
        return any(name in CHANNEL_OPCODES for name, _, _ in self._gates)
