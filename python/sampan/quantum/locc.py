"""LOCC (local operations and classical communication) on density matrices, differentiable.

Parties own qubits; each qubit of a register is labelled (party, local index). Operations are
party-local: a party applies a circuit (a ``Circuit`` on its local qubits) or a matrix to its own
qubits only, and measures its own qubits. A measurement splits a branch into one branch per kept
outcome; classical communication is the caller choosing the next operation of a branch from
its outcomes (``branch.record``).

A branch (``LoccState``) holds the *unnormalised* post-measurement density matrix, whose trace is
the branch probability (the product of the probabilities of its outcomes), so that probabilities,
normalised states and fidelities are all smooth functions of the circuit angles and gradients
flow through every branch (sp.grad / backward on any scalar computed from branches).

Qubit convention: qubit q of a register is bit q of the index (qubit 0 least significant). The
register's qubit order is the order of ``labels``: ``LoccNet.initial_state`` lays out the given
states' qubits one after the other, e.g. two pairs [(A,0),(B,0)] and [(A,1),(B,1)] give
Alice global qubits [0, 2] and Bob [1, 3].

    net = LoccNet()
    net.add_party("Alice", 2); net.add_party("Bob", 2)
    s = net.initial_state((rho, [("Alice", 0), ("Bob", 0)]), (rho, [("Alice", 1), ("Bob", 1)]))
    s = net.apply(s, "Alice", circuit_a)          # Circuit(2) on Alice's local qubits 0, 1
    s = net.apply(s, "Bob", circuit_b)
    branches = net.measure(s, "Alice", [1], ["0", "1"])   # one branch per kept outcome
    branches = net.measure(branches, "Bob", [1], ["0", "1"])
    kept = [b for b in branches if b.outcome in ("00", "11")]
"""
import numbers

import numpy as np

import sampan as sp

from . import info as qi
from .circuit import Circuit
from .matrices import circuit_unitary, conjugate_density_matrix

_C128 = sp.complex128


class LoccState:
    """One branch of an LOCC protocol.

    matrix   -- the unnormalised density matrix (complex128 [2^n, 2^n]); its trace is ``prob``
    labels   -- (party, local qubit) of each register qubit, qubit 0 first
    outcome  -- every measured bit of this branch, in measurement order (a string)
    record   -- ((party, local qubits, bits), ...) one entry per measurement
    """

    def __init__(self, matrix, labels, outcome="", record=()):
        self.matrix = matrix
        self.labels = tuple(labels)
        self.outcome = outcome
        self.record = tuple(record)
        if matrix.shape != (2 ** len(self.labels), 2 ** len(self.labels)):
            raise ValueError(f"LoccState: a matrix of shape {tuple(matrix.shape)} does not match "
                             f"{len(self.labels)} labelled qubits")

    @property
    def n_qubits(self):
        return len(self.labels)

    @property
    def prob(self):
        """The probability of this branch (float64 scalar tensor)."""
        return sp.real(sp.einsum("ii->", self.matrix))

    @property
    def state(self):
        """The normalised density matrix of this branch."""
        p = self.prob
        return self.matrix / sp.complex(p, sp.zeros_like(p))

    def qubit(self, party, local):
        """The register index of (party, local)."""
        try:
            return self.labels.index((party, int(local)))
        except ValueError:
            raise ValueError(f"LoccState: qubit {local} of party '{party}' is not in this register "
                             f"(labels {list(self.labels)})") from None

    def party_qubits(self, party):
        """The local indices of ``party``'s qubits in this register, in increasing order."""
        return sorted(l for p, l in self.labels if p == party)

    def __repr__(self):
        return (f"LoccState(n_qubits={self.n_qubits}, prob={self.prob.item():.6g}, "
                f"outcome='{self.outcome}', labels={list(self.labels)})")


class LoccNet:
    """Parties and party-local operations on ``LoccState`` branches (see the module doc).

    Every operation takes one branch or a list of branches and returns the same kind."""

    def __init__(self):
        self.parties = {}

    # ---- parties and initial states ---------------------------------------------------------
    def add_party(self, name, n_qubits):
        """A party ``name`` owning local qubits 0 .. n_qubits-1. Returns the name."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"LoccNet.add_party: a party name is a non-empty string, got {name!r}")
        if name in self.parties:
            raise ValueError(f"LoccNet.add_party: party '{name}' already exists")
        if not isinstance(n_qubits, numbers.Integral) or n_qubits < 1:
            raise ValueError(f"LoccNet.add_party: n_qubits must be a positive integer, got {n_qubits!r}")
        self.parties[name] = int(n_qubits)
        return name

    def _check_label(self, party, local, who):
        if party not in self.parties:
            raise ValueError(f"LoccNet.{who}: unknown party '{party}' (parties: {sorted(self.parties)})")
        if not isinstance(local, numbers.Integral) or not 0 <= local < self.parties[party]:
            raise ValueError(f"LoccNet.{who}: party '{party}' has local qubits 0 to "
                             f"{self.parties[party] - 1}, got {local!r}")

    def initial_state(self, *pieces):
        """The product state of ``pieces``, each (state, [(party, local), ...]) with state a ket or
        a density matrix on as many qubits as labels; the first piece's qubits come first
        (lowest register indices). Each (party, local) may appear once."""
        if not pieces:
            raise ValueError("LoccNet.initial_state: give at least one (state, labels) pair")
        labels, rho = [], None
        for state, lab in pieces:
            lab = [(p, int(l)) for p, l in lab]
            m = qi.as_density_matrix(state, "LoccNet.initial_state")
            if m.shape[0] != 2 ** len(lab):
                raise ValueError(f"LoccNet.initial_state: a state of dimension {m.shape[0]} needs "
                                 f"{int(np.log2(m.shape[0]))} labels, got {len(lab)}: {lab}")
            for p, l in lab:
                self._check_label(p, l, "initial_state")
                if (p, l) in labels:
                    raise ValueError(f"LoccNet.initial_state: qubit {l} of party '{p}' appears twice")
                labels.append((p, l))
            # New qubits take the next (higher) register indices: kron(new, old) in NumPy order.
            rho = m if rho is None else _kron(m, rho)
        return LoccState(rho, labels)

    # ---- local operations ---------------------------------------------------------------------
    def _local_register(self, state, party, local_qubits, who):
        if party not in self.parties:
            raise ValueError(f"LoccNet.{who}: unknown party '{party}' (parties: {sorted(self.parties)})")
        if local_qubits is None:
            local_qubits = state.party_qubits(party)
        elif isinstance(local_qubits, numbers.Integral):
            local_qubits = [local_qubits]
        local_qubits = [int(l) for l in local_qubits]
        if len(set(local_qubits)) != len(local_qubits):
            raise ValueError(f"LoccNet.{who}: local qubits {local_qubits} of '{party}' repeat a qubit")
        return local_qubits, [state.qubit(party, l) for l in local_qubits]

    def apply(self, states, party, operation, local_qubits=None):
        """``operation`` on ``party``'s qubits ``local_qubits`` (default: all of the party's qubits
        in the register, in increasing local order): a ``Circuit`` whose qubit j is
        local_qubits[j], or a unitary tensor [2^k, 2^k] (bit j of its index is local_qubits[j])."""
        single = isinstance(states, LoccState)
        out = []
        unitary = None
        for s in ([states] if single else states):
            local, reg = self._local_register(s, party, local_qubits, "apply")
            if unitary is None:
                if isinstance(operation, Circuit):
                    if operation.n_qubits != len(local):
                        raise ValueError(f"LoccNet.apply: a circuit on {operation.n_qubits} qubits for "
                                         f"{len(local)} local qubits {local} of '{party}'")
                    unitary = circuit_unitary(operation)
                else:
                    unitary = sp.as_tensor(operation).to(_C128)
                    if unitary.shape != (2 ** len(local), 2 ** len(local)):
                        raise ValueError(f"LoccNet.apply: a matrix on {len(local)} local qubits must be "
                                         f"{2 ** len(local)}x{2 ** len(local)}, got {tuple(unitary.shape)}")
            m = conjugate_density_matrix(s.matrix, unitary, reg, s.n_qubits)
            out.append(LoccState(m, s.labels, s.outcome, s.record))
        return out[0] if single else out

    def measure(self, states, party, local_qubits, outcomes=None, discard=True):
        """Measures ``party``'s ``local_qubits`` in the computational basis and keeps the branches
        of ``outcomes`` (bit strings, bit j for local_qubits[j]; default all 2^k). Each kept
        branch's matrix is projected (its trace multiplies in the outcome's probability) and its
        outcome string and record are extended. ``discard=True`` removes the measured qubits from
        the register; False keeps them, collapsed. Returns a list of branches (for a list input,
        the branches of each input in order)."""
        states = [states] if isinstance(states, LoccState) else list(states)
        out = []
        for s in states:
            local, reg = self._local_register(s, party, local_qubits, "measure")
            k = len(local)
            wanted = [format(i, f"0{k}b")[::-1] for i in range(2 ** k)] if outcomes is None else list(outcomes)
            for bits in wanted:
                if not isinstance(bits, str) or len(bits) != k or set(bits) - {"0", "1"}:
                    raise ValueError(f"LoccNet.measure: outcome {bits!r} must be a string of {k} bits "
                                     f"(one per local qubit {local})")
                m, labels = _project(s.matrix, s.labels, reg, bits, discard)
                out.append(LoccState(m, labels, s.outcome + bits, s.record + ((party, tuple(local), bits),)))
        return out

    def discard(self, states, party, local_qubits):
        """Traces out ``party``'s ``local_qubits`` (no measurement record)."""
        single = isinstance(states, LoccState)
        out = []
        for s in ([states] if single else states):
            _, reg = self._local_register(s, party, local_qubits, "discard")
            m = qi.partial_trace(s.matrix, reg) if len(reg) < s.n_qubits else sp.reshape(sp.einsum("ii->", s.matrix), [1, 1])
            out.append(LoccState(m, [lab for q, lab in enumerate(s.labels) if q not in reg], s.outcome, s.record))
        return out[0] if single else out


def combine(branches):
    """One branch holding the mixture of ``branches`` (same labels): the sum of their
    unnormalised matrices, i.e. the state given that any of them occurred, with probability the
    sum of theirs. Its outcome is '' and its record the branches' outcomes."""
    branches = list(branches)
    if not branches:
        raise ValueError("combine: no branches")
    labels = branches[0].labels
    for b in branches[1:]:
        if b.labels != labels:
            raise ValueError(f"combine: branches with different registers {list(labels)} and {list(b.labels)}")
    m = branches[0].matrix
    for b in branches[1:]:
        m = m + b.matrix
    return LoccState(m, labels, "", tuple(b.outcome for b in branches))


def _kron(a, b):
    m, p = a.shape[0], b.shape[0]
    return sp.reshape(sp.einsum("ab,cd->acbd", a, b), [m * p, m * p])


def _project(matrix, labels, reg, bits, discard):
    """(P matrix P, labels) for the projector on register qubits ``reg`` = ``bits``; with discard
    the measured qubits are sliced out instead (the same block, without them)."""
    n = len(labels)
    if discard:
        index = [slice(None)] * (2 * n)
        for q, b in zip(reg, bits):
            index[n - 1 - q] = int(b)            # row axis of qubit q
            index[2 * n - 1 - q] = int(b)        # column axis
        kept = n - len(reg)
        block = sp.reshape(matrix, [2] * (2 * n))[tuple(index)]
        d = 2 ** kept
        new_labels = [lab for q, lab in enumerate(labels) if q not in reg]
        return sp.reshape(block, [d, d]), new_labels
    idx = np.arange(2 ** n)
    mask = np.ones(2 ** n)
    for q, b in zip(reg, bits):
        mask *= ((idx >> q) & 1) == int(b)
    proj = sp.tensor(np.outer(mask, mask).astype(np.complex128))
    return matrix * proj, list(labels)
