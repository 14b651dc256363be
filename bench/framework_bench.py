"""sampan framework benchmark from Python: per-op overhead against PyTorch (when importable in
this environment; `make bench` uses .venv-bench, which sees Debian's python3-torch) and matmul
GFLOP/s against NumPy's BLAS, all measured in this one run. Prints ratios; asserts nothing.

    make bench                    # or: .venv-bench/bin/python bench/framework_bench.py
"""
import timeit

import numpy as np

import sampan as sp

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


def matmul_rows():
    rows = []
    for n in (256, 512, 1024):
        for dtype in ("float32", "float64"):
            x = np.random.default_rng(0).standard_normal((n, n)).astype(dtype)
            y = np.random.default_rng(1).standard_normal((n, n)).astype(dtype)
            sx, sy = sp.from_numpy(x), sp.from_numpy(y)
            reps = max(1, int(2e9 / (2 * n ** 3)))
            t_ours = per_call("sx @ sy", locals(), reps)
            t_np = per_call("x @ y", locals(), reps)
            flops = 2.0 * n ** 3
            rows.append((n, dtype, flops / t_ours / 1e9, flops / t_np / 1e9))
    return rows


def main():
    print(f"sampan {sp.__version__}, threads {sp.get_num_threads()}, "
          f"PyTorch {torch.__version__ if torch else 'not installed'}, NumPy {np.__version__}\n")
    print("per-op overhead from Python (1-element float32)")
    print(f"  {'case':40s} {'sampan':>9s} {'PyTorch':>9s} {'ratio':>7s}")
    for name, ours, theirs in overhead_rows():
        t = f"{theirs * 1e6:8.3f}u" if theirs else "      -  "
        r = f"{ours / theirs:7.2f}" if theirs else "      -"
        print(f"  {name:40s} {ours * 1e6:8.3f}u {t} {r}")
    print("  target: ratio <= 0.5 for the first row (issue 'Core engine')\n")
    print("matmul GFLOP/s (n x n @ n x n)")
    print(f"  {'n':>5s} {'dtype':8s} {'sampan':>8s} {'NumPy':>8s} {'ratio':>6s}")
    for n, dtype, ours, theirs in matmul_rows():
        print(f"  {n:5d} {dtype:8s} {ours:8.1f} {theirs:8.1f} {ours / theirs:6.2f}")
    print("  target: ratio >= 0.9 for n >= 512")


if __name__ == "__main__":
    main()
