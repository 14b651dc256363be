"""``Circuit``: a parameterised circuit that encodes itself for the C++ quantum ops, and runs them
(state, density matrix, expectation, probabilities, samples, measurement).

Angles of rotation gates are one of:
  * ``None``: a new trainable entry of ``circuit.parameters`` (a float64 leaf requiring grad,
    initialised uniformly in [0, 2 pi) from the circuit's seeded generator);
  * a Python number: a fixed angle (not differentiated);
  * an sp Tensor (one element, or one per selected qubit): the gradient flows back into it.

The gates, their opcodes and encoding layouts come from the C++ gate table (gates.py), and every
gate is validated in C++ when it is added (gates.check: qubits in range and distinct, fixed angles
finite, matrices unitary, channels trace preserving and their fixed parameters in range); Python
converts arguments (selectors, angles, matrices) and forwards. A call that raises adds nothing.

Recording interface, shared with the channel methods (noise.py) and the classical registers
(classical.py) that Circuit mixes in: ``_select`` / ``_pairs`` (qubit selectors), ``_angle_refs``
(angles), ``_constants`` (fixed numbers and matrices), ``_add`` (validates and records one gate as
(name, qubits, angle references)), ``_gates``.
"""
import functools
import math
import numbers

import numpy as np

import sampan as sp

from .._device import device_argument
from . import gates, measurement, qasm, shots as shot_estimates
from .classical import ClassicalMixin
from .gates import CHANNEL_OPCODES
from .hamiltonian import Hamiltonian
from .noise import ChannelMixin
from .qubit_order import DEFAULT_ORDER, LITTLE, convert


class Circuit(ChannelMixin, ClassicalMixin):
    """A circuit on ``n_qubits`` qubits (qubit 0 is the least significant bit of the state index).
    Noise channels: noise.py (ChannelMixin); classical registers, recorded measurements and their
    counts: classical.py (ClassicalMixin); measurement conventions: measurement.py."""

    def __init__(self, n_qubits, seed=0, device="cpu"):
        if not isinstance(n_qubits, numbers.Integral) or not 1 <= n_qubits <= 60:
            raise ValueError(f"Circuit: n_qubits must be an integer in [1, 60], got {n_qubits!r}")
        self.n_qubits = int(n_qubits)
        # Where state() and expectation() simulate: the angles stay on the CPU (the gate matrices
        # are built there) and move, differentiably, with each call; density matrices run on the CPU.
        self.device = device_argument(device, "Circuit")
        self._gates = []          # (name, qubits tuple, angle refs)
        self._own_values = []     # initial values of circuit-owned parameters
        self._external = []       # user tensors (flattened float64 views are built at run time)
        self._constants = []
        self._generator = sp.Generator(seed)
        self._parameters = None
        self._init_classical()

    # ---- parameters -----------------------------------------------------------------------------
    @property
    def parameters(self):
        """The circuit-owned trainable angles (float64 [P], requires grad); built on first access."""
        if self._parameters is None:
            self._parameters = sp.tensor(np.array(self._own_values, dtype=np.float64), requires_grad=True)
        return self._parameters

    def _angle_refs(self, theta, count, gate):
        """One reference per use: ('own', i), ('ext', k, i) or ('const', i)."""
        if theta is None:
            if self._parameters is not None:
                raise RuntimeError(f"Circuit.{gate}: cannot add a new trainable parameter after "
                                   "circuit.parameters was created; add all gates first")
            draws = sp.rand(count, dtype=sp.float64, generator=self._generator).numpy()
            refs = []
            for v in draws:
                self._own_values.append(float(v) * 2 * math.pi)
                refs.append(("own", len(self._own_values) - 1))
            return refs
        if isinstance(theta, sp.Tensor):
            if theta.dtype in (sp.complex64, sp.complex128) or theta.dtype == sp.bool:
                raise TypeError(f"Circuit.{gate}: an angle tensor must be real (float or integer), got {theta.dtype}")
            if theta.numel() not in (1, count):
                raise ValueError(f"Circuit.{gate}: the angle tensor has {theta.numel()} elements but the "
                                 f"gate is applied to {count} qubit(s) (expected 1 or {count})")
            self._external.append(theta)
            k = len(self._external) - 1
            return [("ext", k, i if theta.numel() == count else 0) for i in range(count)]
        if isinstance(theta, numbers.Real):  # checked finite in C++ when its gate is added
            self._constants.append(float(theta))
            return [("const", len(self._constants) - 1)] * count
        raise TypeError(f"Circuit.{gate}: an angle is None, a number or an sp Tensor, got {type(theta).__name__}")

    # ---- qubit selection ------------------------------------------------------------------------
    def _select(self, qubits, gate):
        if isinstance(qubits, str):
            if qubits != "full":
                raise ValueError(f"Circuit.{gate}: qubit selector {qubits!r} (expected an int, a list or 'full')")
            return list(range(self.n_qubits))
        if isinstance(qubits, numbers.Integral):
            qubits = [qubits]
        if not isinstance(qubits, (list, tuple, range, np.ndarray)):
            raise TypeError(f"Circuit.{gate}: qubits are an int, a list of ints or 'full', got {qubits!r}")
        qs = [self._qubit(q, gate) for q in qubits]
        gates.check_qubits(qs, self.n_qubits, f"Circuit.{gate}", distinct=False)  # before any angle is drawn
        return qs

    @staticmethod
    def _qubit(q, gate):
        """A qubit index as an int (TypeError unless it is an integer); its range is checked in C++."""
        if isinstance(q, bool) or not isinstance(q, numbers.Integral):
            raise TypeError(f"Circuit.{gate}: a qubit index must be an integer, got {q!r}")
        return int(q)

    def _check_qubit(self, q, gate):
        """Type (here) and range (C++) of one qubit index."""
        gates.check_qubits([self._qubit(q, gate)], self.n_qubits, f"Circuit.{gate}")

    def _add(self, name, qubits, refs=(), who=None):
        """Validates the gate in C++ (gates.check; errors name Circuit.<who or name>) and records it."""
        qubits = tuple(self._qubit(q, who or name) for q in qubits)
        refs = tuple(refs)
        if refs and refs[0][0] == "mat":  # its numbers are the last ones appended to the constants
            _, a, b, offset = refs[0]
            gates.check(name, qubits, self.n_qubits, matrix=(a, b), numbers=self._constants[offset:], who=who)
        else:
            gates.check(name, qubits, self.n_qubits,
                        values=[self._constants[r[1]] if r[0] == "const" else None for r in refs], who=who)
        self._before_gate(qubits)  # a measured qubit that a gate touches: mid-circuit measurement
        self._gates.append((name, qubits, refs))
        return self

    def _mark(self):
        """What a building call may change, to undo it when the call raises (see _atomic)."""
        return (len(self._gates), len(self._constants), len(self._own_values), len(self._external),
                len(self._cregs), dict(self._terminal), len(self._mid),
                None if self._open_condition is None else list(self._open_condition))

    def _restore(self, mark):
        n_gates, n_constants, n_own, n_external, n_cregs, terminal, n_mid, open_condition = mark
        del self._gates[n_gates:], self._constants[n_constants:], self._own_values[n_own:]
        del self._external[n_external:], self._cregs[n_cregs:], self._mid[n_mid:]
        self._terminal = terminal
        if open_condition is not None:
            self._open_condition[:] = open_condition

    def _single(self, name, qubits, theta=None, fixed=False):
        qs = self._select(qubits, name)
        refs = [()] * len(qs) if fixed else [(r,) for r in self._angle_refs(theta, len(qs), name)]
        for q, r in zip(qs, refs):
            self._add(name, (q,), r)
        return self

    # ---- gates ----------------------------------------------------------------------------------
    def h(self, qubits): return self._single("h", qubits, fixed=True)
    def x(self, qubits): return self._single("x", qubits, fixed=True)
    def y(self, qubits): return self._single("y", qubits, fixed=True)
    def z(self, qubits): return self._single("z", qubits, fixed=True)
    def s(self, qubits): return self._single("s", qubits, fixed=True)
    def sdg(self, qubits): return self._single("sdg", qubits, fixed=True)
    def t(self, qubits): return self._single("t", qubits, fixed=True)
    def tdg(self, qubits): return self._single("tdg", qubits, fixed=True)
    def p(self, theta, qubits): return self._single("p", qubits, theta)
    def rx(self, theta, qubits): return self._single("rx", qubits, theta)
    def ry(self, theta, qubits): return self._single("ry", qubits, theta)
    def rz(self, theta, qubits): return self._single("rz", qubits, theta)

    def u3(self, theta, phi, lam, qubit):
        """U3(theta, phi, lam) = [[cos(t/2), -e^{i lam} sin(t/2)], [e^{i phi} sin(t/2), e^{i(phi+lam)} cos(t/2)]]."""
        self._check_qubit(qubit, "u3")
        refs = [self._angle_refs(a, 1, "u3")[0] for a in (theta, phi, lam)]
        return self._add("u3", (qubit,), refs)

    # Two-qubit gates take (q0, q1), or one pair selector in place of q0 with q1 omitted:
    # 'linear' = (0,1), (1,2), ..., (n-2,n-1); 'cycle' = linear plus (n-1,0) (for n > 2);
    # 'full' = every (i, j) with i < j; or a list of pairs. As in Paddle Quantum.
    def cnot(self, control, target=None): return self._fixed_two("cnot", control, target)
    cx = cnot
    def cy(self, control, target=None): return self._fixed_two("cy", control, target)
    def cz(self, control, target=None): return self._fixed_two("cz", control, target)
    def swap(self, q0, q1=None): return self._fixed_two("swap", q0, q1)

    def _pairs(self, q0, q1, gate):
        """The (q0, q1) pairs a two-qubit gate call selects."""
        if q1 is not None:
            return [(q0, q1)]
        n = self.n_qubits
        if isinstance(q0, str):
            if q0 == "linear":
                return [(i, i + 1) for i in range(n - 1)]
            if q0 == "cycle":
                return [(i, i + 1) for i in range(n - 1)] + ([(n - 1, 0)] if n > 2 else [])
            if q0 == "full":
                return [(i, j) for i in range(n) for j in range(i + 1, n)]
            raise ValueError(f"Circuit.{gate}: qubit selector {q0!r} (expected 'linear', 'cycle', 'full' "
                             "or a list of pairs)")
        if isinstance(q0, (list, tuple)) and all(isinstance(p, (list, tuple)) and len(p) == 2 for p in q0):
            return [tuple(p) for p in q0]
        raise ValueError(f"Circuit.{gate}: expected two qubits, or a selector 'linear'/'cycle'/'full' or a "
                         f"list of pairs, got {q0!r}")

    def _fixed_two(self, name, q0, q1):
        for a, b in self._pairs(q0, q1, name):  # a call that raises adds nothing (see _atomic)
            self._add(name, (a, b))
        return self
    def ccx(self, c0, c1, target): return self._add("ccx", (c0, c1, target))
    toffoli = ccx

    def cswap(self, control, q0, q1):
        """Fredkin: swaps q0 and q1 where the control is 1."""
        return self._add("cswap", (control, q0, q1))
    fredkin = cswap

    def ms(self, q0, q1=None):
        """Molmer-Sorensen gate exp(+i pi/4 X(x)X) = (I + i XX)/sqrt(2) = RXX(-pi/2), Paddle Quantum's
        convention (no parameter)."""
        return self._fixed_two("ms", q0, q1)

    def cu(self, theta, phi, lam, control, target):
        """Controlled U3(theta, phi, lam) (see u3), three parameters as in Paddle Quantum: no extra
        global phase, so ``|0><0| (x) I + |1><1| (x) U3`` with U3[0, 0] = cos(theta/2) real."""
        gates.check_qubits([self._qubit(q, "cu") for q in (control, target)], self.n_qubits, "Circuit.cu")
        refs = [self._angle_refs(a, 1, "cu")[0] for a in (theta, phi, lam)]
        return self._add("cu", (control, target), refs)

    def universal_two_qubit(self, theta, q0, q1):
        """Any two-qubit unitary (up to a global phase) from 15 angles, by the 3-CNOT circuit of
        Vatan and Williams, Phys. Rev. A 69, 032315 (2004), Fig. 6 (as Paddle Quantum's
        universal_two_qubits)::

            U3(t0..t2) on q0, U3(t3..t5) on q1, CNOT(q1 -> q0), RZ(t6) on q0, RY(t7) on q1,
            CNOT(q0 -> q1), RY(t8) on q1, CNOT(q1 -> q0), U3(t9..t11) on q0, U3(t12..t14) on q1.

        theta: None (15 new trainable angles), 15 numbers, or an sp Tensor of 15 elements."""
        qs = [self._qubit(q, "universal_two_qubit") for q in (q0, q1)]
        gates.check_qubits(qs, self.n_qubits, "Circuit.universal_two_qubit")
        refs = self._angle_list(theta, 15, "universal_two_qubit")
        self._add("u3", (q0,), refs[0:3]).\
            _add("u3", (q1,), refs[3:6]).\
            _add("cnot", (q1, q0)).\
            _add("rz", (q0,), refs[6:7]).\
            _add("ry", (q1,), refs[7:8]).\
            _add("cnot", (q0, q1)).\
            _add("ry", (q1,), refs[8:9]).\
            _add("cnot", (q1, q0)).\
            _add("u3", (q0,), refs[9:12]).\
            _add("u3", (q1,), refs[12:15])
        return self

    def unitary(self, matrix, qubits, order=DEFAULT_ORDER):
        """A fixed 2^k x 2^k unitary (NumPy array, nested list or sp Tensor, complex) on the k qubits
        `qubits` (a list; qubits[j] is local bit j of the matrix index, so qubits[0] is its least
        significant bit; order='big': its most significant, as PennyLane's QubitUnitary). Checked to
        be unitary: ``max |U^+ U - I| <= 1e-10``."""
        return self.controlled_unitary(matrix, [], qubits, order)

    def controlled_unitary(self, matrix, controls, targets, order=DEFAULT_ORDER):
        """`matrix` (see unitary, ``order`` of its index over `targets`) on `targets`, applied where
        every qubit of `controls` is 1."""
        controls = [controls] if isinstance(controls, numbers.Integral) else list(controls)
        targets = [targets] if isinstance(targets, numbers.Integral) else list(targets)
        gate = "unitary" if not controls else "controlled_unitary"
        if isinstance(matrix, sp.Tensor):
            matrix = matrix.numpy()
        m = np.asarray(matrix, dtype=np.complex128)
        k = len(targets)
        if k and m.shape != (2 ** k, 2 ** k):  # k itself, unitarity, finiteness and qubits: checked in C++
            raise ValueError(f"Circuit.{gate}: the matrix for {k} target qubit(s) must be "
                             f"{2 ** k}x{2 ** k}, got shape {m.shape}")
        if k:
            m = convert(m, order, f"Circuit.{gate}")
        offset = len(self._constants)
        self._constants.extend(np.stack([m.real, m.imag], axis=-1).reshape(-1).tolist())
        return self._add("unitary", tuple(controls) + tuple(targets), (("mat", len(controls), k, offset),), who=gate)

    def _angle_list(self, theta, count, gate):
        """`count` distinct angle references: None (new trainable), `count` numbers, or a tensor of
        `count` elements."""
        if isinstance(theta, sp.Tensor) or theta is None:
            if theta is not None and theta.numel() != count:
                raise ValueError(f"Circuit.{gate}: the angle tensor has {theta.numel()} elements "
                                 f"(expected {count})")
            return self._angle_refs(theta, count, gate)
        values = list(np.asarray(theta, dtype=np.float64).reshape(-1)) if not isinstance(theta, numbers.Real) else [theta]
        if len(values) != count:
            raise ValueError(f"Circuit.{gate}: expected {count} angles, got {len(values)}")
        return [self._angle_refs(float(v), 1, gate)[0] for v in values]

    def _two(self, name, theta, q0, q1):
        """A one-angle two-qubit gate on each selected pair (one angle per pair: see _angle_refs)."""
        pairs = self._pairs(q0, q1, name)
        for a, b in pairs:  # before any angle is drawn
            gates.check_qubits([self._qubit(a, name), self._qubit(b, name)], self.n_qubits, f"Circuit.{name}")
        for (a, b), r in zip(pairs, self._angle_refs(theta, len(pairs), name)):
            self._add(name, (a, b), (r,))
        return self

    def cp(self, theta, control, target=None): return self._two("cp", theta, control, target)
    def crx(self, theta, control, target=None): return self._two("crx", theta, control, target)
    def cry(self, theta, control, target=None): return self._two("cry", theta, control, target)
    def crz(self, theta, control, target=None): return self._two("crz", theta, control, target)
    def rxx(self, theta, q0, q1=None): return self._two("rxx", theta, q0, q1)
    def ryy(self, theta, q0, q1=None): return self._two("ryy", theta, q0, q1)
    def rzz(self, theta, q0, q1=None): return self._two("rzz", theta, q0, q1)

    # ---- templates (Paddle Quantum's set; structures written out in each docstring) -------------
    # `theta` of a parameterised template: None (new trainable angles), or a sequence / sp Tensor
    # with exactly as many angles as the template uses, consumed in gate order.
    def _template_angles(self, theta, count, gate):
        return iter(self._angle_list(theta, count, gate))

    def superposition_layer(self, qubits="full"):
        """H on every selected qubit."""
        return self.h(qubits)

    def weak_superposition_layer(self, qubits="full"):
        """RY(pi/4) (fixed) on every selected qubit."""
        return self.ry(math.pi / 4, qubits)

    def linear_entangled_layer(self, depth=1, theta=None):
        """Per layer: RY on every qubit, CNOT 'linear', RZ on every qubit, CNOT 'linear'
        (2 n angles per layer)."""
        n = self.n_qubits
        refs = self._template_angles(theta, 2 * n * depth, "linear_entangled_layer")
        for _ in range(depth):
            for q in range(n):
                self._add("ry", (q,), (next(refs),))
            self.cnot("linear")
            for q in range(n):
                self._add("rz", (q,), (next(refs),))
            self.cnot("linear")
        return self

    def real_entangled_layer(self, depth=1, theta=None):
        """Per layer: RY on every qubit, then CNOT 'cycle' (n angles per layer; real amplitudes)."""
        n = self.n_qubits
        refs = self._template_angles(theta, n * depth, "real_entangled_layer")
        for _ in range(depth):
            for q in range(n):
                self._add("ry", (q,), (next(refs),))
            self.cnot("cycle")
        return self

    def complex_entangled_layer(self, depth=1, theta=None):
        """Per layer: U3 on every qubit, then CNOT 'cycle' (3 n angles per layer)."""
        n = self.n_qubits
        refs = self._template_angles(theta, 3 * n * depth, "complex_entangled_layer")
        for _ in range(depth):
            for q in range(n):
                self._add("u3", (q,), (next(refs), next(refs), next(refs)))
            self.cnot("cycle")
        return self

    def _block_pairs(self):
        n = self.n_qubits
        return [(i, i + 1) for i in range(0, n - 1, 2)] + [(i, i + 1) for i in range(1, n - 1, 2)]

    def _block_layer(self, depth, theta, gate, rotation, per):
        """Shared structure of the block layers (see real_block_layer)."""
        if self.n_qubits < 2:
            raise ValueError(f"Circuit.{gate}: needs at least 2 qubits, the circuit has {self.n_qubits}")
        pairs = self._block_pairs()
        count = per * (self.n_qubits + 4 * len(pairs) * depth)
        refs = self._template_angles(theta, count, gate)
        rot = lambda q: self._add(rotation, (q,), tuple(next(refs) for _ in range(per)))
        for q in range(self.n_qubits):
            rot(q)
        for _ in range(depth):
            for a, b in pairs:
                rot(a); rot(b)
                self._add("cnot", (a, b))
                rot(a); rot(b)
        return self

    def real_block_layer(self, depth=1, theta=None):
        """RY on every qubit, then per layer one block on each pair (0,1), (2,3), ... and then on
        each pair (1,2), (3,4), ...; a block on (a, b) is RY(a) RY(b), CNOT(a -> b), RY(a) RY(b).
        Angles: n + 4 (n - 1) depth."""
        return self._block_layer(depth, theta, "real_block_layer", "ry", 1)

    def complex_block_layer(self, depth=1, theta=None):
        """real_block_layer with U3 in place of every RY (3 angles each): 3 (n + 4 (n - 1) depth)."""
        return self._block_layer(depth, theta, "complex_block_layer", "u3", 3)

    def qaoa_layer(self, edges, nodes=None, depth=1, gamma=None, beta=None):
        """QAOA for a graph: per layer l, RZZ(gamma_l) on every edge (u, v) (equal to Paddle
        Quantum's CNOT(u, v) RZ(gamma_l, v) CNOT(u, v): both are exp(-i gamma_l/2 Z_u Z_v)), then
        RX(beta_l) on every node (default: every qubit). gamma, beta: None (depth new trainable
        angles each, shared by the gates of one layer), or `depth` numbers / an sp Tensor of depth
        elements. Prepare the uniform superposition first (superposition_layer)."""
        nodes = list(range(self.n_qubits)) if nodes is None else list(nodes)
        edges = [tuple(e) for e in edges]
        for e in edges:
            if len(e) != 2:
                raise ValueError(f"Circuit.qaoa_layer: an edge is a pair of qubits, got {e!r}")
            gates.check_qubits([self._qubit(q, "rzz") for q in e], self.n_qubits, "Circuit.rzz")
        gates.check_qubits([self._qubit(q, "rx") for q in nodes], self.n_qubits, "Circuit.rx", distinct=False)
        g = self._angle_list(gamma, depth, "qaoa_layer")
        b = self._angle_list(beta, depth, "qaoa_layer")
        for layer in range(depth):
            for u, v in edges:
                self._add("rzz", (u, v), (g[layer],))
            for q in nodes:
                self._add("rx", (q,), (b[layer],))
        return self

    # ---- encoding and simulation ----------------------------------------------------------------
    def encode(self, detached=False):
        """(params tensor, circuit IntList, constants): what the quantum ops take (the encoding of
        quantum/include/sampan/quantum/circuit.h). params: the owned parameters first, then each user
        tensor flattened, concatenated so gradients flow back into all of them. detached: the
        current values without a graph, and without creating circuit.parameters (which would
        freeze the circuit), as the QASM writer wants."""
        if self._conditions and not detached:
            b, e, reg, v = self.classical_conditions[0]
            raise ValueError(f"Circuit: gates {b} to {e - 1} run only if {reg} == {v} (classically controlled): "
                             "the circuit has no single state; counts() follows its branches")
        pieces, offsets, off = [], [], 0
        if self._own_values:
            if detached:
                own = self._parameters.detach().numpy() if self._parameters is not None else self._own_values
                pieces.append(sp.tensor(np.array(own, dtype=np.float64)))
            else:
                pieces.append(self.parameters)
            off = len(self._own_values)
        for t in self._external:
            offsets.append(off)
            flat = sp.reshape(t.detach() if detached else t, [-1])
            if flat.dtype != sp.float64:
                flat = flat.to(sp.float64)
            pieces.append(flat)
            off += t.numel()
        # Affine angles scale * own[i] + shift (the Qiskit / OpenQASM 3 bridges' expressions): one
        # derived entry per distinct reference, after the user tensors, so gradients reach own[i].
        affine = list(dict.fromkeys(r for _, _, refs in self._gates for r in refs if r[0] == "aff"))
        affine_slot = {r: off + j for j, r in enumerate(affine)}
        if affine:
            index = np.array([r[1] for r in affine], dtype=np.int64)
            scale = sp.tensor(np.array([r[2] for r in affine], dtype=np.float64))
            shift = sp.tensor(np.array([r[3] for r in affine], dtype=np.float64))
            pieces.append(pieces[0][index] * scale + shift)
        if not pieces:
            params = sp.zeros(0, dtype=sp.float64)
        elif len(pieces) == 1:
            params = pieces[0]
        else:
            params = sp.concat(pieces, 0)

        def slot(r):
            if r[0] == "aff":
                return affine_slot[r]
            return r[1] if r[0] == "own" else offsets[r[1]] + r[2] if r[0] == "ext" else -r[1] - 1

        enc = []
        for name, qubits, refs in self._gates:
            g = gates.BY_METHOD[name]
            if g.layout in gates.MATRIX_LAYOUTS:
                enc.extend(gates.encode(g, qubits, matrix=refs[0][1:]))
            else:
                enc.extend(gates.encode(g, qubits, [slot(r) for r in refs]))
        return params, enc, list(self._constants)

    def _device_params(self):
        """encode() with the parameters on the circuit's device (a differentiable copy)."""
        params, enc, consts = self.encode()
        return (params if self.device == "cpu" else params.to(self.device)), enc, consts

    def state(self, order=DEFAULT_ORDER):
        """The state circuit|0...0> as a complex128 sp tensor [2^n] on the circuit's device,
        differentiable (adjoint method), in qubit ``order`` ('little' or 'big', qubit_order.py).
        A circuit with noise channels has no state vector: use density_matrix()."""
        params, enc, consts = self._device_params()
        return convert(sp.ops.quantum.statevector(params, enc, consts, self.n_qubits), order, "Circuit.state")

    def density_matrix(self, order=DEFAULT_ORDER):
        """rho after the circuit from ``|0...0><0...0|``: complex128 sp tensor [2^n, 2^n], differentiable,
        in qubit ``order``."""
        params, enc, consts = self.encode()
        return convert(sp.ops.quantum.density_matrix(params, enc, consts, self.n_qubits), order,
                       "Circuit.density_matrix")

    def _use_dm(self, density_matrix):
        return self.has_channels if density_matrix is None else bool(density_matrix)

    def expectation(self, hamiltonian, density_matrix=None, shots=None, seed=None):
        """<H> as a float64 sp scalar, differentiable (adjoint method) in every angle and channel
        parameter tensor. density_matrix=None: on a density matrix iff the circuit holds a channel.
        shots=N: the estimate from N shots per qubit-wise commuting group of terms, seeded by
        ``seed`` (int or sp.Generator), with the shot parameter-shift gradient (shots.py)."""
        if not isinstance(hamiltonian, Hamiltonian):
            hamiltonian = Hamiltonian(hamiltonian)
        if shots is not None:
            return shot_estimates.circuit_expectation(self, hamiltonian, shots, seed, self._use_dm(density_matrix))
        paulis, coeffs = hamiltonian.encode(self.n_qubits)
        if self._use_dm(density_matrix):
            params, enc, consts = self.encode()
            return sp.ops.quantum.dm_expectation(params, enc, consts, self.n_qubits, paulis, coeffs)
        params, enc, consts = self._device_params()
        return sp.ops.quantum.expectation(params, enc, consts, self.n_qubits, paulis, coeffs)

    def _final_state(self, density_matrix, order=DEFAULT_ORDER):
        # The measurement ops run where a little-order state vector is (their GPU twins); the
        # big-order relabelling of a GPU state runs on the CPU, where it comes over once
        # (differentiably).
        if self._use_dm(density_matrix):
            return self.density_matrix(order)
        state = self.state(order)
        return state if order == LITTLE else state.cpu()

    # ---- measurement (conventions: measurement.py) ----------------------------------------------
    def probabilities(self, qubits=None, density_matrix=None, order=DEFAULT_ORDER):
        """Probabilities (float64 sp tensor [2^m], differentiable) of the outcomes of `qubits`
        (default: all) in the computational basis; index b = sum_j bit(qubits[j]) 2^j
        (order='big': 2^(m-1-j))."""
        qs = self._qubit_list(qubits)
        return measurement.probabilities(self._final_state(density_matrix, order), qs, order=order)

    def sample(self, shots, qubits=None, seed=None, generator=None, density_matrix=None, format="counts",
               order=DEFAULT_ORDER):
        """`shots` measurement outcomes of `qubits` (default all). format='counts': {bitstring: count}
        (bitstrings with qubits[0] LAST, Qiskit's order; FIRST for order='big'); 'bitstrings': a list of str; 'outcomes': int64
        sp tensor of outcome integers. Seeded: seed=int (a fresh sp.Generator(seed)) or generator=
        (one draw taken from it); else the default generator."""
        qs = self._qubit_list(qubits)
        return measurement.sample(self._final_state(density_matrix, order), qs, shots, seed,
                                  generator, format, order=order)

    def measure(self, qubits, outcome, density_matrix=None, order=DEFAULT_ORDER):
        """Measures `qubits` and keeps `outcome` (a list of bits, outcome[j] for qubits[j], or a
        bitstring with qubits[0] LAST; FIRST for order='big'). Returns (post-measurement state on all
        n qubits in ``order``, normalised,
        measured qubits collapsed; its probability), both differentiable sp tensors."""
        qs = self._qubit_list(qubits)
        return measurement.measure(self._final_state(density_matrix, order), qs, outcome, order=order)

    def _qubit_list(self, qubits):
        if qubits is None:
            return []
        qs = [qubits] if isinstance(qubits, numbers.Integral) else list(qubits)
        qs = [self._qubit(q, "measure") for q in qs]
        gates.check_qubits(qs, self.n_qubits, "Circuit.measure", distinct=False)
        return qs

    # ---- OpenQASM 2.0 ------------------------------------------------------------------------------
    def _angle_values(self):
        """A function from an angle reference to its current float value."""
        # Current values without creating circuit.parameters (which would freeze the circuit).
        own = self._parameters.detach().numpy() if self._parameters is not None else self._own_values
        ext = [sp.reshape(t.detach(), [-1]).numpy() for t in self._external]

        def value(r):
            if r[0] == "own":
                return float(own[r[1]])
            if r[0] == "ext":
                return float(ext[r[1]][r[2]])
            if r[0] == "aff":
                return r[2] * float(own[r[1]]) + r[3]
            return self._constants[r[1]]
        return value

    def to_qasm(self):
        """OpenQASM 2.0 text of the gates, classical registers, measurements and resets, with angles
        as their current numbers; Qiskit's default qasm2.loads reads it (see qasm.py). Noise
        channels and matrix gates without a qelib1.inc form raise ValueError."""
        params, enc, consts = self.encode(detached=True)
        return qasm.write(self.n_qubits, enc, consts, [float(v) for v in params.numpy()], self.classical_registers,
                          self.measurements, self.mid_circuit_measurements, self.encoded_conditions)

    @classmethod
    def from_qasm(cls, text):
        """A circuit from OpenQASM 2.0 text: every qelib1.inc gate, gate definitions, registers,
        measure, reset (see qasm.py); angles as fixed numbers. Malformed input raises ValueError
        naming the line and column."""
        program = qasm.read(text)
        c = cls(program["n_qubits"])
        c._constants = list(program["constants"])
        const = lambda slot: ("const", -slot - 1)  # the reader writes every angle as a constant
        for g, qubits, slots, matrix in gates.decode(list(program["encoding"])):
            refs = (("mat", *matrix),) if matrix is not None else tuple(const(s) for s in slots)
            c._gates.append((g.method, qubits, refs))  # validated by the C++ reader's builder
        c._load_classical(program["cregs"], program["measurements"], program["mid_measurements"],
                          program["conditions"])
        return c

    # ---- Qiskit and OpenQASM 3 (qiskit_bridge.py, qasm3.py; gate table: bridge_gates.py) -------
    @property
    def parameter_names(self):
        """A name per circuit-owned parameter: the Qiskit / OpenQASM 3 name it was imported from,
        else theta_<i>."""
        names = getattr(self, "_parameter_names", {})
        return [names.get(i, f"theta_{i}") for i in range(len(self._own_values))]

    @classmethod
    def from_qiskit(cls, qc, values=None, global_phase=True):
        """A circuit from a Qiskit QuantumCircuit; its unbound Parameters become circuit.parameters
        (in qc.parameters order; ``values``: their initial values). See qiskit_bridge.py."""
        from . import qiskit_bridge
        return qiskit_bridge.from_qiskit(cls, qc, values, global_phase)

    def to_qiskit(self):
        """A Qiskit QuantumCircuit with the circuit-owned parameters as Qiskit Parameters."""
        from . import qiskit_bridge
        return qiskit_bridge.to_qiskit(self)

    @classmethod
    def from_qasm3(cls, text, values=None):
        """A circuit from OpenQASM 3 text; ``input float[64] x;`` parameters become circuit.parameters
        (``values``: their initial values, by name). See qasm3.py."""
        from . import qasm3
        return qasm3.read(cls, text, values)

    def to_qasm3(self):
        """OpenQASM 3 text, the circuit-owned parameters as ``input float[64]`` (see qasm3.py)."""
        from . import qasm3
        return qasm3.write(self)

    # ---- inspection -----------------------------------------------------------------------------
    def __len__(self):
        return len(self._gates)

    def gates(self):
        """[(gate name, qubits tuple)] in order (controls first)."""
        return [(name, qubits) for name, qubits, _ in self._gates]

    def gate_counts(self):
        """{gate name: count}."""
        counts = {}
        for name, _, _ in self._gates:
            counts[name] = counts.get(name, 0) + 1
        return counts

    @property
    def depth(self):
        """Number of layers when each gate starts after the last gate on any of its qubits."""
        level = [0] * self.n_qubits
        for _, qubits, _ in self._gates:
            d = max(level[q] for q in qubits) + 1
            for q in qubits:
                level[q] = d
        return max(level, default=0)

    # Diagram labels of the target row(s) (the controls of each gate come from the gate table).
    _TARGET_LABEL = {"cnot": "X", "ccx": "X", "cy": "Y", "cz": "Z", "cp": "P", "crx": "RX", "cry": "RY",
                     "crz": "RZ", "cu": "U3", "cswap": "x", "swap": "x", "unitary": "U"}

    def _cells(self, name, qubits, refs, value, decimals):
        """{qubit: label} of one gate for the diagram."""
        n_ctrl = gates.BY_METHOD[name].n_controls
        if n_ctrl < 0:  # carried by the encoding (unitary)
            n_ctrl = refs[0][1]
        if name in CHANNEL_OPCODES:  # e.g. AMPLITUDE_DAMPING(0.10), KRAUS_REPR on every qubit it spans
            refs = () if refs and refs[0][0] == "mat" else refs
        label = self._TARGET_LABEL.get(name, name.upper())
        if refs and refs[0][0] != "mat":  # matrix gates and matrix channels show no numbers
            label += "(" + ",".join(f"{value(r):.{decimals}f}" for r in refs) + ")"
        return {q: ("*" if i < n_ctrl else label) for i, q in enumerate(qubits)}

    def diagram(self, decimals=2):
        """Text drawing: one row per qubit (qubit 0 on top), gates packed into depth-ordered columns
        (a gate goes in the first column after every earlier gate on the qubits it spans, so
        columns follow the circuit's order). '*' marks a control, 'x' the two ends of a SWAP, '|'
        the vertical line of a multi-qubit gate crossing a qubit it does not act on; angles are the
        current values rounded to `decimals`, e.g. RY(0.79). Columns are joined by '-'."""
        value = self._angle_values()
        level = [0] * self.n_qubits      # first free column per qubit
        columns = []                     # per column: {qubit: cell text}
        for name, qubits, refs in self._gates:
            cells = self._cells(name, qubits, refs, value, decimals)
            lo, hi = min(qubits), max(qubits)
            col = max(level[lo:hi + 1])
            if col == len(columns):
                columns.append({})
            for q in range(lo, hi + 1):
                columns[col][q] = cells.get(q, "|")
                level[q] = col + 1
        prefix = [f"q{q}: " for q in range(self.n_qubits)]
        width = max(len(p) for p in prefix)
        rows = [p.ljust(width) for p in prefix]
        for column in columns:
            w = max(len(c) for c in column.values())
            for q in range(self.n_qubits):
                rows[q] += "-" + column.get(q, "-").center(w, "-")
        return "\n".join(r + "-" for r in rows)

    def __str__(self):
        """The text diagram (see diagram)."""
        return self.diagram()

    def __repr__(self):
        return f"Circuit(n_qubits={self.n_qubits}, gates={len(self)}, depth={self.depth})"


def _atomic(method):
    """A building method that, when it raises, leaves the circuit as it was before the call (no
    gate, constant, parameter or measurement of the failed call stays)."""
    @functools.wraps(method)
    def call(self, *args, **kwargs):
        mark = self._mark()
        try:
            return method(self, *args, **kwargs)
        except Exception:
            self._restore(mark)
            raise
    return call


# Every method of the gate table, its aliases, and the other methods that record gates.
_BUILDING = [*gates.BY_METHOD, "cx", "toffoli", "fredkin", "controlled_unitary", "universal_two_qubit",
             "superposition_layer", "weak_superposition_layer", "linear_entangled_layer", "real_entangled_layer",
             "complex_entangled_layer", "real_block_layer", "complex_block_layer", "qaoa_layer", "reset",
             "measure_to"]
for _name in _BUILDING:
    if hasattr(Circuit, _name):  # a table entry without a method is caught by test_quantum_modules.py
        setattr(Circuit, _name, _atomic(getattr(Circuit, _name)))
