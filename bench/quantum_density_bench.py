"""Density-matrix simulation cost: forward tr(H rho) against forward + adjoint gradient over a
noisy layered circuit (RY on every qubit, CNOT ladder, depolarizing on every qubit, per layer).

    PYTHONPATH=python .venv/bin/python bench/quantum_density_bench.py [n ...]
"""
import sys
import time

import sampan as sp
from sampan.quantum import Circuit, Hamiltonian


def best_of(f, reps):
    best = float("inf")
    for _ in range(reps):
        t = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t)
    return best


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [6, 8, 10]
    layers = 4
    print(f"{'n':>3} {'gates':>6} {'channels':>8} {'forward s':>10} {'fwd+grad s':>11} {'ratio':>6}")
    for n in sizes:
        c = Circuit(n, seed=1)
        for _ in range(layers):
            c.ry(None, "full").cnot("linear").depolarizing(0.01)
        h = Hamiltonian([(1.0, f"Z{q}") for q in range(n)] + [(0.5, f"X{q} X{q + 1}") for q in range(n - 1)])
        params = c.parameters

        def forward():
            with sp.no_grad():
                c.expectation(h)

        def backward():
            e = c.expectation(h)
            sp.grad([e], [params])

        reps = 5 if n <= 8 else 2
        f, b = best_of(forward, reps), best_of(backward, reps)
        n_ch = sum(1 for name, _ in c.gates() if name == "depolarizing")
        print(f"{n:>3} {len(c) - n_ch:>6} {n_ch:>8} {f:>10.4f} {b:>11.4f} {b / f:>6.2f}")


if __name__ == "__main__":
    main()
