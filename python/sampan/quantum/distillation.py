"""Entanglement distillation: BBPSSW, DEJMPS (one round and nested over 2^k copies) and
LOCCNet-style learned protocols, all simulated with ``LoccNet`` on density matrices and
differentiable.

Conventions. A two-qubit state has Alice's qubit as qubit 0 and Bob's as qubit 1. The target is
``Phi+ = (|00> + |11>)/sqrt2`` and the distillation **fidelity is** ``F = <Phi+|rho|Phi+>`` (the square of
``info.fidelity(rho, Phi+)``, which follows Paddle Quantum's root convention). Two copies are laid
out as pairs (A0, B0), (A1, B1) (register qubits 0..3: Alice owns [0, 2], Bob [1, 3]); pair 0 is
kept and pair 1 is measured.

References. BBPSSW: Bennett, Brassard, Popescu, Schumacher, Smolin, Wootters, PRL 76, 722 (1996).
DEJMPS: Deutsch, Ekert, Jozsa, Macchiavello, Popescu, Sanpera, PRL 77, 2818 (1996). LOCCNet:
Zhao, Zhao, Wang, Song, Wang, npj Quantum Inf. 7, 159 (2021).
"""
import math
from collections import namedtuple

import numpy as np

import sampan as sp

from . import info as qi
from . import states as qs
from .circuit import Circuit
from .locc import LoccNet, combine
from .matrices import circuit_unitary

_C128 = sp.complex128
_LETTERS = "abcdefghijklmnopqrstuvwx"

Distilled = namedtuple("Distilled", ["state", "success_probability", "fidelity", "rounds"])
Distilled.__doc__ = """Result of a distillation protocol: the normalised output state (2 qubits),
the overall success probability, its fidelity <Phi+|state|Phi+> (float64 scalar tensors), and
per round a (fidelity, success probability of one two-copy step) pair."""


def bell_fidelity(rho):
    """F = <Phi+|rho|Phi+> for a two-qubit density matrix (real float64 scalar, differentiable)."""
    rho = qi.as_density_matrix(rho, "bell_fidelity")
    if rho.shape != (4, 4):
        raise ValueError(f"bell_fidelity: expected a two-qubit state [4, 4], got shape {tuple(rho.shape)}")
    # <Phi+|rho|Phi+> = (rho_00,00 + rho_00,11 + rho_11,00 + rho_11,11) / 2
    return sp.real(rho[0, 0] + rho[0, 3] + rho[3, 0] + rho[3, 3]) * 0.5


def werner_twirl(rho):
    """The isotropic (Werner) state of the same fidelity: F Phi+ + (1 - F)(I - Phi+)/3, what the
    random bilateral rotations of BBPSSW (step 0) leave of any two-qubit state."""
    f = sp.complex(bell_fidelity(rho), sp.zeros_like(bell_fidelity(rho)))
    phi = qs.density_matrix(qs.bell_state("phi+"))
    return phi * f + (sp.eye(4, dtype=_C128) - phi) * ((1 - f) / 3)


def _rx(theta):
    c, s = math.cos(theta / 2), math.sin(theta / 2)
    return np.array([[c, -1j * s], [-1j * s, c]], dtype=np.complex128)


def two_copy_step(rho_a, rho_b=None, rotate=False):
    """One recurrence step on two pairs: (DEJMPS only, rotate=True) Alice applies Rx(pi/2) and
    Bob Rx(-pi/2) to each of their qubits; both apply CNOT (pair 0 controls pair 1); both
    measure their pair-1 qubit in Z; the pair is kept when the outcomes agree ('00' or '11').
    Returns (normalised output state of pair 0, success probability)."""
    rho_b = rho_a if rho_b is None else rho_b
    net = LoccNet()
    net.add_party("Alice", 2)
    net.add_party("Bob", 2)
    s = net.initial_state((rho_a, [("Alice", 0), ("Bob", 0)]), (rho_b, [("Alice", 1), ("Bob", 1)]))
    if rotate:
        # Rx(theta) on both local qubits: kron(Rx, Rx) (each of the two local qubits).
        ra, rb = _rx(math.pi / 2), _rx(-math.pi / 2)
        s = net.apply(s, "Alice", sp.tensor(np.kron(ra, ra)))
        s = net.apply(s, "Bob", sp.tensor(np.kron(rb, rb)))
    bcnot = Circuit(2).cnot(0, 1)
    s = net.apply(s, "Alice", bcnot)
    s = net.apply(s, "Bob", bcnot)
    branches = net.measure(net.measure(s, "Alice", [1]), "Bob", [1])
    kept = combine(b for b in branches if b.outcome in ("00", "11"))
    return kept.state, kept.prob


def _nested(rho, rounds, step):
    if not isinstance(rounds, int) or rounds < 1:
        raise ValueError(f"distillation: rounds must be a positive integer, got {rounds!r}")
    rho = qi.as_density_matrix(rho, "distillation")
    if rho.shape != (4, 4):
        raise ValueError(f"distillation: expected a two-qubit state [4, 4], got shape {tuple(rho.shape)}")
    total = None
    history = []
    for r in range(rounds):
        rho, p = step(rho)
        history.append((bell_fidelity(rho), p))
        # Round r+1 of a nested protocol on 2^rounds copies runs 2^(rounds-r-1) steps, all needing
        # to succeed; the copies are independent, so the probabilities multiply.
        factor = p ** (2 ** (rounds - r - 1))
        total = factor if total is None else total * factor
    return Distilled(rho, total, bell_fidelity(rho), history)


def bbpssw(rho, rounds=1, twirl=True):
    """BBPSSW recurrence on 2^rounds copies of ``rho``. With twirl (the original protocol) the
    input and each output are first turned into the Werner state of the same fidelity, so that
    F' = [F^2 + (1-F)^2/9] / N, N = p_succ = F^2 + 2F(1-F)/3 + 5(1-F)^2/9 round after round.
    twirl=False runs the bare bilateral-CNOT step (then the output is Bell-diagonal)."""
    def step(r):
        out, p = two_copy_step(werner_twirl(r) if twirl else r)
        return (werner_twirl(out) if twirl else out), p
    return _nested(rho, rounds, step)


def dejmps(rho, rounds=1):
    """DEJMPS recurrence on 2^rounds copies of ``rho`` (rotations, bilateral CNOT, keep agreeing
    outcomes). For Bell-diagonal input with A = Phi+, B = Psi-, C = Psi+, D = Phi- one step gives
    N = (A+B)^2 + (C+D)^2, A' = (A^2+B^2)/N, B' = 2CD/N, C' = (C^2+D^2)/N, D' = 2AB/N."""
    return _nested(rho, rounds, lambda r: two_copy_step(r, rotate=True))


# ---- closed forms (the formulas of the papers, for tests and plots) ----------------------------------
def bbpssw_closed_form(f):
    """(F', p_succ) of one BBPSSW round on Werner states of fidelity f (Bennett et al. 1996)."""
    n = f ** 2 + 2 * f * (1 - f) / 3 + 5 * (1 - f) ** 2 / 9
    return (f ** 2 + (1 - f) ** 2 / 9) / n, n


def dejmps_closed_form(a, b, c, d):
    """One DEJMPS step on Bell-diagonal coefficients (A = Phi+, B = Psi-, C = Psi+, D = Phi-):
    returns ((A', B', C', D'), p_succ) (Deutsch et al. 1996)."""
    n = (a + b) ** 2 + (c + d) ** 2
    return ((a * a + b * b) / n, 2 * c * d / n, (c * c + d * d) / n, 2 * a * b / n), n


# ---- LOCCNet-style learned protocols ---------------------------------------------------------------------
ACCEPT_RULES = ("zeros", "agree", "all")


def outcome_patterns(n_copies, accept=None):
    """The accepted outcome strings of an ``n_copies`` -> 1 protocol in which each party measures
    its local qubits 1 .. n-1: a string is Alice's n-1 bits then Bob's n-1 bits (bit j for local
    qubit j + 1). ``accept`` is

    - None or 'zeros': the all-zeros outcome only (1 pattern);
    - 'agree': the parties' outcomes agree qubit by qubit (Alice's bits == Bob's bits), the
      acceptance rule of BBPSSW/DEJMPS and of the LOCCNet tutorial's 4 -> 1 protocol (2^(n-1)
      patterns);
    - 'all': every outcome (4^(n-1) patterns; success probability 1);
    - a list of explicit strings (checked, duplicates removed, order kept)."""
    m = int(n_copies) - 1
    if m < 1:
        raise ValueError(f"outcome_patterns: n_copies must be >= 2, got {n_copies!r}")
    bits = [format(i, f"0{m}b")[::-1] for i in range(2 ** m)]
    if accept is None or (isinstance(accept, str) and accept == "zeros"):
        return ["0" * (2 * m)]
    if isinstance(accept, str):
        if accept == "agree":
            return [a + a for a in bits]
        if accept == "all":
            return [a + b for b in bits for a in bits]
        raise ValueError(f"outcome_patterns: accept must be one of {ACCEPT_RULES} or a list of "
                         f"outcome strings, got {accept!r}")
    out = []
    for a in accept:
        if not isinstance(a, str) or len(a) != 2 * m or set(a) - {"0", "1"}:
            raise ValueError(f"outcome_patterns: accepted outcome {a!r} must be a string of {2 * m} bits "
                             "(Alice's then Bob's)")
        if a not in out:
            out.append(a)
    if not out:
        raise ValueError("outcome_patterns: the accepted set is empty")
    return out


def pareto_front(points):
    """The non-dominated subset of (fidelity, success probability, ...) tuples (both maximised),
    sorted by decreasing fidelity: a point is dropped when another has F >= and P >= with one
    strictly greater. Extra tuple entries are carried along."""
    pts = sorted({tuple(p) for p in points}, key=lambda t: (-t[0], -t[1]))
    front, best_p = [], -math.inf
    for t in pts:
        if t[1] > best_p:
            front.append(t)
            best_p = t[1]
    return front


def dominates(a, b):
    """True when point a = (F, P) dominates b: F_a >= F_b and P_a >= P_b, one strictly."""
    return a[0] >= b[0] and a[1] >= b[1] and (a[0] > b[0] or a[1] > b[1])


class LearnedDistillation:
    """An n-copy -> 1 distillation protocol with party-local parameterised circuits (LOCCNet).

    Register: copy i is the pair (Alice local i, Bob local i). Each party applies its own
    ``Circuit(n_copies)`` (the ansatz below, trainable angles in ``circuit.parameters``), then
    measures its local qubits 1..n-1; the branches whose outcome strings (Alice's bits then
    Bob's) are in the accepted set are kept and pair 0 is the output. The output fidelity is that
    of the accepted mixture, sum_b <Phi+|M_b|Phi+> / sum_b tr M_b, and the success probability
    is sum_b tr M_b.

    ansatz: 'universal' (n = 2: Vatan-Williams universal two-qubit unitary, 15 angles),
    'block' (complex_block_layer(depth): U3 on every qubit and U3-CNOT-U3 blocks on neighbours)
    or 'cycle' (U3 on every qubit, then per layer CNOT 'cycle' and U3 on every qubit: with depth 1
    the LOCCNet tutorial's 4 -> 1 circuit, u3 - cnot('cycle') - u3).
    accept: see ``outcome_patterns`` ('zeros' (default), 'agree', 'all' or a list of strings)."""

    def __init__(self, n_copies=2, ansatz="universal", depth=2, accept=None, seed=0):
        if n_copies < 2:
            raise ValueError(f"LearnedDistillation: n_copies must be >= 2, got {n_copies}")
        self.n_copies = int(n_copies)
        self.ansatz, self.depth = ansatz, depth
        self.net = LoccNet()
        self.net.add_party("Alice", self.n_copies)
        self.net.add_party("Bob", self.n_copies)
        self.circuits = {}
        for k, party in enumerate(("Alice", "Bob")):
            c = Circuit(self.n_copies, seed=seed + k)
            if ansatz == "universal":
                if self.n_copies != 2:
                    raise ValueError("LearnedDistillation: ansatz 'universal' is for 2 copies; use 'block'")
                c.universal_two_qubit(None, 0, 1)
            elif ansatz == "block":
                c.complex_block_layer(depth)
            elif ansatz == "cycle":
                if not isinstance(depth, int) or depth < 1:
                    raise ValueError(f"LearnedDistillation: depth must be a positive integer, got {depth!r}")
                for q in range(self.n_copies):
                    c.u3(None, None, None, q)
                for _ in range(depth):
                    c.cnot("cycle")
                    for q in range(self.n_copies):
                        c.u3(None, None, None, q)
            else:
                raise ValueError("LearnedDistillation: ansatz must be 'universal', 'block' or 'cycle', "
                                 f"got {ansatz!r}")
            self.circuits[party] = c
        try:
            self.accept = outcome_patterns(self.n_copies, accept)
        except ValueError as e:
            raise ValueError(f"LearnedDistillation: {e}") from None
        self.multiplier = 0.0

    def parameters(self):
        """The trainable angle tensors (Alice's, Bob's)."""
        return [self.circuits["Alice"].parameters, self.circuits["Bob"].parameters]

    def initial_state(self, rho):
        """n copies of the two-qubit state ``rho`` (or a list of n states) on the register."""
        copies = list(rho) if isinstance(rho, (list, tuple)) else [rho] * self.n_copies
        if len(copies) != self.n_copies:
            raise ValueError(f"LearnedDistillation: expected {self.n_copies} input states, got {len(copies)}")
        return self.net.initial_state(*[(r, [("Alice", i), ("Bob", i)]) for i, r in enumerate(copies)])

    def run(self, rho, initial=None):
        """Distilled(state, success_probability, fidelity, rounds=[]) for copies of ``rho`` (or a
        prepared ``initial`` LoccState), differentiable in the circuits' angles. Simulated with
        the general LoccNet operations (apply, measure, combine); ``run_fast`` is the same map."""
        s = self.initial_state(rho) if initial is None else initial
        s = self.net.apply(s, "Alice", self.circuits["Alice"])
        s = self.net.apply(s, "Bob", self.circuits["Bob"])
        measured = list(range(1, self.n_copies))
        branches = self.net.measure(self.net.measure(s, "Alice", measured), "Bob", measured)
        kept = combine(b for b in branches if b.outcome in self.accept)
        p = kept.prob
        f = bell_fidelity(kept.matrix) / p
        return Distilled(kept.state, p, f, [])

    def run_fast(self, rho, initial=None):
        """``run`` computed through Kraus operators: for an accepted outcome (a, b) the kept pair
        is W rho W^+ with W = K_A (x) K_B, K = <outcome| U (the 2 rows of the party's unitary
        whose measured bits are the outcome), laid out on the register (Alice local i = qubit
        2i, Bob local i = qubit 2i + 1). Costs 4 x 4^n instead of 16^n per party."""
        s = self.initial_state(rho) if initial is None else initial
        n = self.n_copies
        ua = circuit_unitary(self.circuits["Alice"])
        ub = circuit_unitary(self.circuits["Bob"])
        m = n - 1
        total = None
        for acc in self.accept:
            # Row index of a party's unitary: bit 0 = kept qubit, bits 1.. = measured qubits.
            ra = int(acc[:m][::-1], 2) * 2 if m else 0
            rb = int(acc[m:][::-1], 2) * 2 if m else 0
            ka = sp.reshape(ua[ra:ra + 2], [2] + [2] * n)     # [out, in bits n-1 .. 0]
            kb = sp.reshape(ub[rb:rb + 2], [2] + [2] * n)
            # W[(b_out, a_out), register bits (B_{n-1}, A_{n-1}, ..., B_0, A_0)]
            la, lb = _LETTERS[:n], _LETTERS[n:2 * n]
            spec = "p" + la + ",q" + lb + "->qp" + "".join(lb[j] + la[j] for j in range(n))
            w = sp.reshape(sp.einsum(spec.replace("p", "Y").replace("q", "Z"), ka, kb), [4, 4 ** n])
            mat = sp.matmul(sp.matmul(w, s.matrix), sp.conj(sp.transpose(w, 0, 1)))
            total = mat if total is None else total + mat
        p = sp.real(sp.einsum("ii->", total))
        f = bell_fidelity(total) / p
        return Distilled(total / sp.complex(p, sp.zeros_like(p)), p, f, [])

    def loss(self, res, min_success=None, penalty=50.0, yield_weight=0.0):
        """The training loss of a result ``res`` (a ``Distilled``) and the constraint gap g:

            loss = 1 - F  - yield_weight * log P  + [augmented Lagrangian of P >= min_success]

        The constraint term (with g = min_success - P, multiplier mu = ``self.multiplier`` and
        penalty c) is mu g + c g^2 / 2 where mu + c g > 0, else -mu^2 / (2c) (constant): zero
        gradient once the constraint holds with slack. ``train`` updates mu after each step by
        mu <- max(0, mu + c g). Returns (loss tensor, g as a float, 0 without a constraint)."""
        loss = 1 - res.fidelity
        if yield_weight:
            loss = loss - sp.log(res.success_probability) * float(yield_weight)
        gap = 0.0
        if min_success is not None:
            g = float(min_success) - res.success_probability
            gap = g.item()
            mu, c = self.multiplier, float(penalty)
            if mu + c * gap > 0:
                loss = loss + g * mu + g * g * (c / 2)
        return loss, gap

    def train(self, rho, steps=300, lr=0.05, callback=None, min_success=None, penalty=50.0,
              yield_weight=0.0):
        """Adam on ``loss`` (default 1 - F, F the accepted output fidelity). ``min_success``: keep
        the success probability P >= this target (augmented Lagrangian, penalty ``penalty``; the
        multiplier is kept in ``self.multiplier`` across calls); ``yield_weight`` w > 0 adds
        -w log P (a log-yield term: the optimum trades fidelity for yield as w grows). Returns
        the fidelity after each step's forward pass (a list of floats); the success
        probabilities are in ``self.success_history``."""
        if min_success is not None and not 0 < float(min_success) <= 1:
            raise ValueError(f"LearnedDistillation.train: min_success must be in (0, 1], got {min_success!r}")
        if float(penalty) <= 0:
            raise ValueError(f"LearnedDistillation.train: penalty must be > 0, got {penalty!r}")
        if float(yield_weight) < 0:
            raise ValueError(f"LearnedDistillation.train: yield_weight must be >= 0, got {yield_weight!r}")
        initial = self.initial_state(rho)
        with sp.no_grad():
            initial = type(initial)(initial.matrix.detach(), initial.labels)
        opt = sp.optim.Adam(self.parameters(), lr=lr)
        history, self.success_history = [], []
        for step in range(steps):
            opt.zero_grad()
            res = self.run_fast(None, initial=initial)
            loss, gap = self.loss(res, min_success, penalty, yield_weight)
            loss.backward()
            opt.step()
            if min_success is not None:
                self.multiplier = max(0.0, self.multiplier + float(penalty) * gap)
            history.append(res.fidelity.item())
            self.success_history.append(res.success_probability.item())
            if callback is not None:
                callback(step, res)
        return history
