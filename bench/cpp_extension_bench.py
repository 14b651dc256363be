"""Just-in-time op libraries (sampan.utils.cpp_extension.load): seconds of a cold build and of a
cache hit, each timed in a fresh interpreter (as a user's second session would see it), for a
trivial one-op library and for the Lennard-Jones example (examples/lennard_jones, whose
README has the table these figures feed). Prints the times and the cache hit as a fraction of
the build; asserts nothing. (That a cache hit runs no compiler is tested, by recording the
compiler's calls, in tests/python/test_cpp_extension.py.)

    PYTHONPATH=python .venv/bin/python bench/cpp_extension_bench.py
"""
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
LJ_DIR = REPO / "examples" / "lennard_jones"

TRIVIAL_OP = """
#include "sampan/op.h"
#include "sampan/ops.h"
using namespace sampan;

SAMPAN_OP(bench, scale)
    .args("x")
    .shape([](const TensorSpec& x) { return x; })
    .cpu([](const Tensor& x, Tensor& out) {
      Tensor c = x.contiguous();
      const double* px = c.data<double>();
      double* po = out.data<double>();
      for (int64_t i = 0; i < c.numel(); ++i) po[i] = 2.0 * px[i];
    })
    .vjp([](const VjpContext& c) -> Grads { return {c.grad_output(0) * 2.0}; });
"""


def timed_load(name, sources, root):
    """Seconds of load(name, sources) in a new interpreter with SAMPAN_EXTENSIONS_DIR=root."""
    code = textwrap.dedent(f"""
        import time
        from sampan.utils.cpp_extension import load
        t0 = time.perf_counter()
        load({name!r}, {[str(s) for s in sources]!r})
        print(time.perf_counter() - t0)
    """)
    env = dict(os.environ, SAMPAN_EXTENSIONS_DIR=str(root))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.split()[-1])


def main():
    with tempfile.TemporaryDirectory(prefix="sampan_jit_bench_") as tmp:
        tmp = Path(tmp)
        trivial = tmp / "trivial_op.cpp"
        trivial.write_text(TRIVIAL_OP)
        for name in ("lj_op.cpp", "lj_op.h", "lj_kernels.cpp", "lj_kernels.h"):
            shutil.copy(LJ_DIR / name, tmp / name)
        lj = [tmp / "lj_op.cpp", tmp / "lj_kernels.cpp"]  # the C++ sources (no nvcc needed)
        print(f"{'library':<34}  {'build s':>8}  {'cache hit s':>11}  {'hit / build':>11}")
        for label, name, sources in (("trivial op (1 source)", "bench_trivial", [trivial]),
                                     ("Lennard-Jones example (2 sources)", "bench_lj", lj)):
            root = tmp / f"cache_{name}"
            build = timed_load(name, sources, root)
            hit = timed_load(name, sources, root)
            print(f"{label:<34}  {build:8.2f}  {hit:11.3f}  {hit / build:11.4f}")


if __name__ == "__main__":
    main()
