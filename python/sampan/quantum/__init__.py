"""sampan.quantum: differentiable state-vector circuits.

Qubit convention: qubit q is bit q of the amplitude index (qubit 0 is the least significant
bit), so ``circuit.state()[i]`` is the amplitude of ``|q_{n-1} ... q_1 q_0>`` with i = sum q_j 2^j.

    import sampan as sp
    from sampan.quantum import Circuit, Hamiltonian
    c = Circuit(2)
    c.ry(None, 'full'); c.cnot(0, 1)            # None: a new trainable parameter
    h = Hamiltonian([(1.0, "Z0 Z1"), (0.5, "X0")])
    e = c.expectation(h)                        # differentiable sp scalar (adjoint method)
    e.backward(); c.parameters.grad

The simulation runs in the C++ ops ``sp.ops.quantum.expectation`` / ``statevector``.
Noise channels (``c.depolarizing(0.05)``, ``c.amplitude_damping(g, 0)``, ``c.kraus_repr(ks, [0, 1])``
...) make the circuit run on density matrices (``dm_expectation`` / ``density_matrix`` ops, adjoint
gradients through channels); ``c.probabilities()``, ``c.sample(shots, seed=...)`` and
``c.measure(qubits, outcome)`` work on both; ``DensityMatrix`` wraps a mixed state.

Modules: ``gates`` (the gate and channel table, read from C++), ``circuit`` (Circuit: building,
encoding, simulation), ``noise`` (its channel methods), ``classical`` (its classical registers,
recorded measurements and counts), ``measurement`` (probabilities, samples and post-selected
measurement of a state), ``density_matrix`` (DensityMatrix), ``qasm`` (OpenQASM 2.0 text),
``hamiltonian``, ``distributed`` (MPI runs) and ``cli``. Each imports only modules below it.

Submodules in pure Python over sp tensors (differentiable): ``states`` (Bell, GHZ, W, Werner,
S/R-states, Bell-diagonal, seeded random states and Haar unitaries), ``info`` (partial trace and
transpose, fidelity, trace distance, entropies, negativity, PPT, Schmidt decomposition),
``matrices`` (differentiable circuit unitaries), ``locc`` (parties, local circuits, measurement
branches) and ``distillation`` (BBPSSW, DEJMPS, LOCCNet-style learned protocols).
"""
from .gates import CHANNEL_OPCODES, OPCODES
from .circuit import Circuit
from .density_matrix import DensityMatrix
from .hamiltonian import Hamiltonian
from . import chemistry, qml  # VQE (H2), QAOA (MaxCut), quantum kernels
from . import distillation, info, locc, matrices, states

__all__ = ["Circuit", "DensityMatrix", "CHANNEL_OPCODES", "Hamiltonian", "OPCODES", "chemistry", "distillation", "info", "locc", "matrices", "qml", "states"]
