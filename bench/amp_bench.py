"""bfloat16 against float32 GEMM throughput through sp.matmul, in one run (issue 18's CPU target:
bf16 >= 3x float32 GFLOP/s at n = 2048). bfloat16 goes to oneDNN's matmul (float32 accumulation,
rounded once), float32 to the BLAS sampan links; the build's choice is printed.

    .venv/bin/python bench/amp_bench.py [--threads 1 2] [--sizes 512 1024 2048] [--repeats 5]

Times are the best of interleaved repeats (float32, bfloat16, float32, ...), wall clock. GIN
training under autocast: bench/helix/train_bench.py --amp bfloat16. Prints numbers; asserts nothing.
"""
import argparse
import time

import numpy as np

import sampan as sp


def best_seconds(fns, repeats):
    best = [float("inf")] * len(fns)
    for _ in range(repeats):
        for i, fn in enumerate(fns):
            t0 = time.perf_counter()
            fn()
            best[i] = min(best[i], time.perf_counter() - t0)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--sizes", type=int, nargs="+", default=[512, 1024, 2048])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"BLAS: {sp.blas_library()}; bfloat16 GEMM: {sp.bf16_gemm_library()}")
    print(f"{'n':>5} {'thr':>3} {'float32 GFLOP/s':>16} {'bfloat16 GFLOP/s':>17} {'ratio':>6}")
    rng = np.random.default_rng(0)
    for threads in args.threads:
        sp.set_num_threads(threads)
        for n in args.sizes:
            a = sp.tensor(rng.standard_normal((n, n)).astype(np.float32))
            b = sp.tensor(rng.standard_normal((n, n)).astype(np.float32))
            a16, b16 = a.to(sp.bfloat16), b.to(sp.bfloat16)
            sp.matmul(a, b), sp.matmul(a16, b16)  # warm-up: oneDNN's primitive cache, the allocator
            t32, t16 = best_seconds([lambda: sp.matmul(a, b), lambda: sp.matmul(a16, b16)], args.repeats)
            flop = 2.0 * n ** 3
            print(f"{n:>5} {threads:>3} {flop / t32 / 1e9:>16.1f} {flop / t16 / 1e9:>17.1f} {t32 / t16:>6.2f}",
                  flush=True)
    print("ratio = float32 time / bfloat16 time (> 1: bfloat16 faster)")


if __name__ == "__main__":
    main()
