"""matmul GFLOP/s of sampan against NumPy's BLAS in one process (issue 2's target: ratio >= 0.9
for n >= 512), optionally with a third column: Debian's OpenBLAS called directly (what sampan
linked before it linked PyPI's scipy-openblas32), so that before and after share one window.

    .venv-bench/bin/python bench/matmul_vs_numpy.py --threads 1 --clock cpu --system-openblas
    .venv-bench/bin/python bench/matmul_vs_numpy.py --threads 2

--threads N sizes sampan's threads (OpenMP and its BLAS pool), NumPy's OpenBLAS pool and Debian's
alike. Times are the best of interleaved repeats (ours, NumPy, Debian, ours, ...), so that a busy
machine slows every column in the same window; ratio = NumPy's best time / ours. --clock cpu times
this thread's CPU time instead of the wall clock: valid with --threads 1 only (each BLAS then
multiplies in the calling thread), it leaves out the time spent waiting for a core on a loaded box.
Prints numbers; asserts nothing.
"""
import argparse
import ctypes
import os
import time

import numpy as np

import sampan as sp

SIZES = (512, 1024, 2048)
DTYPES = ("float32", "float64", "complex64")
DEBIAN_OPENBLAS = "/usr/lib/x86_64-linux-gnu/libopenblas.so.0"


def _loaded(substring):
    return sorted({line.split()[-1] for line in open("/proc/self/maps")
                   if "/" in line and substring in os.path.basename(line.split()[-1])})


def numpy_openblas():
    """NumPy's own OpenBLAS as (ctypes library, prefix, suffix), or None: PyPI's NumPy 2 carries
    scipy-openblas64 (names scipy_openblas_*64_); a Debian NumPy uses libopenblas."""
    import numpy.linalg  # noqa: F401  (loads the BLAS)
    for path in _loaded("openblas64"):
        return ctypes.CDLL(path), "scipy_openblas_", "64_"
    # a Debian NumPy's libopenblas, when sampan's is another library (else it is the same pool)
    if not sp.blas_library().startswith("system"):
        for path in _loaded("libopenblas"):
            return ctypes.CDLL(path), "openblas_", ""
    return None


def describe_openblas(lib, prefix="openblas_", suffix=""):
    config = getattr(lib, prefix + "get_config" + suffix)
    config.restype = ctypes.c_char_p
    pool = getattr(lib, prefix + "get_num_threads" + suffix)()
    return f"{config().decode().strip()}, pool {pool}"


class DebianOpenBLAS:
    """cblas_?gemm of Debian's libopenblas through ctypes (row-major, no transposes)."""
    ROW_MAJOR, NO_TRANS = 101, 111

    def __init__(self, threads):
        self.lib = ctypes.CDLL(DEBIAN_OPENBLAS)
        if threads:
            self.lib.openblas_set_num_threads(threads)

    def matmul(self, x, y):
        n, k = x.shape
        m = y.shape[1]
        out = np.empty((n, m), dtype=x.dtype)
        ptr = [a.ctypes.data_as(ctypes.c_void_p) for a in (x, y, out)]
        dims = (self.ROW_MAJOR, self.NO_TRANS, self.NO_TRANS, n, m, k)
        if x.dtype == np.complex64:
            one, zero = np.array([1, 0], np.float32), np.zeros(2, np.float32)
            self.lib.cblas_cgemm(*dims, one.ctypes.data_as(ctypes.c_void_p), ptr[0], k, ptr[1], m,
                                 zero.ctypes.data_as(ctypes.c_void_p), ptr[2], m)
        else:
            real = ctypes.c_float if x.dtype == np.float32 else ctypes.c_double
            call = self.lib.cblas_sgemm if x.dtype == np.float32 else self.lib.cblas_dgemm
            call(*dims, real(1), ptr[0], k, ptr[1], m, real(0), ptr[2], m)
        return out


def matmul_rows(clock, repeats, debian=None, sizes=SIZES, dtypes=DTYPES):
    """(n, dtype, GFLOP/s of sampan, of NumPy, of Debian's OpenBLAS or None) per case."""
    rows = []
    for n in sizes:
        for dtype in dtypes:
            rng = np.random.default_rng(n)
            x = rng.standard_normal((n, n)).astype(dtype)
            y = rng.standard_normal((n, n)).astype(dtype)
            if dtype.startswith("complex"):
                x = x + 1j * rng.standard_normal((n, n)).astype(dtype)
            sx, sy = sp.from_numpy(x), sp.from_numpy(y)
            calls = [lambda: sx @ sy, lambda: x @ y]
            if debian:
                calls.append(lambda: debian.matmul(x, y))
                # the same product: a wrong call would time something else
                np.testing.assert_allclose(calls[2](), calls[1](), rtol=1e-3, atol=1e-2 * n ** 0.5)
            flops = (8.0 if dtype.startswith("complex") else 2.0) * n ** 3
            number = max(1, int(1e8 / flops))  # ~0.1 GFLOP per timing: some run undisturbed
            for call in calls:
                call()  # warm the pools and the allocators
            best = [float("inf")] * len(calls)
            for _ in range(repeats):
                for i, call in enumerate(calls):
                    start = clock()
                    for _ in range(number):
                        call()
                    best[i] = min(best[i], (clock() - start) / number)
            gflops = [flops / t / 1e9 for t in best]
            rows.append((n, dtype, gflops[0], gflops[1], gflops[2] if debian else None))
    return rows


def set_threads(threads):
    """Sizes sampan's threads and NumPy's OpenBLAS pool alike."""
    sp.set_num_threads(threads)
    found = numpy_openblas()
    if found:
        lib, prefix, suffix = found
        getattr(lib, prefix + "set_num_threads" + suffix)(threads)


def print_header():
    print(f"sampan {sp.__version__}, threads {sp.get_num_threads()}, NumPy {np.__version__}")
    print(f"sampan's BLAS: {sp.blas_library()}, pool {sp.blas_num_threads()}")
    found = numpy_openblas()
    print("NumPy's BLAS: " + (describe_openblas(*found) if found else "not an OpenBLAS this can ask"))


def print_matmul(clock, repeats, debian=None, sizes=SIZES):
    print(f"matmul GFLOP/s (n x n @ n x n; complex counts 8 n^3 real flops; best of {repeats}, "
          f"{'thread CPU time' if clock is time.thread_time else 'wall clock'})")
    print(f"  {'n':>5s} {'dtype':9s} {'sampan':>8s} {'NumPy':>8s} {'ratio':>6s}"
          + (f" {'Debian':>8s} {'Debian/NumPy':>12s}" if debian else ""))
    for n, dtype, ours, theirs, deb in matmul_rows(clock, repeats, debian, sizes):
        line = f"  {n:5d} {dtype:9s} {ours:8.1f} {theirs:8.1f} {ours / theirs:6.2f}"
        if deb is not None:
            line += f" {deb:8.1f} {deb / theirs:12.2f}"
        print(line)
    print("  target: ratio >= 0.9 for n >= 512")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, help="threads for sampan's and NumPy's BLAS alike")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="wall clock, or this thread's CPU time (only with --threads 1)")
    parser.add_argument("--repeats", type=int, default=15, help="timings per case (best kept)")
    parser.add_argument("--sizes", type=int, nargs="+", default=list(SIZES))
    parser.add_argument("--system-openblas", action="store_true",
                        help=f"add a column for Debian's OpenBLAS called directly ({DEBIAN_OPENBLAS})")
    args = parser.parse_args()
    if args.clock == "cpu" and args.threads != 1:
        parser.error("--clock cpu needs --threads 1 (other threads' time would be left out)")
    if args.threads:
        set_threads(args.threads)
    debian = None
    if args.system_openblas:
        if not os.path.exists(DEBIAN_OPENBLAS):
            parser.error(f"{DEBIAN_OPENBLAS} not found (Debian package libopenblas0-pthread)")
        debian = DebianOpenBLAS(args.threads)
    print_header()
    if debian:
        print(f"Debian's OpenBLAS: {describe_openblas(debian.lib)}")
    print(f"load average at start: {os.getloadavg()[0]:.2f}\n")
    print_matmul(time.thread_time if args.clock == "cpu" else time.perf_counter, args.repeats,
                 debian, args.sizes)
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
