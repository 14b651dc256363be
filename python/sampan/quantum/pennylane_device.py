"""The PennyLane device ``qml.device("sampan.qubit", wires=n)`` (class ``SampanQubit``, PennyLane's
``pennylane.devices.Device`` API; entry point declared in pyproject.toml).

Each tape is turned into a sampan Circuit (gates through the one table of bridge_gates.py, by the
PennyLane names of ``_NAMES``; anything else is decomposed by PennyLane's ``decompose`` transform
into them first) and run by sampan's C++ ops: ``expval`` of Pauli words and their sums
(Hamiltonians, via ``pauli_rep``), ``qml.state()`` and ``qml.probs(wires=...)``, analytic only
(a tape with shots is refused). Derivatives are sampan's adjoint gradient, provided by the device
(``supports_derivatives`` / ``compute_derivatives``), so ``diff_method="device"`` or ``"best"``
uses it; ``diff_method="parameter-shift"`` and the like work as with any device.

Wire order: PennyLane's wire 0 is the MOST significant bit of a state index, sampan's qubit 0 the
least; device wire position w is sampan qubit n - 1 - w, so states and probabilities come out in
PennyLane's order with no permutation. PennyLane is imported lazily (the optional extra 'pennylane').
"""
from dataclasses import replace

import numpy as np

import sampan as sp

from . import bridge_gates
from .bridge_gates import Angle, constant
from .circuit import Circuit
from .hamiltonian import Hamiltonian

try:
    import pennylane as qml
    from pennylane.devices import Device
    from pennylane.devices.preprocess import (decompose, no_sampling, validate_device_wires, validate_measurements,
                                              validate_observables)
    from pennylane.transforms import broadcast_expand
    from pennylane.transforms.core import CompilePipeline
except ImportError as e:  # this module is only imported by PennyLane's plugin loader or by name
    raise ImportError("the sampan.qubit device needs the optional extra 'pennylane' (pip install sampan[pennylane])") from e

# PennyLane operation name -> the bridge table's (Qiskit) name; same wires order, angles and matrix.
_NAMES = {"Identity": "id", "PauliX": "x", "PauliY": "y", "PauliZ": "z", "Hadamard": "h", "S": "s", "T": "t",
          "SX": "sx", "PhaseShift": "p", "RX": "rx", "RY": "ry", "RZ": "rz", "U3": "u3", "CNOT": "cx", "CY": "cy",
          "CZ": "cz", "CH": "ch", "SWAP": "swap", "ControlledPhaseShift": "cp", "CRX": "crx", "CRY": "cry",
          "CRZ": "crz", "IsingXX": "rxx", "IsingYY": "ryy", "IsingZZ": "rzz", "Toffoli": "ccx", "CSWAP": "cswap"}
_SUPPORTED = {*_NAMES, "GlobalPhase"}  # GlobalPhase(phi) = e^{-i phi}


def _observable_ok(obs):
    return obs.pauli_rep is not None


def _measurement_ok(m):
    if isinstance(m, qml.measurements.ExpectationMP):
        return m.obs is not None and _observable_ok(m.obs)
    return isinstance(m, (qml.measurements.StateMP, qml.measurements.ProbabilityMP)) and m.obs is None


class SampanQubit(Device):
    """State-vector simulation by sampan.quantum's C++ ops, adjoint derivatives for expectations."""

    name = "sampan.qubit"

    def __init__(self, wires=None, shots=None):
        if wires is None:
            raise ValueError("sampan.qubit: give the wires, e.g. qml.device('sampan.qubit', wires=2)")
        super().__init__(wires=wires, shots=shots)

    # ---- preprocessing ------------------------------------------------------------------------------
    def preprocess_transforms(self, execution_config=None):
        program = CompilePipeline()
        program.add_transform(validate_device_wires, wires=self.wires, name=self.name)
        program.add_transform(no_sampling, name="sampan.qubit (analytic only; shots are not supported)")
        program.add_transform(decompose, stopping_condition=lambda op: op.name in _SUPPORTED,
                              skip_initial_state_prep=False, name=self.name)
        program.add_transform(validate_observables, stopping_condition=_observable_ok, name=self.name)
        program.add_transform(validate_measurements, analytic_measurements=_measurement_ok, name=self.name)
        program.add_transform(broadcast_expand)
        return program

    def setup_execution_config(self, config=None, circuit=None):
        """"best" and "device" resolve to sampan's adjoint gradient, computed by compute_derivatives."""
        config = super().setup_execution_config(config, circuit)
        if config.gradient_method == "device":
            updates = {"use_device_gradient": True, "use_device_jacobian_product": False}
            updates = {k: v for k, v in updates.items() if getattr(config, k) is None}
            if config.grad_on_execution is None:
                updates["grad_on_execution"] = False
            config = replace(config, **updates)
        return config

    def supports_derivatives(self, execution_config=None, circuit=None):
        if execution_config is not None and (execution_config.gradient_method not in {"device", "best"}
                                             or execution_config.derivative_order != 1):
            return False
        if circuit is None:
            return True
        return not circuit.shots and all(isinstance(m, qml.measurements.ExpectationMP) for m in circuit.measurements)

    # ---- execution ----------------------------------------------------------------------------------
    def _circuit(self, tape, trainable):
        """(sampan Circuit, [owned index per trainable tape parameter]) of a tape's operations; the
        trainable parameters (tape.trainable_params) are owned parameters, the others numbers."""
        wires = self.wires if self.wires is not None else tape.wires
        n = len(wires)
        qubit = {w: n - 1 - i for i, w in enumerate(wires)}
        c = Circuit(n)
        n_trainable = len(tape.trainable_params) if trainable else 0
        values = [float(np.real(v)) for v in tape.get_parameters(trainable_only=True)] if trainable else []
        if n_trainable:
            c._angle_refs(None, n_trainable, "sampan.qubit")
            c._own_values[:] = values
        position = {p: k for k, p in enumerate(tape.trainable_params)} if trainable else {}
        p = 0
        for op in tape.operations:
            angles = []
            for v in op.data:
                angles.append(Angle(position[p], 1.0, 0.0) if p in position else constant(float(np.real(v))))
                p += 1
            where = f"sampan.qubit: operation {op.name}"
            if op.name == "GlobalPhase":
                bridge_gates.add_global_phase(c, Angle(angles[0].index, -angles[0].scale, -angles[0].shift), where)
                continue
            if op.name not in _NAMES:
                raise ValueError(f"{where} is not supported (the device takes {', '.join(sorted(_SUPPORTED))})")
            bridge_gates.add(c, _NAMES[op.name], [qubit[w] for w in op.wires], angles, where)
        if trainable and any(k >= p for k in tape.trainable_params):
            raise ValueError("sampan.qubit: a trainable parameter of an observable (e.g. a Hamiltonian "
                             "coefficient) has no device derivative; use diff_method='parameter-shift'")
        return c, qubit

    @staticmethod
    def _hamiltonian(obs, qubit):
        terms = []
        for word, coeff in obs.pauli_rep.items():
            if abs(np.imag(coeff)) > 1e-12:
                raise ValueError(f"sampan.qubit: observable {obs} has a complex coefficient {coeff}")
            terms.append((float(np.real(coeff)), " ".join(f"{p}{qubit[w]}" for w, p in word.items())))
        return Hamiltonian(terms)

    def _run(self, tape):
        c, qubit = self._circuit(tape, trainable=False)
        out = []
        for m in tape.measurements:
            with sp.no_grad():
                if isinstance(m, qml.measurements.ExpectationMP):
                    out.append(np.array(c.expectation(self._hamiltonian(m.obs, qubit)).item()))
                elif isinstance(m, qml.measurements.StateMP):
                    out.append(c.state().numpy())
                else:  # probs: wires in PennyLane's order, the first the most significant bit
                    wires = m.wires if len(m.wires) else (self.wires or tape.wires)
                    out.append(c.probabilities([qubit[w] for w in reversed(list(wires))]).numpy())
        return out[0] if len(out) == 1 else tuple(out)

    def execute(self, circuits, execution_config=None):
        is_single = isinstance(circuits, qml.tape.QuantumScript)
        results = tuple(self._run(t) for t in ([circuits] if is_single else circuits))
        return results[0] if is_single else results

    def _jacobian(self, tape):
        n_params = len(tape.trainable_params)
        jac = np.zeros((len(tape.measurements), n_params))
        for k, m in enumerate(tape.measurements):
            if not isinstance(m, qml.measurements.ExpectationMP):
                raise ValueError(f"sampan.qubit: device derivatives are for expval only, got {type(m).__name__}")
            if n_params:  # a fresh circuit per measurement: its parameters' grad starts empty
                c, qubit = self._circuit(tape, trainable=True)
                c.expectation(self._hamiltonian(m.obs, qubit)).backward()
                jac[k] = c.parameters.grad.numpy()
        # PennyLane's shapes (as default.qubit's adjoint): squeezed, tuples per measurement / parameter.
        jac = np.squeeze(jac)
        if jac.ndim == 0:
            return np.array(jac)
        if jac.ndim == 1:
            return tuple(np.array(j) for j in jac)
        return tuple(tuple(np.array(x) for x in row) for row in jac)

    def compute_derivatives(self, circuits, execution_config=None):
        is_single = isinstance(circuits, qml.tape.QuantumScript)
        results = tuple(self._jacobian(t) for t in ([circuits] if is_single else circuits))
        return results[0] if is_single else results
