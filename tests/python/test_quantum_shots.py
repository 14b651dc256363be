"""Classically controlled measure and reset (OpenQASM 2.0's ``if (creg == n) measure/reset``) and
counts of circuits with mid-circuit measurements, resets and conditions on the two paths:
shot branching on (distributed) state vectors (C++ run_measured_circuit, ``counts(method=
'statevector')``, ``sampan quantum run``, ``sampan.quantum.distributed.run``) and exact branches on
density matrices (``counts(method='density_matrix')``).

Validation: against distributions derived by hand in the comments (Born rule, post-measurement
states), with chi-square bounds at a p-value of about 1e-6 that a wrong implementation (a
condition ignored, a measurement or reset applied unconditionally or never) fails by orders of
magnitude; the density-matrix branch probabilities against the same formulas to 1e-12; shot
branching against the exact distribution of the density-matrix path on a circuit that uses every
feature; and under mpirun -n 2 and -n 4 the same counts as one process for the same seed."""
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
from mpi_launcher import mpirun_command

import sampan as sp
from sampan.quantum import Circuit

HEAD = 'OPENQASM 2.0;\ninclude "qelib1.inc";\n'
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
METHODS = ("statevector", "density_matrix")


def chi_square_bound(cells):
    """The chi-square value with upper tail ~1e-6 for cells - 1 degrees of freedom (Wilson-Hilferty)."""
    k = max(cells - 1, 1)
    return k * (1 - 2 / (9 * k) + 4.75 * math.sqrt(2 / (9 * k))) ** 3


def assert_distribution(counts, probs, shots):
    """counts follow probs {key: p}: no key outside the support, chi-square below its 1e-6 bound."""
    assert sum(counts.values()) == shots
    assert abs(sum(probs.values()) - 1) < 1e-12
    stray = {k: v for k, v in counts.items() if probs.get(k, 0) <= 0}
    assert not stray, f"outcomes of probability 0: {stray}"
    support = [k for k, p in probs.items() if p > 0]
    chi2 = sum((counts.get(k, 0) - shots * probs[k]) ** 2 / (shots * probs[k]) for k in support)
    assert chi2 < chi_square_bound(len(support)), (chi2, counts, probs)


# ---- if (c==1) measure -------------------------------------------------------------------------------
PHI = 1.3
CONDITIONAL_MEASURE = HEAD + f"""qreg q[2];
creg c[1];
creg d[2];
h q[0];
measure q[0] -> c[0];
ry({PHI}) q[1];
if (c==1) measure q[1] -> d[0];
ry(-{PHI}) q[1];
measure q[1] -> d[1];
"""


def conditional_measure_probs():
    """c = 0 (1/2): q1 is not measured, RY(-phi) RY(phi) = I, so d = 00. c = 1 (1/2): q1 = RY(phi)|0>
    is measured: d0 = 1 with s = sin^2(phi/2), leaving |d0>; then RY(-phi)|0> gives 1 with
    probability s, RY(-phi)|1> with 1 - s. Keys 'd1d0 c'."""
    s = math.sin(PHI / 2) ** 2
    return {"00 0": 0.5, "00 1": 0.5 * (1 - s) ** 2, "10 1": 0.5 * (1 - s) * s,
            "01 1": 0.5 * s * s, "11 1": 0.5 * s * (1 - s)}


@pytest.mark.parametrize("method", METHODS)
def test_conditional_measure_follows_the_born_rule(method):
    c = Circuit.from_qasm(CONDITIONAL_MEASURE)
    assert c.classical_conditions == [(3, 4, "c", 1)] and [g for g, _, _ in c.mid_circuit_measurements] == [2, 3]
    shots = 20000
    assert_distribution(c.counts(shots, seed=7, method=method), conditional_measure_probs(), shots)


def test_density_matrix_branches_have_the_exact_probabilities():
    c = Circuit.from_qasm(CONDITIONAL_MEASURE)
    exact = exact_distribution(c)
    for key, p in conditional_measure_probs().items():
        assert abs(exact.get(key, 0) - p) < 1e-12, (key, exact)


# ---- if (c==v) reset -----------------------------------------------------------------------------
THETA = 2.1


def conditional_reset_program(value):
    return HEAD + f"""qreg q[2];
creg c[1];
creg d[1];
ry({THETA}) q[0];
cx q[0], q[1];
measure q[0] -> c[0];
if (c=={value}) reset q[1];
ry({PHI}) q[1];
measure q[1] -> d[0];
"""


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("value", [0, 1])
def test_conditional_reset_follows_the_born_rule(method, value):
    """q1 copies q0 (CNOT), c = q0 = 1 with a = sin^2(theta/2). A reset where c == value leaves
    q1 = |0>: RY(phi) then gives 1 with s = sin^2(phi/2). Where c == 1 and no reset, q1 = |1>:
    1 with 1 - s. Keys 'd c'."""
    a, s = math.sin(THETA / 2) ** 2, math.sin(PHI / 2) ** 2
    p1_given_c1 = s if value == 1 else 1 - s
    probs = {"0 0": (1 - a) * (1 - s), "1 0": (1 - a) * s,
             "0 1": a * (1 - p1_given_c1), "1 1": a * p1_given_c1}
    c = Circuit.from_qasm(conditional_reset_program(value))
    shots = 20000
    assert_distribution(c.counts(shots, seed=3, method=method), probs, shots)


@pytest.mark.parametrize("method", METHODS)
def test_a_broadcast_if_reads_the_register_per_instance_as_qiskit(method):
    """Qiskit's reader makes one if_test per instance of `if (c==0) measure q -> c;`: q[0] = 1 sets
    c = 01, so the second instance (c == 0 false) does not measure q[1]: always '01' (Aer: '01')."""
    c = Circuit.from_qasm(HEAD + "qreg q[2];\ncreg c[2];\nx q;\nif (c==0) measure q -> c;\n")
    assert c.counts(300, seed=1, method=method) == {"01": 300}


@pytest.mark.parametrize("method", METHODS)
def test_an_overwritten_bit_keeps_the_collapse_of_its_first_qubit(method):
    """q[0] = |+> is measured into c[0], then c[0] is overwritten by q[1] (= 0). The first
    measurement still collapsed q[0], so after H it is 0 or 1 with 1/2 each (without the collapse,
    H H |0> = |0>: c[1] always 0). The same from Python's measure_to."""
    text = HEAD + "qreg q[2];\ncreg c[2];\nh q[0];\nmeasure q[0] -> c[0];\nmeasure q[1] -> c[0];\nh q[0];\n" \
                  "measure q[0] -> c[1];\n"
    py = Circuit(2).creg("c", 2).h(0).measure_to(0, 0).measure_to(1, 0).h(0).measure_to(0, 1)
    shots = 4000
    for c in (Circuit.from_qasm(text), py):
        assert len(c.mid_circuit_measurements) == 1
        assert_distribution(c.counts(shots, seed=4, method=method), {"00": 0.5, "10": 0.5}, shots)


# ---- from Python ---------------------------------------------------------------------------------
def test_condition_block_measures_and_resets_from_python():
    c = Circuit(2).creg("c", 1).creg("d", 2).h(0).measure_to(0, 0).ry(PHI, 1)
    with c.condition("c", 1):
        c.measure_to(1, 1)
    c.ry(-PHI, 1).measure_to(1, 2)
    q = Circuit.from_qasm(CONDITIONAL_MEASURE)
    assert c.classical_conditions == q.classical_conditions
    assert c.mid_circuit_measurements == q.mid_circuit_measurements
    assert c.counts(3000, seed=5, method="statevector") == q.counts(3000, seed=5, method="statevector")
    assert "if(c==1) measure q[1] -> d[0];" in c.to_qasm()
    r = Circuit(2).creg("c", 1).h(0).cnot(0, 1).measure_to(0, 0)
    with r.condition("c", 1):
        r.reset(1)
    r.creg("d", 1).measure_to(1, 1)
    assert set(r.counts(500, seed=2)) == {"0 0", "0 1"}  # q1 = q0 = 1 is reset: d is always 0
    assert "if(c==1) reset q[1];" in r.to_qasm()
    bad = Circuit(1).creg("c", 1).h(0).measure_to(0, 0)
    with pytest.raises(ValueError, match="cannot also write it"):
        with bad.condition("c", 0):
            bad.measure_to(0, 0)


def test_noise_runs_on_density_matrices_only():
    c = Circuit(1).creg("c", 1).h(0).measure_to(0, 0)
    with c.condition("c", 1):
        c.x(0)
    c.depolarizing(0.2, 0).measure_to(0, 0)
    with pytest.raises(ValueError, match="method='density_matrix'"):
        c.counts(10, seed=0, method="statevector")
    # auto: the density-matrix path. After the correction q0 = |0>; depolarizing(p) flips it with p/2.
    shots = 20000
    assert_distribution(c.counts(shots, seed=1), {"0": 0.9, "1": 0.1}, shots)
    from sampan.quantum.distributed import run
    with pytest.raises(ValueError, match="noise channels"):
        run(c, shots=10, use_mpi=False)
    with pytest.raises(ValueError, match="method is"):
        c.counts(10, method="trajectories")


# ---- shot branching against the exact distribution ------------------------------------------------
EVERYTHING = HEAD + """qreg q[3];
qreg r[2];
creg m[2];
creg out[3];
u3(1.1, 0.4, -0.3) q[0];
h q[1];
cx q[1], q[2];
cx q[0], q[1];
h q[0];
ry(0.7) r[1];
measure q[0] -> m[0];
measure q[1] -> m[1];
if (m==2) x q[2];
if (m==1) z q[2];
if (m==3) y q[2];
if (m==3) reset r[1];
crx(0.9) q[2], r[0];
if (m==0) measure r[0] -> out[2];
cx r[0], r[1];
if (m==1) reset q[0];
h q[0];
measure q[2] -> out[0];
measure r[1] -> out[1];
"""


def exact_distribution(c):
    """{key: probability} from the density-matrix branches (exact weights, each branch's terminal
    measurements from the diagonal of its final density matrix)."""
    out = {}
    terminal = sorted(c._terminal.items())
    qubits = sorted({q for _, q in terminal})
    for w, rho, values in c._branches():
        p = sp.ops.quantum.probabilities(rho, qubits).numpy() if qubits else np.ones(1)
        for o, po in enumerate(p):
            if po * w <= 1e-15:
                continue
            v = dict(values)
            for b, q in terminal:
                v[b] = (o >> qubits.index(q)) & 1
            key = c._key(v)
            out[key] = out.get(key, 0) + w * po
    return out


def test_shot_branching_matches_the_exact_density_matrix_distribution():
    c = Circuit.from_qasm(EVERYTHING)
    exact = exact_distribution(c)
    assert len(exact) > 10
    shots = 30000
    counts = c.counts(shots, seed=11, method="statevector")
    assert_distribution(counts, exact, shots)
    assert c.counts(shots, seed=11, method="statevector") == counts  # seeded
    assert c.counts(shots, seed=12, method="statevector") != counts
    from sampan.quantum.distributed import run
    r = run(c, shots=shots, seed=11, use_mpi=False)
    # Final branches: the 4 values of m; m == 0 also splits on out[2], m == 3 on the reset of r[1]
    # (RY(0.7) left it in superposition); the reset of q[0] in m == 1 is certain (q[0] = |1>).
    assert r["register_counts"] == counts and r["branches"] == 6
    assert sum(r["counts"].values()) == shots


# ---- under mpirun ---------------------------------------------------------------------------------
def _launcher(n):
    command = mpirun_command(n)
    if command is None:
        pytest.skip("no mpirun/mpiexec on PATH")
    if not sp._C.quantum_built_with_mpi():
        pytest.skip("sampan was built without MPI (install libopenmpi-dev and rebuild)")
    return command


def _run(cmd, timeout=180):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env["PYTHONPATH"] = os.path.join(REPO, "python") + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)


def _json_line(stdout):
    lines = [line for line in stdout.splitlines() if line.startswith("{")]
    assert len(lines) == 1, stdout  # only rank 0 prints
    return json.loads(lines[0])


@pytest.mark.parametrize("ranks", [2, 4])
def test_cli_under_mpirun_gives_the_counts_of_one_process(tmp_path, ranks):
    path = tmp_path / "everything.qasm"
    path.write_text(EVERYTHING)
    args = [sys.executable, "-m", "sampan", "quantum", "run", str(path), "--shots", "3000", "--seed", "5", "--json"]
    one = _run(args)
    assert one.returncode == 0, one.stderr
    multi = _run([*_launcher(ranks), *args])
    assert multi.returncode == 0, multi.stderr + multi.stdout
    a, b = json.loads(one.stdout), _json_line(multi.stdout)
    assert (a["ranks"], b["ranks"]) == (1, ranks) and a["branches"] == b["branches"] == 6
    assert a["register_counts"] == b["register_counts"] and a["counts"] == b["counts"]
    # ... and those of Circuit.counts on the state-vector path, in this process.
    assert a["register_counts"] == Circuit.from_qasm(EVERYTHING).counts(3000, seed=5, method="statevector")


def test_python_distributed_run_under_mpirun(tmp_path):
    script = tmp_path / "run.py"
    script.write_text(
        "import json, sys\n"
        "from sampan.quantum import Circuit\n"
        "from sampan.quantum.distributed import run\n"
        "r = run(Circuit.from_qasm(open(sys.argv[1]).read()), shots=2000, seed=9)\n"
        "if r['rank'] == 0:\n"
        "    print(json.dumps({'size': r['size'], 'register_counts': r['register_counts'], 'counts': r['counts']}))\n")
    path = tmp_path / "everything.qasm"
    path.write_text(EVERYTHING)
    r = _run([*_launcher(2), sys.executable, str(script), str(path)])
    assert r.returncode == 0, r.stderr + r.stdout
    out = _json_line(r.stdout)
    from sampan.quantum.distributed import run
    one = run(Circuit.from_qasm(EVERYTHING), shots=2000, seed=9, use_mpi=False)
    assert out["size"] == 2
    assert out["register_counts"] == one["register_counts"] and out["counts"] == one["counts"]
