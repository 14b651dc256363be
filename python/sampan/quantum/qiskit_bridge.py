"""Qiskit QuantumCircuit <-> sampan Circuit (``Circuit.from_qiskit`` / ``Circuit.to_qiskit``).

Gates: the subset of bridge_gates.py (one table); anything else raises naming the gate. Qubit
order needs no reordering: Qiskit and sampan both make qubit 0 the least significant bit of the
amplitude index, so ``Circuit.from_qiskit(qc).state()`` equals ``Statevector(qc)``.

Parameters: every unbound Qiskit ``Parameter`` of ``qc.parameters`` (in that order) becomes one
circuit-owned trainable parameter named after it (``circuit.parameter_names``); a parameter used
by several gates stays one parameter. A gate angle may be any ``ParameterExpression`` affine in
one parameter (``2*theta - 0.5``): it stays trainable, its gradient reaching theta. Bound angles
are numbers. Qiskit's ``global_phase`` (a number or affine) is applied as P(phi) X P(phi) X on
qubit 0 so that states agree exactly; ``global_phase=False`` drops it (expectations and
probabilities do not depend on it).

Export writes circuit-owned parameters as Qiskit Parameters (named ``parameter_names``), affine
references as ``scale * p + shift``, numbers and user-tensor angles as their current values; a
matrix gate outside the table becomes a Qiskit UnitaryGate (controlled ones via ``.control``).
Qiskit is imported lazily (the optional extra 'qiskit').
"""
import numbers

import numpy as np

from . import bridge_gates
from .bridge_gates import Angle, constant


def _qiskit():
    try:
        import qiskit
    except ImportError as e:
        raise ImportError("the Qiskit bridge needs the optional extra 'qiskit' (pip install sampan[qiskit])") from e
    return qiskit


def _angle(value, index_of, where):
    """An Angle of a Qiskit gate parameter: a number, or a ParameterExpression affine in one Parameter."""
    from qiskit.circuit import ParameterExpression
    if isinstance(value, numbers.Real):
        return constant(value)
    if not isinstance(value, ParameterExpression):
        raise ValueError(f"{where}: angle {value!r} of type {type(value).__name__} (expected a number or a Parameter)")
    params = list(value.parameters)
    if not params:
        return constant(float(value))
    if len(params) > 1:
        raise ValueError(f"{where}: angle {value} depends on {len(params)} parameters "
                         f"({', '.join(sorted(p.name for p in params))}); only affine expressions in one are supported")
    p = params[0]
    slope = value.gradient(p)
    if isinstance(slope, ParameterExpression) and slope.parameters:
        raise ValueError(f"{where}: angle {value} is not affine in {p.name} (its derivative is {slope})")
    shift = value.bind({p: 0.0})
    return Angle(index_of[p], float(complex(slope).real), float(complex(shift).real))


def from_qiskit(cls, qc, values=None, global_phase=True):
    """A `cls` (Circuit) from the Qiskit QuantumCircuit `qc` (see the module docstring). values:
    initial values of qc.parameters (a sequence in that order, or {Parameter or name: value});
    default: the circuit's seeded draws in [0, 2 pi)."""
    qiskit = _qiskit()
    if not isinstance(qc, qiskit.QuantumCircuit):
        raise TypeError(f"from_qiskit: expected a qiskit QuantumCircuit, got {type(qc).__name__}")
    params = list(qc.parameters)
    c = cls(qc.num_qubits)
    if params:
        c._angle_refs(None, len(params), "from_qiskit")  # one owned parameter per Qiskit Parameter
        c._parameter_names = {i: p.name for i, p in enumerate(params)}
        for i, v in _initial_values(params, values).items():
            c._own_values[i] = v
    index_of = {p: i for i, p in enumerate(params)}
    for k, instruction in enumerate(qc.data):
        op = instruction.operation
        where = f"from_qiskit: instruction {k} ({op.name})"
        if op.name == "barrier":
            continue
        if instruction.clbits:
            raise ValueError(f"{where}: measurements and classical bits are not bridged; remove them "
                             "(qc.remove_final_measurements()) or use to_qasm/from_qasm (OpenQASM 2.0)")
        qubits = [qc.find_bit(q).index for q in instruction.qubits]
        angles = [_angle(v, index_of, where) for v in op.params]
        bridge_gates.add(c, op.name, qubits, angles, where)
    if global_phase:
        bridge_gates.add_global_phase(c, _angle(qc.global_phase, index_of, "from_qiskit: global_phase"),
                                      "from_qiskit: global_phase")
    return c


def _initial_values(params, values):
    """{owned index: initial value} from `values` (sequence or mapping by Parameter or name)."""
    if values is None:
        return {}
    if isinstance(values, dict):
        by_name = {p.name: i for i, p in enumerate(params)}
        out = {}
        for key, v in values.items():
            name = getattr(key, "name", key)
            if name not in by_name:
                raise ValueError(f"from_qiskit: values has {name!r}, which is not a parameter of the circuit "
                                 f"({', '.join(by_name)})")
            out[by_name[name]] = float(v)
        return out
    values = [float(v) for v in np.asarray(values, dtype=np.float64).reshape(-1)]
    if len(values) != len(params):
        raise ValueError(f"from_qiskit: values has {len(values)} numbers but the circuit has {len(params)} parameters")
    return dict(enumerate(values))


def to_qiskit(circuit):
    """A Qiskit QuantumCircuit of `circuit` (see the module docstring)."""
    qiskit = _qiskit()
    from qiskit.circuit import Parameter
    from qiskit.circuit.library import UnitaryGate, get_standard_gate_name_mapping
    standard = get_standard_gate_name_mapping()
    params = [Parameter(name) for name in circuit.parameter_names]
    qc = qiskit.QuantumCircuit(circuit.n_qubits)

    def expression(a):
        if a.index is None:
            return a.shift
        e = params[a.index]
        return e if (a.scale, a.shift) == (1.0, 0.0) else a.scale * e + a.shift

    for name, qubits, angles in bridge_gates.exported(circuit):
        if name is None:
            matrix, n_ctrl = angles
            gate = UnitaryGate(matrix)
            qc.append(gate.control(n_ctrl) if n_ctrl else gate, list(qubits))
        else:
            qc.append(type(standard[name])(*[expression(a) for a in angles]), list(qubits))
    return qc
