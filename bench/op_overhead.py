"""Per-op overhead from Python, written once for sampan and PyTorch (both spell these calls the
same way), so that each library runs the same statements. bench/framework_bench.py measures
sampan in its own process and every PyTorch it finds in a child process of that PyTorch's Python
(Debian's 1.13 through .venv-bench, the newest from PyPI in .venv-torch):

    python bench/op_overhead.py                              # sampan's rows (make bench runs this)
    python bench/op_overhead.py --lib torch --threads 1 --json   # one JSON line: version, rows
    python bench/op_overhead.py --lib torch --adds 20000     # only the loop callgrind counts

Instructions per `a + b` come from `valgrind --tool=callgrind` on the --adds loop with N adds minus
the same process with none (the import and set-up cancel), which the machine's load does not change.
"""
import argparse
import importlib
import json
import os
import re
import subprocess
import sys
import timeit

HERE = os.path.dirname(os.path.abspath(__file__))
CHAIN_LENGTH = 100
# (row name, statement, calls per timing, ops per call)
CASES = [("a + b, no grad", "a + b", 100000, 1),
         ("a + b, a requires grad", "ag + b", 100000, 1),
         (f"fwd+bwd of a {CHAIN_LENGTH}-add chain, per op", "chain(ag, b)", 200, CHAIN_LENGTH)]


def chain(x, y):
    c = x
    for _ in range(CHAIN_LENGTH):
        c = c + y
    c.sum().backward()


def operands(lib):
    """1-element float32 tensors: a, b without gradient, ag requiring one."""
    return {"a": lib.ones([1]), "b": lib.ones([1]), "ag": lib.ones([1]).requires_grad_(), "chain": chain}


def measure(lib, repeat=5):
    """Seconds per op of each case: the minimum over `repeat` timings of the mean."""
    env = operands(lib)
    return [min(timeit.repeat(stmt, globals=env, number=number, repeat=repeat)) / number / ops
            for _, stmt, number, ops in CASES]


def _import(name, threads):
    lib = importlib.import_module(name)
    if threads:  # importing torch sets the process's OpenMP thread count to 1: set it explicitly
        lib.set_num_threads(threads)
    return lib


def run_child(python, lib_name, threads):
    """Runs this file under `python` and returns its JSON ({"version", "rows"}), or None with the
    reason printed when that Python cannot import the library."""
    proc = subprocess.run([python, os.path.abspath(__file__), "--lib", lib_name, "--threads", str(threads), "--json"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        print(f"  ({python}: {lib_name} not measured: {last})")
        return None
    return json.loads(proc.stdout.strip().splitlines()[-1])


def instructions_per_add(python, lib_name, adds=20000, env=None):
    """Instructions per `a + b` under callgrind: (count with `adds` adds - count with none) / adds.
    Returns None, printing why, when valgrind is missing or a run fails."""
    counts = []
    for n in (adds, 0):
        cmd = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", python,
               os.path.abspath(__file__), "--lib", lib_name, "--adds", str(n)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True,
                                  env=dict(os.environ if env is None else env, PYTHONHASHSEED="0"))
        except FileNotFoundError:
            print("  (valgrind not found: no instruction counts; scripts/setup_bench.sh installs it)")
            return None
        found = re.search(r"Collected\s*:\s*(\d+)", proc.stderr)
        if proc.returncode != 0 or not found:
            print(f"  ({lib_name} under callgrind failed: {proc.stderr.strip().splitlines()[-1:]})")
            return None
        counts.append(int(found.group(1)))
    return (counts[0] - counts[1]) / adds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lib", choices=["sampan", "torch"], default="sampan")
    parser.add_argument("--json", action="store_true", help="print one JSON line (for run_child)")
    parser.add_argument("--threads", type=int, default=0, help="0: the library's default")
    parser.add_argument("--adds", type=int, default=None,
                        help="only run this many `a + b` (for callgrind) and print nothing")
    args = parser.parse_args()
    if args.lib == "sampan":
        sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
    lib = _import(args.lib, args.threads)
    if args.adds is not None:
        env = operands(lib)
        exec(compile(f"for _ in range({args.adds}):\n    a + b\n", "adds", "exec"), env)
        return
    rows = measure(lib)
    if args.json:
        print(json.dumps({"version": lib.__version__, "rows": rows}))
        return
    print(f"{args.lib} {lib.__version__}: per-op overhead from Python (1-element float32; "
          "bench/framework_bench.py compares it with PyTorch)")
    for (name, *_rest), seconds in zip(CASES, rows):
        print(f"  {name:40s} {seconds * 1e6:8.3f} us")


if __name__ == "__main__":
    main()
