"""`sampan quantum run`: the command against the Python API on the same QASM circuit (expectation,
state), shot statistics against the exact probabilities, the distributed run under
`mpirun -n 2` against the single-process run (same shots for the same seed, state to 1e-12),
and the errors."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from mpi_launcher import mpirun_command

import sampan as sp
from sampan.quantum import Circuit, Hamiltonian

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Five qubits: with two ranks qubit 4 selects the rank, so the gates on it (h, cu3, ccx target,
# swap, rzz, cx target) exercise the exchange; the others stay local.
QASM = """OPENQASM 2.0;
include "qelib1.inc";
qreg q[5];
creg c[5];
h q[0];
h q[4];
ry(0.7) q[1];
cx q[0],q[2];
cu3(0.4,0.2,-0.3) q[4],q[3];
rz(pi/5) q[4];
ccx q[1],q[2],q[4];
swap q[4],q[0];
rzz(0.9) q[3],q[4];
u3(1.1,0.3,0.5) q[2];
cx q[3],q[4];
rx(-0.6) q[4];
"""
OBSERVABLE = ["1.0 Z0 Z4", "-0.5 X4 Y1", "0.25 X0 X1 X2 X3 X4"]


def run_cli(args, launcher=(), timeout=120):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env["PYTHONPATH"] = os.path.join(REPO, "python") + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [*launcher, sys.executable, "-m", "sampan", "quantum", "run", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)


@pytest.fixture()
def qasm_file(tmp_path):
    path = tmp_path / "circuit.qasm"
    path.write_text(QASM)
    return path


def reference():
    c = Circuit.from_qasm(QASM)
    psi = c.state().numpy()
    h = Hamiltonian([(float(t.split()[0]), " ".join(t.split()[1:])) for t in OBSERVABLE])
    exact = float(np.real(np.conj(psi) @ (h.matrix(5) @ psi)))
    return psi, exact


def cli_args(qasm_file, state_out, shots=4000):
    args = [str(qasm_file), "--shots", str(shots), "--seed", "11", "--json", "--state-out", str(state_out)]
    for t in OBSERVABLE:
        args += ["--observable", t]
    return args


def test_single_process_matches_python_api_and_exact_probabilities(qasm_file, tmp_path):
    psi, exact = reference()
    r = run_cli(cli_args(qasm_file, tmp_path / "psi.npy"))
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["n_qubits"] == 5 and out["ranks"] == 1
    # <H> from the dense matrix of the Hamiltonian (numpy), independent of the C++ expectation.
    assert abs(out["expectation"] - exact) < 1e-12
    np.testing.assert_allclose(np.load(tmp_path / "psi.npy"), psi, atol=1e-12)
    counts = out["counts"]
    assert sum(counts.values()) == 4000
    p = np.abs(psi) ** 2
    for bits, c in counts.items():
        assert p[int(bits, 2)] > 0, bits
    # Frequencies within 5 standard deviations of the exact probabilities.
    for i in range(32):
        c = counts.get(format(i, "05b"), 0)
        sigma = np.sqrt(4000 * p[i] * (1 - p[i])) + 1e-9
        assert abs(c - 4000 * p[i]) <= 5 * sigma + 1, (i, c, 4000 * p[i])


def test_mpirun_two_ranks_equals_single_process(qasm_file, tmp_path):
    if not sp._C.quantum_built_with_mpi():
        pytest.skip("sampan was built without MPI (install libopenmpi-dev and rebuild)")
    launcher = mpirun_command(2)
    if launcher is None:
        pytest.skip("no mpirun/mpiexec on PATH")
    single = run_cli(cli_args(qasm_file, tmp_path / "one.npy", shots=500))
    assert single.returncode == 0, single.stderr
    multi = run_cli(cli_args(qasm_file, tmp_path / "two.npy", shots=500), launcher=launcher)
    assert multi.returncode == 0, multi.stderr + multi.stdout
    lines = [line for line in multi.stdout.splitlines() if line.startswith("{")]
    assert len(lines) == 1, multi.stdout  # only rank 0 prints
    a, b = json.loads(single.stdout), json.loads(lines[0])
    assert b["ranks"] == 2
    assert abs(a["expectation"] - b["expectation"]) < 1e-12
    assert a["counts"] == b["counts"]  # seeded sampling is independent of the rank count
    np.testing.assert_allclose(np.load(tmp_path / "two.npy"), np.load(tmp_path / "one.npy"), atol=1e-12)


def test_errors_name_the_problem(tmp_path, qasm_file):
    bad = tmp_path / "bad.qasm"
    bad.write_text('OPENQASM 2.0;\nqreg q[2];\nh q[0];\ncx q[0] q[1];\n')
    r = run_cli([str(bad)])
    assert r.returncode == 2 and "line 4" in r.stderr, r.stderr
    r = run_cli([str(tmp_path / "missing.qasm")])
    assert r.returncode == 2 and "cannot read" in r.stderr
    r = run_cli([str(qasm_file), "--observable", "1.0 Z7"])
    assert r.returncode == 2 and "qubit 7" in r.stderr, r.stderr
    r = run_cli([str(qasm_file), "--shots", "-3"])
    assert r.returncode == 2 and "--shots" in r.stderr


def test_python_run_one_process_matches_reference():
    from sampan.quantum.distributed import run
    psi, exact = reference()
    h = Hamiltonian([(float(t.split()[0]), " ".join(t.split()[1:])) for t in OBSERVABLE])
    r = run(Circuit.from_qasm(QASM), observable=h, shots=300, seed=5, gather_state=True, use_mpi=False)
    assert (r["rank"], r["size"]) == (0, 1)
    assert abs(r["expectation"] - exact) < 1e-12
    np.testing.assert_allclose(r["state"], psi, atol=1e-12)
    assert sum(r["counts"].values()) == 300
    # Seeded: the same call gives the same shots, another seed other shots.
    assert run(Circuit.from_qasm(QASM), shots=300, seed=5, use_mpi=False)["counts"] == r["counts"]
    assert run(Circuit.from_qasm(QASM), shots=300, seed=6, use_mpi=False)["counts"] != r["counts"]
