"""The structure of sampan.quantum (issue 20, one truth per fact): the gate table comes from C++
and every entry is a Circuit method, validation happens in C++, and the modules import each other
in one direction only, through public names."""
import ast
import math
import pathlib

import numpy as np
import pytest

import sampan as sp
from sampan.quantum import CHANNEL_OPCODES, OPCODES, Circuit, DensityMatrix, gates

PACKAGE = pathlib.Path(sp.__file__).parent / "quantum"


def _imports(path):
    """[(module of sampan.quantum it imports, names imported from it, line)] for every import
    statement of a file, at top level or inside functions."""
    modules = {p.stem for p in PACKAGE.glob("*.py")}
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 or (node.level == 0 and (node.module or "").startswith("sampan.quantum")):
                base = node.module if node.level == 1 else (node.module or "")[len("sampan.quantum"):].lstrip(".")
                if base:
                    out.append((base.split(".")[0], [a.name for a in node.names], node.lineno))
                else:  # from . import a, b
                    out.extend((a.name, [], node.lineno) for a in node.names if a.name in modules)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("sampan.quantum."):
                    out.append((a.name.split(".")[2], [], node.lineno))
    return out


def test_modules_import_each_other_in_one_direction_only():
    graph = {p.stem: sorted({m for m, _, _ in _imports(p) if m != p.stem})
             for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    # Depth-first search for a cycle; a failure names it.
    state = {}

    def visit(m, path):
        state[m] = "open"
        for n in graph.get(m, []):
            if n == "__init__" or n not in graph:
                continue
            if state.get(n) == "open":
                cycle = path[path.index(n):] + [n]
                pytest.fail("sampan.quantum import cycle: " + " -> ".join(cycle))
            if n not in state:
                visit(n, path + [n])
        state[m] = "done"

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    # The base modules: qubit_order (the one little/big conversion) imports none, measurement only it.
    assert graph["gates"] == [] and graph["qubit_order"] == [] and graph["qasm"] == []
    assert graph["measurement"] == ["qubit_order"]


def test_no_private_name_is_imported_across_modules():
    bad = [f"{p.name}:{line}: from .{m} import {name}" for p in PACKAGE.glob("*.py")
           for m, names, line in _imports(p) for name in names if name.startswith("_")]
    assert not bad, bad


def test_every_table_entry_is_a_circuit_method_and_a_density_matrix_shortcut_for_channels():
    assert gates.TABLE, "the C++ gate table is empty"
    for g in gates.TABLE:
        assert callable(getattr(Circuit, g.method, None)), f"gate table entry {g.name} has no Circuit.{g.method}"
        if g.channel:
            assert callable(getattr(DensityMatrix, g.method, None)), g.method
    assert OPCODES == {g.method: g.opcode for g in gates.TABLE if not g.channel}
    assert CHANNEL_OPCODES == {g.method: g.opcode for g in gates.TABLE if g.channel}
    assert OPCODES["h"] == 0 and OPCODES["unitary"] == 28 and CHANNEL_OPCODES["choi_repr"] == 113


def test_encode_and_decode_follow_the_table_layouts():
    c = Circuit(3).h(0).cnot(0, 1).u3(0.1, 0.2, 0.3, 2).controlled_unitary(np.eye(2), [0], [1])
    c.generalized_depolarizing(0.1, [0, 2]).kraus_repr([np.eye(2)], 1).choi_repr(np.diag([1, 0, 0, 1]) + 0j, 2)
    c.depolarizing(0.2, 1)
    _, enc, _ = c.encode()
    decoded = [(g.method, qubits) for g, qubits, _, _ in gates.decode(enc)]
    assert decoded == c.gates()


def test_an_unknown_gate_raises_naming_it():
    with pytest.raises(ValueError, match="unknown gate 'toffolo'"):
        gates.spec("toffolo")
    with pytest.raises(ValueError, match="opcode 77"):
        list(gates.decode([77, 0]))
    with pytest.raises(ValueError, match="unknown gate opcode 77"):
        sp._C.quantum_check_gate([77, 0], [], 1, "test")


def test_circuit_errors_come_from_the_cpp_checks():
    # Checks Python never made: the C++ builder's (a Choi matrix that is not positive, a channel
    # parameter out of its domain as soon as it is added, not when the circuit runs).
    c = Circuit(2)
    with pytest.raises(ValueError, match="Circuit.choi_repr: the Choi matrix is not positive semidefinite"):
        c.choi_repr(np.diag([1.5, 0, 0, 1]) + np.diag([0, 0.5, 0, 0]) - np.diag([0, 0, 0.5, 0]), 0)
    with pytest.raises(ValueError, match=r"Circuit.bit_flip: the probability p must be in \[0, 1\], got 1.5"):
        c.bit_flip(1.5, 0)
    with pytest.raises(ValueError, match="Circuit.generalized_depolarizing: acts on 1 to 3 qubits, got 4"):
        Circuit(4).generalized_depolarizing(0.1, [0, 1, 2, 3])
    with pytest.raises(ValueError, match="Circuit.rx: the angle inf is not finite"):
        c.rx(math.inf, 0)
    assert len(c) == 0


def test_a_call_that_raises_adds_nothing():
    c = Circuit(3).h(0)
    before = c.encode(detached=True)
    with pytest.raises(ValueError, match="not finite"):
        c.real_entangled_layer(theta=[0.1, 0.2, float("nan")])  # the third RY fails after two were checked
    with pytest.raises(IndexError, match="qubit 3"):
        c.cnot([(0, 1), (1, 3)])
    c.measure_to(1)
    with pytest.raises(IndexError):
        c.rzz(0.3, [(1, 2), (0, 5)])  # would have made the measurement of qubit 1 mid-circuit
    assert len(c) == 1 and c.measurements == [(1, 1)] and not c.mid_circuit_measurements
    after = c.encode(detached=True)
    assert after[1] == before[1] and after[2] == before[2]
