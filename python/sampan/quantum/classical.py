"""Classical registers and measurements recorded on a ``Circuit`` (its methods, mixed into it by
circuit.py): what OpenQASM's
``creg`` and ``measure q -> c`` mean, and the counts they produce.

* ``c.creg("c", 3)`` declares a classical register; registers are laid out in declaration order
  (classical bit index = offset of the register + index in it).
* ``c.measure_to(qubits, clbits)`` records that each qubit is measured into a classical bit.
  A measurement that no later gate touches is *terminal*: it is recorded, not applied, so
  ``state()``, ``expectation()`` and the gradients see the circuit before it, and ``counts()``
  samples it. When a later gate (or reset) acts on a measured qubit, the measurement becomes
  *mid-circuit*: the circuit gets the non-selective measurement channel rho -> P0 rho P0 +
  P1 rho P1 on that qubit (a Kraus channel, so the circuit then runs on density matrices, where
  it is exact), and ``counts()`` branches on its outcomes.
* ``with c.condition("m", 1): c.x(2)`` makes gates classically controlled (OpenQASM's
  ``if (m == 1) x q[2];``): they run only where the register holds the value, read once when the
  block starts. Measurements into the register recorded before become mid-circuit. Inside the
  block, ``measure_to`` is a mid-circuit measurement made only there (into bits of other
  registers) and ``reset(q)`` a reset made only there. Such a circuit has no single state, so
  ``encode`` (state, expectation, density matrix) refuses it; ``counts()`` follows the branches.
* ``c.counts(shots, seed)`` returns Qiskit-style counts: the key lists every classical register,
  the LAST declared first, separated by spaces, each with its bit 0 as the last character
  (Qiskit's ``get_counts()`` format); bits never written read 0.

Counts with mid-circuit measurements, resets and conditions take one of two paths (both exact in
distribution, see ``counts``): without noise, shot branching on pure states in C++
(run_measured_circuit in sampan/quantum/distributed.h: the shots travel together and split at
each random outcome; the same code and draws as ``sampan quantum run`` and
``sampan.quantum.distributed.run``, distributed under mpirun); with noise, the density matrix
followed along every branch of outcomes (probabilities from ``quantum::probabilities``, the
normalised post-measurement state from ``quantum::measure``), shots split between the final
branches by a seeded multinomial draw, and each branch's terminal measurements sampled from its
own state.

The methods record through the Circuit's recording interface (``_select``, ``_add``, ``_gates``,
defined in circuit.py) and measure through measurement.py; this module imports no module of
sampan.quantum that imports it.
"""
import numbers
import re

import numpy as np

import sampan as sp

from . import measurement
from .qubit_order import DEFAULT_ORDER, check_order
from .gates import CHANNEL_OPCODES
from .noise import MEASUREMENT_KRAUS

_MAX_BRANCHES = 4096


class ClassicalMixin:
    """creg / measure_to / counts of ``Circuit`` (see the module docstring)."""

    def _init_classical(self):
        self._cregs = []       # [(name, size)] in declaration order
        self._terminal = {}    # clbit -> qubit: terminal measurements (recorded, not applied)
        self._mid = []         # [(index in _gates of the measurement channel, qubit, [clbits])]
        self._conditions = []  # [(first gate, end gate, clbit offset, n bits, value)]: if (creg == value)
        self._open_condition = None

    def _load_classical(self, cregs, measurements, mid_measurements, conditions):
        """Sets the registers and measurements as the C++ QASM reader gives them (Circuit.from_qasm):
        cregs [(name, size)], terminal measurements [(qubit, clbit)], mid-circuit ones
        [(gate, qubit, clbits)], conditions [(first gate, end gate, clbit offset, n bits, value)]."""
        self._cregs = [(name, int(size)) for name, size in cregs]
        self._terminal = {int(b): int(q) for q, b in measurements}
        self._mid = [(int(g), int(q), [int(b) for b in bits]) for g, q, bits in mid_measurements]
        self._conditions = [tuple(int(x) for x in k) for k in conditions]

    @property
    def encoded_conditions(self):
        """The classical conditions as [(first gate, end gate, clbit offset, n bits, value)], as the
        C++ QASM writer and the shot-branching runner take them (classical_conditions names the
        register instead of its bits)."""
        return [tuple(k) for k in self._conditions]

    # ---- declarations ---------------------------------------------------------------------------
    def creg(self, name, size):
        """Declares the classical register `name` of `size` bits (after the existing ones)."""
        if not isinstance(name, str) or not re.fullmatch(r"[a-z][A-Za-z0-9_]*", name):
            raise ValueError(f"Circuit.creg: a register name is a lowercase letter then letters, digits or _, "
                             f"got {name!r}")
        if any(name == n for n, _ in self._cregs):
            raise ValueError(f"Circuit.creg: the classical register {name!r} is declared twice")
        if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size < 1:
            raise ValueError(f"Circuit.creg: register {name!r} needs a size >= 1, got {size!r}")
        self._cregs.append((name, int(size)))
        return self

    @property
    def classical_registers(self):
        """[(name, size)] in declaration order."""
        return list(self._cregs)

    @property
    def n_clbits(self):
        return sum(size for _, size in self._cregs)

    @property
    def measurements(self):
        """Terminal measurements [(qubit, clbit)], by classical bit."""
        return sorted(((q, b) for b, q in self._terminal.items()), key=lambda qb: qb[1])

    @property
    def mid_circuit_measurements(self):
        """[(gate index of the measurement channel, qubit, [clbits])] in circuit order."""
        return [(g, q, list(bs)) for g, q, bs in self._mid]

    @property
    def classical_conditions(self):
        """[(first gate index, end gate index, classical register name, value)]: the gates
        [first, end) run only where the register holds value (OpenQASM's if (creg == value))."""
        names = {}
        offset = 0
        for name, size in self._cregs:
            names[(offset, size)] = name
            offset += size
        return [(b, e, names[(off, n)], v) for b, e, off, n, v in self._conditions]

    def _register(self, name):
        offset = 0
        for n, size in self._cregs:
            if n == name:
                return offset, size
            offset += size
        raise ValueError(f"Circuit: unknown classical register {name!r} (declared: {[n for n, _ in self._cregs]})")

    def condition(self, creg, value):
        """A context in which every gate added runs only where the classical register `creg` holds
        `value` (bit 0 of the register the least significant), as OpenQASM's if (creg == value):
            with c.condition("m", 1):
                c.x(2)
        Measurements into that register recorded earlier become mid-circuit (their outcome is read
        here). Such a circuit has no single state: only counts() runs it."""
        offset, size = self._register(creg)
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
            raise ValueError(f"Circuit.condition: the value is a non-negative integer, got {value!r}")
        circuit = self

        class _Condition:
            def __enter__(self_):
                if circuit._open_condition is not None:
                    raise ValueError("Circuit.condition: conditions do not nest")
                for b in range(offset, offset + size):
                    if b in circuit._terminal:
                        circuit._before_gate([circuit._terminal[b]])
                circuit._open_condition = [len(circuit._gates), offset, size, int(value)]
                return circuit

            def __exit__(self_, *exc):
                begin, off, n, v = circuit._open_condition
                circuit._open_condition = None
                if len(circuit._gates) > begin:
                    circuit._conditions.append((begin, len(circuit._gates), off, n, v))
                return False
        return _Condition()

    def measure_to(self, qubits, clbits=None):
        """Measures each of `qubits` (an index, a list or 'full') into the classical bit of the same
        position in `clbits` (default: the same indices; a register 'c' of n_qubits bits is declared
        when there is none). See the module docstring for terminal and mid-circuit measurements."""
        qs = self._select(qubits, "measure_to")
        if clbits is None:
            if not self._cregs:
                self.creg("c", self.n_qubits)
            clbits = qs
        bs = [clbits] if isinstance(clbits, numbers.Integral) else list(clbits)
        if len(bs) != len(qs):
            raise ValueError(f"Circuit.measure_to: {len(qs)} qubit(s) but {len(bs)} classical bit(s)")
        for b in bs:
            if isinstance(b, bool) or not isinstance(b, numbers.Integral) or not 0 <= b < self.n_clbits:
                raise IndexError(f"Circuit.measure_to: classical bit {b!r} is out of range: the registers "
                                 f"{self._cregs} hold {self.n_clbits} bits")
        if self._open_condition is not None:
            for q, b in zip(qs, bs):
                self._conditional_measurement(int(q), int(b))
            return self
        for q, b in zip(qs, bs):
            old = self._terminal.get(int(b))
            if old is not None and old != int(q):
                # that measurement still collapsed its qubit: made here (mid-circuit), its bit
                # overwritten by this one later, so later gates on it see the collapse
                self._before_gate([old])
            self._terminal[int(b)] = int(q)
        return self

    def _conditional_measurement(self, q, b):
        """measure_to inside a condition: made where it stands (a mid-circuit measurement inside the
        conditional range), since only the branches where the condition holds make it."""
        begin, off, n, _ = self._open_condition
        if off <= b < off + n:
            raise ValueError(f"Circuit.measure_to: classical bit {b} belongs to the register the open condition "
                             "reads; a condition reads its register once, so it cannot also write it (end the "
                             "condition first, or write the measurement as OpenQASM's one-statement if)")
        if b in self._terminal:  # measured before into b: that outcome is overwritten only in some branches
            if len(self._gates) != begin:
                raise ValueError(f"Circuit.measure_to: classical bit {b} holds a pending measurement, which must be "
                                 "made before the condition: measure into it after the condition, or start the "
                                 "condition with this measurement")
            self._before_gate([self._terminal[b]])
        self._before_gate([q])
        self._mid.append((len(self._gates), q, [b]))
        self.kraus_repr(list(MEASUREMENT_KRAUS), q)

    def _before_gate(self, qubits):
        """Called by _add before a gate on `qubits`: their pending measurements become mid-circuit."""
        for q in qubits:
            bits = sorted(b for b, mq in self._terminal.items() if mq == q)
            if not bits:
                continue
            if self._open_condition is not None and self._open_condition[0] == len(self._gates):
                self._open_condition[0] += 1  # the measurement itself is not conditional
            elif self._open_condition is not None:
                raise ValueError(f"Circuit: qubit {q} has a measurement pending from before the condition, and a "
                                 "gate inside the condition (not its first) touches it: that measurement must be "
                                 "made before the condition; touch the qubit first thing in the condition, or "
                                 "before it")
            for b in bits:
                del self._terminal[b]
            self._mid.append((len(self._gates), int(q), bits))
            self.kraus_repr(list(MEASUREMENT_KRAUS), int(q))

    # ---- counts ---------------------------------------------------------------------------------
    def _key(self, values):
        """Qiskit's counts key of classical bit values {clbit: 0/1}."""
        words, offset = [], 0
        for _, size in self._cregs:
            words.append("".join(str(values.get(offset + i, 0)) for i in reversed(range(size))))
            offset += size
        return " ".join(reversed(words))

    def register_counts(self, qubit_counts):
        """Counts of the classical registers from counts of all qubits ({bitstring with qubit n-1
        first: count}, as sample() and the distributed runner give), for terminal measurements only:
        sampling every qubit and keeping the measured ones has the same distribution."""
        if self._mid:
            raise ValueError("Circuit.register_counts: the circuit measures mid-circuit; use counts()")
        n = self.n_qubits
        out = {}
        for bits, k in qubit_counts.items():
            key = self._key({b: int(bits[n - 1 - q]) for b, q in self._terminal.items()})
            out[key] = out.get(key, 0) + k
        return dict(sorted(out.items()))

    def reset(self, qubits):
        """Resets each selected qubit to ``|0>`` (OpenQASM's reset; the reset channel with (p0, p1) = (1, 0))."""
        return self.reset_channel((1.0, 0.0), qubits)

    @property
    def state_vector_runnable(self):
        """Whether every channel is a mid-circuit measurement or a reset to ``|0>`` with fixed
        numbers (True without channels): then the circuit's shots run on pure states by shot
        branching (counts(method='statevector'), sampan.quantum.distributed.run)."""
        mids = {g for g, _, _ in self._mid}
        for k, (name, _, refs) in enumerate(self._gates):
            if name == "kraus_repr" and k in mids:
                continue
            if name == "reset_channel" and all(r[0] == "const" for r in refs) and \
                    [self._constants[r[1]] for r in refs] == [1.0, 0.0]:
                continue
            if name in CHANNEL_OPCODES:
                return False
        return True

    def measured_program(self):
        """The arguments of the C++ shot-branching runner (sp._C.quantum_run_measured_circuit):
        (params [floats], encoding, constants, n_clbits, terminal measurements [(qubit, clbit)],
        mid-circuit measurements [(gate, qubit, [clbits])], encoded_conditions), angles as their
        current numbers."""
        params, enc, consts = self.encode(detached=True)
        return ([float(v) for v in params.numpy().reshape(-1)], enc, consts, self.n_clbits,
                [(q, b) for b, q in sorted(self._terminal.items())],
                [(g, q, list(bits)) for g, q, bits in self._mid], self.encoded_conditions)

    def counts(self, shots, seed=None, method="auto", order=DEFAULT_ORDER):
        """See _counts; order='big' writes each key with classical bit 0 first (the little key reversed:
        registers in declaration order, each register's bit 0 first)."""
        check_order(order, "Circuit.counts")
        out = self._counts(shots, seed, method)
        return out if order == "little" else dict(sorted((k[::-1], v) for k, v in out.items()))

    def _counts(self, shots, seed=None, method="auto"):
        """{classical-register key: count} over `shots` runs (see the module docstring for the key).
        seed: an int for reproducible counts. method: 'statevector' runs the shots on pure states
        by shot branching (C++ run_measured_circuit, the same code and draws as `sampan quantum run`
        and sampan.quantum.distributed.run, in one process here); 'density_matrix' follows every
        branch of outcomes on density matrices exactly and splits the shots by a multinomial draw;
        'auto' takes 'statevector' for a circuit with mid-circuit measurements, resets or
        conditions and no other channel, 'density_matrix' when it has noise, and samples the final
        state directly when it only has terminal measurements. The methods agree in distribution,
        not shot for shot."""
        if isinstance(shots, bool) or not isinstance(shots, numbers.Integral) or shots < 0:
            raise ValueError(f"Circuit.counts: shots must be a non-negative integer, got {shots!r}")
        if method not in ("auto", "statevector", "density_matrix"):
            raise ValueError(f"Circuit.counts: method is 'auto', 'statevector' or 'density_matrix', got {method!r}")
        if not self._terminal and not self._mid and not self._conditions:
            raise ValueError("Circuit.counts: the circuit records no measurement (measure_to); use sample() "
                             "for outcomes of qubits")
        if method == "statevector" or (method == "auto" and self.state_vector_runnable and
                                       (self._mid or self._conditions or self.has_channels)):
            if not self.state_vector_runnable:
                raise ValueError("Circuit.counts: method='statevector' runs only measurements and resets as channels; "
                                 "this circuit has noise: use method='density_matrix'")
            return self._counts_state_vector(int(shots), seed)
        if not self._mid and not self._conditions:
            branches = [(1.0, None, {})]
        else:
            branches = self._branches()
        rng = np.random.default_rng(seed)
        weights = np.array([w for w, _, _ in branches])
        per_branch = rng.multinomial(int(shots), weights / weights.sum())
        terminal = sorted(self._terminal.items())
        qubits = sorted({q for _, q in terminal})
        out = {}
        for k, ((_, state, values), n) in enumerate(zip(branches, per_branch)):
            if n == 0:
                continue
            if qubits:
                if state is None:
                    state = self._final_state(None).detach()
                s = None if seed is None else int(seed) + 1 + k
                gen = None if s is not None else sp.Generator(int(rng.integers(2 ** 62)))
                outcomes = self._sample_outcomes(state, qubits, int(n), s, gen)
            else:
                outcomes = [0] * int(n)
            for o in outcomes:
                v = dict(values)
                for b, q in terminal:
                    v[b] = (int(o) >> qubits.index(q)) & 1
                key = self._key(v)
                out[key] = out.get(key, 0) + 1
        return dict(sorted(out.items()))

    def _counts_state_vector(self, shots, seed, use_mpi=False):
        if seed is None:
            seed = int(np.random.default_rng().integers(2 ** 62))
        params, enc, consts, n_clbits, terminal, mids, conditions = self.measured_program()
        r = sp._C.quantum_run_measured_circuit(self.n_qubits, enc, params, consts, n_clbits, terminal, mids,
                                               conditions, shots, int(seed), use_mpi=use_mpi)
        return self.register_keys(r["register_counts"])

    def register_keys(self, bit_counts):
        """Counts keyed like counts() (Qiskit's register keys) from [(bits, count)] with character b
        of bits the value of classical bit b, as the C++ shot-branching runner gives them."""
        out = {}
        for bits, k in bit_counts:
            key = self._key({b: int(ch) for b, ch in enumerate(bits)})
            out[key] = out.get(key, 0) + int(k)
        return dict(sorted(out.items()))

    def _sample_outcomes(self, state, qubits, shots, seed, generator):
        return measurement.sample(state, qubits, shots, seed, generator, "outcomes").numpy().tolist()

    def _segment(self, start, stop):
        """A circuit of gates [start, stop) sharing this one's angles (values only, no gradient)."""
        sub = type(self)(self.n_qubits)
        value = self._angle_values()
        sub._gates = list(self._gates[start:stop])
        n_own = len(self._own_values)
        sub._own_values = [value(("own", i)) for i in range(n_own)]
        sub._external = [t.detach() for t in self._external]
        sub._constants = self._constants
        return sub

    def _branches(self):
        """[(probability, final density matrix, {clbit: bit} of the mid-circuit outcomes)]:
        the density matrix followed through every branch of mid-circuit outcomes. A conditional
        range reads its register when it starts; in the branches where it holds, its gates and
        channels are applied and its measurements split the branch."""
        dim = 2 ** self.n_qubits
        rho0 = np.zeros((dim, dim), dtype=np.complex128)
        rho0[0, 0] = 1
        branches = [[1.0, sp.tensor(rho0), {}, True]]  # [weight, rho, clbit values, condition holds]
        n_gates = len(self._gates)
        mids = {g: (q, bits) for g, q, bits in self._mid}
        condition_at = {}
        for b, e, off, n, v in self._conditions:
            for g in range(b, e):
                condition_at[g] = (b, off, n, v)
        stops = sorted(set(mids) | {g + 1 for g in mids} | {b for b, _, _, _, _ in self._conditions} |
                       {e for _, e, _, _, _ in self._conditions} | {n_gates})

        def run(rho, start, stop):
            seg = self._segment(start, stop)
            if not len(seg):
                return rho
            params, enc, consts = seg.encode()
            return sp.ops.quantum.evolve_density_matrix(params, rho, enc, consts).detach()

        def register(values, off, n):
            return sum(values.get(off + i, 0) << i for i in range(n))

        g = 0
        while g < n_gates:
            cond = condition_at.get(g)
            if cond is not None and cond[0] == g:  # the range starts: its register is read now
                for br in branches:
                    br[3] = register(br[2], cond[1], cond[2]) == cond[3]
            live = [br for br in branches if cond is None or br[3]]
            if g in mids:
                q, bits = mids[g]
                nxt = [br for br in branches if not (cond is None or br[3])]
                for w, rho, values, holds in live:
                    probs = measurement.probabilities(rho, [q]).numpy()
                    for bit in (0, 1):
                        if probs[bit] * w <= 1e-14:
                            continue
                        post, _ = measurement.measure(rho, [q], [bit])
                        v = dict(values)
                        for b in bits:
                            v[b] = bit
                        nxt.append([w * float(probs[bit]), post.detach(), v, holds])
                if len(nxt) > _MAX_BRANCHES:
                    raise ValueError(f"Circuit.counts: more than {_MAX_BRANCHES} branches of mid-circuit measurement "
                                     "outcomes; use method='statevector'")
                branches = nxt
                g += 1
                continue
            stop = next(x for x in stops if x > g)
            for br in live:
                br[1] = run(br[1], g, stop)
            g = stop
        return [(w, rho, v) for w, rho, v, _ in branches]
