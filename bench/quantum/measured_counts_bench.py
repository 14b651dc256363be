"""Counts of a circuit with mid-circuit measurements and `if` on measure and reset: shot branching
on state vectors (Circuit.counts(method='statevector'), C++ run_measured_circuit) against exact
branches on density matrices (method='density_matrix'), same process, process CPU time.

    OMP_NUM_THREADS=1 PYTHONPATH=python .venv/bin/python bench/quantum/measured_counts_bench.py 6 8 10 20

The circuit: 3 layers of RY on every qubit and a CNOT ladder, each followed by a mid-circuit
measurement, a conditional reset and a conditional measurement, then every qubit measured; 2000
shots. The density-matrix path runs only up to 12 qubits (4^n memory)."""
import sys
import time

from sampan.quantum import Circuit


def program(n):
    lines = ['OPENQASM 2.0;', 'include "qelib1.inc";', f'qreg q[{n}];', 'creg m[2];', f'creg c[{n}];']
    for layer in range(3):
        lines += [f'ry({0.3 + 0.2 * i + layer:.3f}) q[{i}];' for i in range(n)]
        lines += [f'cx q[{i}],q[{i + 1}];' for i in range(n - 1)]
        lines.append(f'measure q[{layer % n}] -> m[{layer % 2}];')
        lines.append(f'if (m=={layer % 4}) reset q[{(layer + 1) % n}];')
        lines.append(f'if (m==1) measure q[{n - 1}] -> c[{layer}];')
    lines.append('measure q -> c;')
    return "\n".join(lines) + "\n"


def cpu_seconds(f):
    t0 = time.process_time()
    f()
    return time.process_time() - t0


def main():
    shots = 2000
    for n in map(int, sys.argv[1:] or ["6", "8", "10"]):
        c = Circuit.from_qasm(program(n))
        sv = cpu_seconds(lambda: c.counts(shots, seed=1, method="statevector"))
        row = f"n={n:2d} gates={len(c):3d}  statevector {sv:8.3f} s"
        if n <= 12:
            dm = cpu_seconds(lambda: c.counts(shots, seed=1, method="density_matrix"))
            row += f"  density_matrix {dm:8.3f} s  dm/sv {dm / sv:6.0f}x"
        print(row, flush=True)


if __name__ == "__main__":
    main()
