"""sampan framework benchmark from Python: per-op overhead against PyTorch (when importable in
this environment; `make bench` uses .venv-bench, which sees Debian's python3-torch) and matmul
GFLOP/s against NumPy's BLAS (bench/matmul_vs_numpy.py, which has the options for threads and
clocks), all measured in this one run. Prints ratios; asserts nothing.

    make bench                    # or: .venv-bench/bin/python bench/framework_bench.py
"""
import time
import timeit

import numpy as np

import sampan as sp
from matmul_vs_numpy import print_matmul

THREADS = sp.get_num_threads()
try:
    import torch  # importing it sets the process's OpenMP thread count to 1: restore both
    torch.set_num_threads(THREADS)
    sp.set_num_threads(THREADS)
except ImportError:  # the ratio columns then say so
    torch = None


def per_call(stmt, env, number):
    """Minimum over 5 repeats of the mean seconds per call."""
    return min(timeit.repeat(stmt, globals=env, number=number, repeat=5)) / number


def overhead_rows():
    a, b = sp.ones([1]), sp.ones([1])
    ag = sp.ones([1]).requires_grad_()
    rows = [("a + b, no grad", per_call("a + b", locals(), 100000)),
            ("a + b, a requires grad", per_call("ag + b", locals(), 100000))]

    def chain(lib, x, y):
        c = x
        for _ in range(100):
            c = c + y
        c.sum().backward()

    rows.append(("fwd+bwd of a 100-add chain, per op",
                 per_call("chain(sp, ag, b)", {"chain": chain, "sp": sp, "ag": ag, "b": b}, 200) / 100))
    theirs = [None] * 3
    if torch is not None:
        ta, tb = torch.ones(1), torch.ones(1)
        tg = torch.ones(1, requires_grad=True)
        theirs = [per_call("ta + tb", locals(), 100000),
                  per_call("tg + tb", locals(), 100000),
                  per_call("chain(torch, tg, tb)", {"chain": chain, "torch": torch, "tg": tg, "tb": tb}, 200) / 100]
    return [(name, ours, t) for (name, ours), t in zip(rows, theirs)]


def main():
    print(f"sampan {sp.__version__}, threads {sp.get_num_threads()}, "
          f"PyTorch {torch.__version__ if torch else 'not installed'}, NumPy {np.__version__}")
    print(f"sampan's BLAS: {sp.blas_library()}\n")
    print("per-op overhead from Python (1-element float32)")
    print(f"  {'case':40s} {'sampan':>9s} {'PyTorch':>9s} {'ratio':>7s}")
    for name, ours, theirs in overhead_rows():
        t = f"{theirs * 1e6:8.3f}u" if theirs else "      -  "
        r = f"{ours / theirs:7.2f}" if theirs else "      -"
        print(f"  {name:40s} {ours * 1e6:8.3f}u {t} {r}")
    print("  target: ratio <= 0.5 for the first row (issue 'Core engine')\n")
    print_matmul(time.perf_counter, repeats=7)


if __name__ == "__main__":
    main()
