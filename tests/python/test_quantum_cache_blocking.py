"""Cache-blocked execution from Python: with blocks of 2^3 amplitudes forced, a circuit on 7
qubits (gates on high qubits, controls above the block, swaps, a parametrised layer) gives the
state, the expectation and its adjoint gradient of the unblocked run; bad block sizes are
ValueErrors."""
import numpy as np
import pytest

import sampan as sp
from sampan.quantum import Circuit, Hamiltonian

_C = sp._C


def run(blocking, block_qubits=3):
    prev_on, prev_b = _C.quantum_set_cache_blocking(blocking), _C.quantum_set_cache_block_qubits(block_qubits)
    try:
        theta = sp.tensor(np.linspace(0.1, 1.3, 7), dtype=sp.float64, requires_grad=True)
        c = Circuit(7)
        c.h(list(range(7))).ry(theta, list(range(7)))
        for q in range(6):
            c.cnot(q, q + 1)
        c.cnot(6, 0).rz(0.3, 6).swap(1, 5).ccx(6, 4, 0)
        state = c.state().numpy()
        e = c.expectation(Hamiltonian([(1.0, "Z0 Z6"), (0.5, "X3"), (-0.7, "Y5")]))
        (g,) = sp.grad([e], [theta])
        return state, e.item(), g.numpy()
    finally:
        _C.quantum_set_cache_blocking(prev_on)
        _C.quantum_set_cache_block_qubits(prev_b)


def test_blocked_state_expectation_and_gradient_equal_the_unblocked_run():
    ref, e_ref, g_ref = run(False)
    for b in (2, 3, 5):
        state, e, g = run(True, b)
        np.testing.assert_allclose(state, ref, atol=1e-12)
        assert e == pytest.approx(e_ref, abs=1e-12)
        np.testing.assert_allclose(g, g_ref, atol=1e-12)
    assert np.abs(g_ref).max() > 1e-3  # the gradient is not trivially zero


def test_bad_block_sizes_are_value_errors():
    before = _C.quantum_cache_block_qubits()
    for b in (1, 31, -2):
        with pytest.raises(ValueError, match="log2 of the amplitudes per cache block"):
            _C.quantum_set_cache_block_qubits(b)
    assert _C.quantum_cache_block_qubits() == before
