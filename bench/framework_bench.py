"""sampan framework benchmark from Python: per-op overhead against PyTorch, both Debian's
python3-torch 1.13 (the reference baselines' build, seen by .venv-bench) and the newest PyTorch
from PyPI (.venv-torch), each in a child process running the same statements (bench/op_overhead.py),
with instructions per `a + b` under callgrind; then matmul GFLOP/s against NumPy's BLAS
(bench/matmul_vs_numpy.py, which has the options for threads and clocks). All measured in this
one run; prints ratios, asserts nothing.

    make bench        # or: .venv-bench/bin/python bench/framework_bench.py [--no-instructions]
"""
import argparse
import os
import sys
import time

import numpy as np

import sampan as sp
from matmul_vs_numpy import print_matmul
import op_overhead

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROUNDS = 2  # sampan and each PyTorch alternate, so a change in load reaches all of them


def torch_pythons():
    """The Pythons whose PyTorch is compared: this one (Debian's in .venv-bench) and .venv-torch's."""
    found = [sys.executable]
    newest = os.path.join(REPO, ".venv-torch", "bin", "python")
    if os.path.exists(newest):
        found.append(newest)
    else:
        print("  (.venv-torch missing: scripts/setup_bench.sh makes it; only this Python's PyTorch is compared)")
    return found


def overhead_table(threads, count_instructions):
    pythons = torch_pythons()
    ours = None
    peers = {}  # python -> {"version", "rows"}
    for _ in range(ROUNDS):
        rows = op_overhead.measure(sp)
        ours = rows if ours is None else [min(x, y) for x, y in zip(ours, rows)]
        for python in pythons:
            got = op_overhead.run_child(python, "torch", threads)
            if got is None:
                continue
            kept = peers.setdefault(python, got)
            kept["rows"] = [min(x, y) for x, y in zip(kept["rows"], got["rows"])]
    header = f"  {'case':40s} {'sampan':>9s}" + "".join(
        f" {'PyTorch ' + p['version'].split('+')[0]:>14s} {'ratio':>6s}" for p in peers.values())
    print(header)
    for i, (name, *_rest) in enumerate(op_overhead.CASES):
        line = f"  {name:40s} {ours[i] * 1e6:8.3f}u"
        for p in peers.values():
            line += f" {p['rows'][i] * 1e6:13.3f}u {ours[i] / p['rows'][i]:6.2f}"
        print(line)
    if count_instructions:
        sampan_env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "python"))
        mine = op_overhead.instructions_per_add(sys.executable, "sampan", env=sampan_env)
        line = f"  {'instructions per a + b (callgrind)':40s} " + (f"{mine:9,.0f}" if mine else "        -")
        for python, p in peers.items():
            theirs = op_overhead.instructions_per_add(python, "torch")
            if mine and theirs:
                line += f" {theirs:14,.0f} {mine / theirs:6.2f}"
        print(line)
    print("  target: ratio <= 0.3 against the newest PyTorch for the first row (issue 'Ahead of every peer')\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-instructions", action="store_true", help="skip the callgrind counts")
    args = parser.parse_args()
    threads = sp.get_num_threads()
    print(f"sampan {sp.__version__}, threads {threads}, NumPy {np.__version__}")
    print(f"sampan's BLAS: {sp.blas_library()}\n")
    print("per-op overhead from Python (1-element float32; each PyTorch in a child process)")
    overhead_table(threads, not args.no_instructions)
    print_matmul(time.perf_counter, repeats=7)


if __name__ == "__main__":
    main()
