"""Speed of the OpenQASM 2.0 reader (Circuit.from_qasm) on large files: process CPU time per gate
for 10,000 to 80,000 gates, and the ratio of each size's time to the previous one's (2.0 for a
reader linear in the file; 4.0 would be quadratic). The test suite checks what the reader reads
(tests/python/test_quantum_qasm.py); this measures how fast.

    PYTHONPATH=python .venv/bin/python bench/quantum/qasm_import_bench.py [repeats]
"""
import sys
import time

from sampan.quantum import Circuit

HEAD = 'OPENQASM 2.0;\ninclude "qelib1.inc";\n'


def program(n_gates, n_qubits=20):
    """rz with angles in units of pi, cx and h, on 20 qubits, then every qubit measured."""
    lines = [HEAD + f"qreg q[{n_qubits}];\ncreg c[{n_qubits}];"]
    for i in range(n_gates):
        q, other = i % n_qubits, (i * 7 + 3) % n_qubits
        if i % 2:
            lines.append(f"rz({0.001 * i}*pi) q[{q}];")
        elif q != other:
            lines.append(f"cx q[{q}],q[{other}];")
        else:
            lines.append(f"h q[{q}];")
    return "\n".join(lines) + "\nmeasure q -> c;\n"


def seconds(text, repeats):
    """Minimum over `repeats` of the process CPU time of one import."""
    best = float("inf")
    for _ in range(repeats):
        t0 = time.process_time()
        c = Circuit.from_qasm(text)
        best = min(best, time.process_time() - t0)
    assert len(c) > 0
    return best


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    print(f"{'gates':>7}  {'bytes':>9}  {'ms':>9}  {'us/gate':>8}  {'x previous':>10}")
    previous = None
    for n in (10_000, 20_000, 40_000, 80_000):
        text = program(n)
        t = seconds(text, repeats)
        ratio = f"{t / previous:10.2f}" if previous else f"{'':>10}"
        print(f"{n:>7}  {len(text):>9}  {1e3 * t:9.1f}  {1e6 * t / n:8.2f}  {ratio}")
        previous = t


if __name__ == "__main__":
    main()
