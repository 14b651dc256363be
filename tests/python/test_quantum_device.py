"""Circuits on a device: ``Circuit(n, device="cuda")`` simulates its state vector and takes
expectations and their adjoint gradients on the GPU (quantum/src/circuit_cuda.cpp), with the
angles on the CPU; probabilities, shots and post-selection there too, density matrices on the
CPU. ``sampan quantum run --device cuda`` does the same for a QASM file. Without a GPU: the errors, named before any work; with one:
the CPU's states, energies, gradients and counts to rounding."""
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import sampan as sp
from sampan.quantum import Circuit, Hamiltonian
from sampan.quantum.distributed import run as run_distributed

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
needs_gpu = pytest.mark.skipif(not sp.cuda.is_available(),
                               reason=f"no GPU in this process: {sp.cuda.unavailable_reason()}")
without_gpu = pytest.mark.skipif(sp.cuda.is_available(), reason="a GPU is present: the no-GPU errors do not arise")

H = Hamiltonian([(1.0, "Z0 Z3"), (-0.5, "X1 Y2"), (0.25, "X0 X1 X2 X3"), (0.3, "Y3")])
QASM = """OPENQASM 2.0;
include "qelib1.inc";
qreg q[4];
h q[0];
ry(0.7) q[1];
cx q[0],q[2];
cu3(0.4,0.2,-0.3) q[1],q[3];
ccx q[0],q[1],q[3];
swap q[3],q[0];
rzz(0.9) q[2],q[3];
"""


def circuit(device="cpu", seed=3):
    """Every kind of gate the GPU kernels take: fast gates, controls, 2-qubit rotations, a 3-qubit
    unitary (the largest the CUDA kernels apply), trainable angles."""
    c = Circuit(4, seed=seed, device=device)
    c.h(0)
    c.ry(None, [1, 2])
    c.cnot(0, 3)
    c.rxx(None, 1, 3)
    c.crz(None, 2, 0)
    c.u3(None, None, None, 3)
    c.ccx(0, 1, 2)
    c.s(1)
    c.cswap(3, 0, 2)
    q, _ = np.linalg.qr(np.random.default_rng(5).normal(size=(8, 8)) + 1j * np.random.default_rng(6).normal(size=(8, 8)))
    c.unitary(q, [0, 2, 3])
    c.rzz(0.4, 0, 1)
    return c


def run_cli(args):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env["PYTHONPATH"] = os.path.join(REPO, "python") + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "sampan", "quantum", "run", *args], capture_output=True, text=True,
                          timeout=120, env=env)


def test_a_circuit_records_its_device_and_refuses_a_name_that_is_no_device():
    assert circuit().device == "cpu"
    assert Circuit(2, device="cuda").device == "cuda:0"
    with pytest.raises(ValueError, match="Circuit: device must be"):
        Circuit(2, device="gpu")


@without_gpu
def test_without_a_gpu_a_cuda_circuit_says_why_and_its_angles_stay_usable():
    c = circuit("cuda")
    with pytest.raises((RuntimeError, NotImplementedError), match="cuda|CUDA|GPU|nvcc"):
        c.state()
    with pytest.raises((RuntimeError, NotImplementedError), match="cuda|CUDA|GPU|nvcc"):
        c.expectation(H)
    # The parameters live on the CPU and were not touched by the failed calls.
    assert c.parameters.device == "cpu" and c.parameters.grad is None
    np.testing.assert_array_equal(c.parameters.detach().numpy(), circuit("cpu").parameters.detach().numpy())


@without_gpu
def test_without_a_gpu_the_cli_refuses_device_cuda_before_simulating(tmp_path):
    path = tmp_path / "c.qasm"
    path.write_text(QASM)
    r = run_cli([str(path), "--device", "cuda", "--shots", "10"])
    assert r.returncode == 2, r.stdout + r.stderr
    assert "--device cuda: no GPU in this process" in r.stderr


def test_the_cli_refuses_a_device_name_that_is_no_device(tmp_path):
    path = tmp_path / "c.qasm"
    path.write_text(QASM)
    r = run_cli([str(path), "--device", "tpu"])
    assert r.returncode == 2 and "--device tpu: device must be 'cpu', 'cuda' or 'cuda:N', got 'tpu'" in r.stderr


def test_shot_branching_circuits_stay_on_the_cpu():
    c = Circuit(2)
    c.h(0)
    c.reset(0)
    with pytest.raises(ValueError, match="device cuda:0: .*shot branching on the CPU"):
        run_distributed(c, None, shots=10, seed=1, device="cuda:0")


@needs_gpu
def test_the_gpu_state_is_the_cpus_to_rounding():
    on_gpu = circuit("cuda").state()
    assert on_gpu.device == "cuda:0" and on_gpu.dtype == sp.complex128
    np.testing.assert_allclose(on_gpu.cpu().numpy(), circuit("cpu").state().numpy(), rtol=0, atol=1e-13)


@needs_gpu
def test_the_gpu_state_without_fusion_is_the_cpus_to_rounding():
    previous = sp._C.quantum_set_fusion(False)
    try:
        np.testing.assert_allclose(circuit("cuda").state().cpu().numpy(), circuit("cpu").state().numpy(), atol=1e-13)
    finally:
        sp._C.quantum_set_fusion(previous)


@needs_gpu
def test_gpu_energy_and_adjoint_gradient_are_the_cpus_to_rounding():
    results = {}
    for device in ("cpu", "cuda"):
        c = circuit(device)
        e = c.expectation(H)
        assert e.device == ("cpu" if device == "cpu" else "cuda:0")
        e.backward()
        results[device] = (e.item(), c.parameters.grad.numpy().copy())
    assert results["cuda"][0] == pytest.approx(results["cpu"][0], abs=1e-13)
    np.testing.assert_allclose(results["cuda"][1], results["cpu"][1], atol=1e-12)
    assert np.abs(results["cpu"][1]).max() > 1e-3  # the gradient is not trivially zero


@needs_gpu
def test_gpu_state_vjp_matches_the_cpu():
    grads = {}
    for device in ("cpu", "cuda"):
        c = circuit(device)
        psi = c.state()
        assert psi.device == ("cpu" if device == "cpu" else "cuda:0")
        # The cotangent reaches statevector_vjp's GPU kernel through the copy's backward.
        weights = sp.tensor(np.linspace(-1, 1, 16) + 0.5j)
        sp.sum(sp.real(psi.cpu() * weights)).backward()
        grads[device] = c.parameters.grad.numpy().copy()
    np.testing.assert_allclose(grads["cuda"], grads["cpu"], atol=1e-12)


@needs_gpu
def test_measurement_of_a_gpu_circuit_runs_there_with_the_cpus_numbers():
    gpu, cpu = circuit("cuda"), circuit("cpu")
    for qubits in (None, [2, 0], [3]):
        p = gpu.probabilities(qubits)
        assert p.device == "cuda:0"  # the marginal is summed on the GPU; 2^m numbers come back
        np.testing.assert_allclose(p.cpu().numpy(), cpu.probabilities(qubits).numpy(), atol=1e-13)
        assert gpu.sample(500, qubits, seed=9) == cpu.sample(500, qubits, seed=9)
    assert math.isclose(float(sp.sum(gpu.probabilities()).cpu()), 1.0, abs_tol=1e-12)
    # Differentiable there: d(p_1 of qubit 3)/d(angles) through probabilities_vjp's GPU kernel.
    grads = {}
    for name, c in (("cuda", gpu), ("cpu", cpu)):
        c.probabilities([3])[1].backward()
        grads[name] = c.parameters.grad.numpy().copy()
    np.testing.assert_allclose(grads["cuda"], grads["cpu"], atol=1e-12)
    # Post-selection runs there too, differentiably.
    post, prob = gpu.measure([0], [1])
    want_post, want_prob = cpu.measure([0], [1])
    assert post.device == "cuda:0"
    np.testing.assert_allclose(post.cpu().numpy(), want_post.numpy(), atol=1e-13)
    assert float(prob.cpu()) == pytest.approx(float(want_prob), abs=1e-13)
    for name, c in (("cuda", gpu), ("cpu", cpu)):
        c.parameters.grad = None
        post, prob = c.measure([0], [1])
        (sp.sum(sp.real(post.cpu() * sp.tensor(np.linspace(-1, 1, 16) + 0.3j))) + prob.cpu()).backward()
        grads[name] = c.parameters.grad.numpy().copy()
    np.testing.assert_allclose(grads["cuda"], grads["cpu"], atol=1e-12)


@needs_gpu
def test_the_cli_on_the_gpu_gives_the_cpus_energy_and_counts(tmp_path):
    path = tmp_path / "c.qasm"
    path.write_text(QASM)
    out = {}
    for device in ("cpu", "cuda"):
        r = run_cli([str(path), "--device", device, "--shots", "2000", "--seed", "4", "--observable", "1.0 Z0 Z3",
                     "--observable", "-0.5 X1 Y2", "--json"])
        assert r.returncode == 0, r.stderr
        out[device] = json.loads(r.stdout)
    assert out["cuda"]["device"] == "cuda"
    assert out["cuda"]["expectation"] == pytest.approx(out["cpu"]["expectation"], abs=1e-13)
    assert out["cuda"]["counts"] == out["cpu"]["counts"]
