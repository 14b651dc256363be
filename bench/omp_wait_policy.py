"""How OpenMP's wait policy changes sampan's own parallel loops on a busy machine: wall time and
CPU time per op for libgomp's default (spin GOMP_SPINCOUNT = 300,000 rounds, then sleep), PASSIVE
(sleep at once), a short spin (GOMP_SPINCOUNT = 10,000) and ACTIVE (spin only), each in a fresh process
(libgomp reads the variable once, when it loads), interleaved over rounds so that every setting
sees the same load.

    .venv/bin/python bench/omp_wait_policy.py --rounds 5 --threads 2

Cases (float32, the process's sampan threads = --threads):
  add 1M          a + b of 1,048,576 elements, fresh output (one parallel region per op)
  small-op loop   y = x * 0.5 + y on 65,536 elements (just above the parallel grain), 2 ops
  ops + Python    the same with ~20 us of Python work between the ops, as a model's step has
  matmul layer    tanh(h @ w + 0.5), h 64 x 256, w 256 x 256: OpenBLAS's pool, then OpenMP's
Wall times are medians over rounds of each round's best-of-5; CPU time is the process's (every
thread, spinning included) per op. Prints numbers; asserts nothing.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

# each: the environment a fresh process gets (OPENBLAS_THREAD_TIMEOUT: how long OpenBLAS's own
# pool spins, 2^N cycles, N = 4..30, default 28)
POLICIES = {
    "default": {"GOMP_SPINCOUNT": "300000"},  # libgomp's own default, named so sampan keeps it
    "passive": {"OMP_WAIT_POLICY": "PASSIVE"},
    "spin10k": {"GOMP_SPINCOUNT": "10000"},
    "active": {"OMP_WAIT_POLICY": "ACTIVE"},
    "passive+blas": {"OMP_WAIT_POLICY": "PASSIVE", "OPENBLAS_THREAD_TIMEOUT": "4"},
}
KNOBS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "OPENBLAS_THREAD_TIMEOUT")


def child(threads):
    import sampan as sp
    sp.set_num_threads(threads)

    def python_work():
        total = 0
        for i in range(150):  # ~20 us of interpreter work
            total += i * i
        return total

    a, b = sp.ones([1 << 20]), sp.ones([1 << 20])
    x, y = sp.ones([1 << 16]), sp.ones([1 << 16])
    w, h = sp.ones([256, 256]) * 0.01, sp.ones([64, 256])

    def add_big():
        a + b

    def small_ops():
        x * 0.5 + y

    def small_ops_gaps():
        x * 0.5 + y
        python_work()

    def layer():
        (h @ w + 0.5).tanh()

    cases = {"add 1M": (add_big, 200, 1), "small-op loop": (small_ops, 2000, 2),
             "ops + Python": (small_ops_gaps, 2000, 2), "matmul layer": (layer, 500, 3)}
    out = {}
    for name, (fn, number, ops) in cases.items():
        fn()
        best_wall, cpu = float("inf"), []
        for _ in range(5):
            w0, c0 = time.perf_counter(), time.process_time()
            for _ in range(number):
                fn()
            best_wall = min(best_wall, (time.perf_counter() - w0) / (number * ops))
            cpu.append((time.process_time() - c0) / (number * ops))
        out[name] = (best_wall, statistics.median(cpu))
    print(json.dumps(out))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.threads)
        return
    results = {policy: [] for policy in POLICIES}
    load = [os.getloadavg()[0]]
    for _ in range(args.rounds):
        for policy, setting in POLICIES.items():
            env = {k: v for k, v in os.environ.items() if k not in KNOBS}
            env.update(setting)
            run = subprocess.run([sys.executable, __file__, "--child", "--threads", str(args.threads)],
                                 env=env, capture_output=True, text=True, check=True)
            results[policy].append(json.loads(run.stdout.strip().splitlines()[-1]))
    load.append(os.getloadavg()[0])
    print(f"sampan threads {args.threads}, {args.rounds} rounds, load average {load[0]:.1f} -> {load[1]:.1f}")
    print(f"  {'case':14s} {'policy':12s} {'wall us/op':>11s} {'CPU us/op':>10s}  (median over rounds; range)")
    for case in results["default"][0]:
        for policy in POLICIES:
            walls = [r[case][0] * 1e6 for r in results[policy]]
            cpus = [r[case][1] * 1e6 for r in results[policy]]
            print(f"  {case:14s} {policy:12s} {statistics.median(walls):11.1f} {statistics.median(cpus):10.1f}"
                  f"  ({min(walls):.1f}-{max(walls):.1f}; {min(cpus):.1f}-{max(cpus):.1f})")


if __name__ == "__main__":
    main()
