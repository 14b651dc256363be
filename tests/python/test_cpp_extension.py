"""Just-in-time op libraries (sampan.utils.cpp_extension): the Lennard-Jones example built from its
sources, the cache (hit, rebuild on a source or header change), concurrent loaders, a stale lock,
compiler errors, missing compilers, ABI mismatch, duplicate op names, and autograd through the op.

Libraries are built under a temporary SAMPAN_EXTENSIONS_DIR. A process can hold only one build of
an op (op names are unique), so the tests that rebuild one op run their loads in child processes.
"""
import fcntl
import itertools
import multiprocessing
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import sampan as sp
from sampan.utils import cpp_extension
from sampan.utils.cpp_extension import BuildError, CompilerNotFoundError, load

REPO = Path(__file__).resolve().parents[2]
LJ_DIR = REPO / "examples" / "lennard_jones"
PACKAGE_PARENT = str(Path(sp.__file__).resolve().parent.parent)
HAVE_NVCC = bool(cpp_extension.build_config().get("cuda", {}).get("available"))

# A small op whose factor lives in a header, so that header edits can be tested.
TRIVIAL_OP = """
#include "sampan/op.h"
#include "sampan/ops.h"
#include "factor.h"
using namespace sampan;

SAMPAN_OP({ns}, scale)
    .doc("x * FACTOR.")
    .args("x")
    .outputs("out")
    .shape([](const TensorSpec& x) {{ return x; }})
    .cpu([](const Tensor& x, Tensor& out) {{
      Tensor c = x.contiguous();
      const double* px = c.data<double>();
      double* po = out.data<double>();
      for (int64_t i = 0; i < c.numel(); ++i) po[i] = FACTOR * px[i];
    }})
    .vjp([](const VjpContext& c) -> Grads {{ return {{c.grad_output(0) * FACTOR}}; }});
"""


def write_trivial_op(folder: Path, ns: str, factor: float = 2.0, extra: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "factor.h").write_text(f"#pragma once\n#define FACTOR {factor!r}\n")
    src = folder / f"{ns}_op.cpp"
    src.write_text(TRIVIAL_OP.format(ns=ns) + extra)
    return src


@pytest.fixture(scope="module")
def ext_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("sampan_extensions")
    old = os.environ.get("SAMPAN_EXTENSIONS_DIR")
    os.environ["SAMPAN_EXTENSIONS_DIR"] = str(root)
    yield root
    if old is None:
        os.environ.pop("SAMPAN_EXTENSIONS_DIR", None)
    else:
        os.environ["SAMPAN_EXTENSIONS_DIR"] = old


def child_env(root: Path) -> dict:
    env = dict(os.environ, SAMPAN_EXTENSIONS_DIR=str(root))
    env["PYTHONPATH"] = PACKAGE_PARENT + os.pathsep + env.get("PYTHONPATH", "")
    return env


def run_child(code: str, root: Path, timeout: float = 300) -> str:
    """Runs Python `code` in a fresh interpreter; returns its stdout (fails the test on error)."""
    res = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=child_env(root),
                         capture_output=True, text=True, timeout=timeout)
    assert res.returncode == 0, f"child failed:\n{res.stdout}\n{res.stderr}"
    return res.stdout


def builds_in(folder: Path) -> int:
    log = folder / "builds.txt"
    return len(log.read_text().splitlines()) if log.exists() else 0


# ---------------------------------------------------------------------------------------------
# The Lennard-Jones example
# ---------------------------------------------------------------------------------------------

def lj_sources(folder: Path) -> list:
    """The example's sources copied to `folder` (the .cu one only where nvcc exists)."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("lj_op.cpp", "lj_op.h", "lj_kernels.cpp", "lj_kernels.h", "lj_kernels.cu"):
        shutil.copy(LJ_DIR / name, folder / name)
    names = ["lj_op.cpp", "lj_kernels.cpp"] + (["lj_kernels.cu"] if HAVE_NVCC else [])
    return [str(folder / n) for n in names]


@pytest.fixture(scope="module")
def lj(ext_root, tmp_path_factory):
    sources = lj_sources(tmp_path_factory.mktemp("lj_src"))
    module = load("lj", sources)
    module.sources = sources
    return module


POS = [[3.26, 5.12, 5.22], [3.76, 1.27, 0.17], [3.00, 1.19, 5.13],
       [4.46, 0.85, 4.50], [0.40, 1.61, 4.04], [3.82, 0.60, 3.29]]
BOX = [5.0, 5.5, 6.0]
EPS, SIGMA, RCUT = 1.0, 1.0, 2.4


def lj_inputs(requires_grad=False):
    pos = sp.tensor(np.array(POS), dtype=sp.float64, requires_grad=requires_grad)
    pairs = sp.tensor(np.array(list(itertools.combinations(range(6), 2))), dtype=sp.int64)
    box = sp.tensor(np.array(BOX), dtype=sp.float64)
    return pos, pairs, box


def test_jit_build_returns_the_ops_of_the_library(lj):
    assert sorted(lj.op_names) == ["md::lj_box_grad", "md::lj_energy", "md::lj_forces", "md::lj_hvp"]
    # The same function objects as sp.ops.md.*, with signature and docstring from the schema.
    assert lj.lj_energy is sp.ops.md.lj_energy
    assert lj.lj_forces is sp.ops.md.lj_forces
    import inspect
    assert list(inspect.signature(lj.lj_energy).parameters) == ["pos", "pairs", "box", "eps", "sigma", "rcut"]
    assert "Lennard-Jones" in lj.lj_energy.__doc__
    pos, pairs, box = lj_inputs()
    e = lj.lj_energy(pos, pairs, box, EPS, SIGMA, RCUT)
    # The energy from NumPy: shifted LJ over minimum-image distances.
    x, L = np.array(POS), np.array(BOX)
    expected = 0.0
    for i, j in itertools.combinations(range(6), 2):
        d = x[j] - x[i]
        d -= L * np.rint(d / L)
        r = np.linalg.norm(d)
        if r < RCUT:
            expected += 4 * EPS * ((SIGMA / r) ** 12 - (SIGMA / r) ** 6) - 4 * EPS * ((SIGMA / RCUT) ** 12 - (SIGMA / RCUT) ** 6)
    assert abs(e.item() - expected) < 1e-12 * (1 + abs(expected))


def test_cache_hit_of_the_example_does_not_build(lj, monkeypatch):
    def no_build(*args, **kwargs):
        raise AssertionError("a cache hit must not build")
    monkeypatch.setattr(cpp_extension, "_build", no_build)
    again = load("lj", lj.sources)
    assert again.lj_energy is lj.lj_energy and again.__file__ == lj.__file__
    assert builds_in(Path(lj.__file__).parent) == 1


def recording_compiler(folder: Path) -> tuple:
    """A C++ compiler that appends each command line to calls.txt, then runs the real one."""
    real = cpp_extension._cxx_compiler(cpp_extension.build_config())
    log = folder / "calls.txt"
    wrapper = folder / "c++"
    wrapper.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{real}" "$@"\n')
    wrapper.chmod(0o755)
    return wrapper, log


def compiler_calls(log: Path) -> list:
    """The recorded command lines other than `--version` (which a cache key asks for)."""
    lines = log.read_text().splitlines() if log.exists() else []
    return [line for line in lines if line.strip() != "--version"]


def test_cache_hit_runs_no_compiler_in_this_process_or_a_new_one(ext_root, tmp_path, monkeypatch):
    wrapper, log = recording_compiler(tmp_path)
    src = write_trivial_op(tmp_path / "src", "cachehit", factor=2.0)
    # A child process loads with the recording compiler (this process may load the op only once).
    code = f"""
        import sampan as sp
        from sampan.utils import cpp_extension
        config = dict(cpp_extension.build_config(), cxx_compiler={str(wrapper)!r})
        cpp_extension.build_config = lambda: config
        m = cpp_extension.load("cachehit", [{str(src)!r}])
        print(m.scale(sp.tensor([1.5], dtype=sp.float64)).item(), m.__file__)
    """
    value, first = run_child(code, ext_root).split()
    assert float(value) == 3.0
    calls = compiler_calls(log)
    assert len(calls) == 2 and " -c " in calls[0] and calls[1].endswith(".so")  # compile, link
    log.unlink()
    # The same sources again in a new process: loaded from the cache, the compiler never runs.
    value, path = run_child(code, ext_root).split()
    assert float(value) == 3.0 and path == first
    assert compiler_calls(log) == []
    # And in this process, twice.
    config = dict(cpp_extension.build_config(), cxx_compiler=str(wrapper))
    monkeypatch.setattr(cpp_extension, "build_config", lambda: config)
    m = load("cachehit", [str(src)])
    assert m.__file__ == first and m.scale(sp.tensor([1.0], dtype=sp.float64)).item() == 2.0
    assert load("cachehit", [str(src)]).scale is m.scale
    assert compiler_calls(log) == [] and builds_in(Path(first).parent) == 1


def test_forces_are_minus_the_autograd_gradient_of_the_energy(lj):
    pos, pairs, box = lj_inputs(requires_grad=True)
    e = lj.lj_energy(pos, pairs, box, EPS, SIGMA, RCUT)
    (g,) = sp.grad(e, pos)
    f = lj.lj_forces(pos.detach(), pairs, box, EPS, SIGMA, RCUT)
    np.testing.assert_allclose(-g.numpy(), f.numpy(), rtol=1e-13, atol=1e-13)
    assert np.abs(f.numpy()).max() > 0.5
    np.testing.assert_allclose(f.numpy().sum(axis=0), 0.0, atol=1e-12)  # Newton's third law


def test_double_backward_through_forces_is_the_hessian(lj):
    pos, pairs, box = lj_inputs(requires_grad=True)
    w = sp.tensor(np.sin(np.arange(18.0)).reshape(6, 3), dtype=sp.float64)
    e = lj.lj_energy(pos, pairs, box, EPS, SIGMA, RCUT)
    (g,) = sp.grad(e, pos, create_graph=True)
    (hw,) = sp.grad((g * w).sum(), pos)
    h_pos, _ = lj.lj_hvp(pos.detach(), pairs, box, w, sp.zeros([3], dtype=sp.float64), EPS, SIGMA, RCUT)
    np.testing.assert_allclose(hw.numpy(), h_pos.numpy(), rtol=1e-12, atol=1e-12)


def test_check_op_from_python(lj):
    pos, pairs, box = lj_inputs()
    for name in ("md::lj_energy", "md::lj_forces", "md::lj_box_grad"):
        report = sp.testing.check_op(name, pos, pairs, box, EPS, SIGMA, RCUT)
        assert report.ok, report.summary()
    report = sp.testing.check_op(lj.lj_energy, pos, pairs, box, EPS, SIGMA, RCUT)
    assert report.ok, report.summary()


def test_op_errors_name_the_op_and_argument(lj):
    pos, pairs, box = lj_inputs()
    bad = sp.tensor(np.array([[0, 1], [2, 9]]), dtype=sp.int64)
    with pytest.raises(IndexError, match=r"md::lj_energy.*'pairs' row 1 is \(2, 9\)"):
        lj.lj_energy(pos, bad, box, EPS, SIGMA, RCUT)
    with pytest.raises(ValueError, match="minimum-image"):
        lj.lj_energy(pos, pairs, box, EPS, SIGMA, 2.6)


def test_load_op_library_of_a_loaded_library_returns_its_ops(lj):
    again = cpp_extension.load_op_library(lj.__file__)
    assert again.lj_forces is lj.lj_forces
    if hasattr(sp, "load_op_library"):
        assert sp.load_op_library(lj.__file__).lj_energy is lj.lj_energy


# ---------------------------------------------------------------------------------------------
# Cache and rebuilds
# ---------------------------------------------------------------------------------------------

def test_rebuilds_when_a_source_or_an_included_header_changes(ext_root, tmp_path):
    src = write_trivial_op(tmp_path / "src", "rebuild", factor=2.0)
    code = f"""
        import sampan as sp
        from sampan.utils.cpp_extension import load
        m = load("rebuild", [{str(src)!r}])
        print(m.scale(sp.tensor([1.5], dtype=sp.float64)).item(), m.__file__)
    """
    value, first = run_child(code, ext_root).split()
    assert float(value) == 3.0
    folder = Path(first).parent
    assert builds_in(folder) == 1
    # Unchanged: a cache hit.
    value, path = run_child(code, ext_root).split()
    assert path == first and builds_in(folder) == 1
    # A header the source includes changed: same folder (same source hash), rebuilt.
    (tmp_path / "src" / "factor.h").write_text("#pragma once\n#define FACTOR 3.0\n")
    value, path = run_child(code, ext_root).split()
    assert float(value) == 4.5
    assert Path(path).parent == folder and builds_in(folder) == 2 and path != first
    # The source changed: a new hash, a new folder.
    src.write_text(src.read_text() + "\n// edited\n")
    value, path = run_child(code, ext_root).split()
    assert float(value) == 4.5 and Path(path).parent != folder


def _load_and_scale(name, src, root, barrier, results):
    """Child process: wait for the other loader, then load and run the op at the same time."""
    os.environ["SAMPAN_EXTENSIONS_DIR"] = root
    import sampan as spc
    from sampan.utils.cpp_extension import load as load_in_child
    barrier.wait(timeout=120)
    module = load_in_child(name, [src])
    results.put((module.scale(spc.tensor([2.0], dtype=spc.float64)).item(), module.__file__))


def test_concurrent_loaders_build_once(ext_root, tmp_path):
    src = write_trivial_op(tmp_path / "src", "concurrent", factor=2.0)
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=_load_and_scale, args=("concurrent", str(src), str(ext_root), barrier, results))
             for _ in range(2)]
    for p in procs:
        p.start()
    got = [results.get(timeout=300) for _ in procs]
    for p in procs:
        p.join(timeout=60)
        assert p.exitcode == 0
    assert [v for v, _ in got] == [4.0, 4.0]
    assert got[0][1] == got[1][1]
    assert builds_in(Path(got[0][1]).parent) == 1


def _hold_lock(lock_path, ready):
    """Child process: take the build lock and sleep until killed."""
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)
    ready.set()
    time.sleep(600)


def test_lock_of_a_killed_builder_does_not_hang(ext_root, tmp_path):
    src = write_trivial_op(tmp_path / "src", "stale", factor=2.0)
    plan = cpp_extension._Plan("stale", [str(src)], [], [], [])
    folder = ext_root / f"stale_{plan.key[:16]}"
    folder.mkdir(parents=True)
    ctx = multiprocessing.get_context("spawn")
    ready, results = ctx.Event(), ctx.Queue()
    holder = ctx.Process(target=_hold_lock, args=(str(folder / "lock"), ready))
    holder.start()
    assert ready.wait(timeout=120)
    no_wait = ctx.Barrier(1)  # kept referenced until the child has it
    loader = ctx.Process(target=_load_and_scale, args=("stale", str(src), str(ext_root), no_wait, results))
    loader.start()
    time.sleep(3)
    assert loader.is_alive(), "the loader should wait while another process holds the build lock"
    holder.kill()  # SIGKILL: no cleanup runs; the lock file stays, the kernel drops the lock
    holder.join(timeout=30)
    value, path = results.get(timeout=300)
    loader.join(timeout=60)
    assert value == 4.0 and loader.exitcode == 0
    assert (folder / "lock").exists() and builds_in(folder) == 1


# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------

def test_compile_error_carries_the_compilers_message(ext_root, tmp_path):
    src = write_trivial_op(tmp_path, "broken", extra="\nint broken_here = undeclared_symbol_xyz;\n")
    with pytest.raises(BuildError) as info:
        load("broken", [str(src)])
    err = info.value
    assert isinstance(err, RuntimeError)
    assert "undeclared_symbol_xyz" in str(err) and "error" in str(err)
    assert "undeclared_symbol_xyz" in err.output and err.command
    assert err.log is not None and "undeclared_symbol_xyz" in Path(err.log).read_text()


def test_missing_header_is_reported_as_such(ext_root, tmp_path):
    src = tmp_path / "needs_header.cpp"
    src.write_text('#include "no_such_header_for_sampan.h"\n')
    with pytest.raises(BuildError, match="no_such_header_for_sampan.h: No such file"):
        load("needs_header", [str(src)])


def test_missing_compiler_is_reported_as_such(ext_root, tmp_path, monkeypatch):
    config = dict(cpp_extension.build_config(), cxx_compiler="/nonexistent/bin/c++")
    monkeypatch.setattr(cpp_extension, "build_config", lambda: config)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("CXX", raising=False)
    src = write_trivial_op(tmp_path / "src", "nocompiler")
    with pytest.raises(CompilerNotFoundError, match="no C.. compiler found.*/nonexistent/bin/c\\+\\+"):
        load("nocompiler", [str(src)])


def test_cuda_source_without_nvcc_is_reported_as_such(ext_root, tmp_path, monkeypatch):
    kernel = tmp_path / "k.cu"
    kernel.write_text("__global__ void k() {}\n")
    config = dict(cpp_extension.build_config(), cuda={"available": False})
    monkeypatch.setattr(cpp_extension, "build_config", lambda: config)
    with pytest.raises(CompilerNotFoundError, match="k.cu.*without CUDA"):
        load("nocuda", [str(kernel)])
    config["cuda"] = {"available": True, "nvcc": "/nonexistent/nvcc", "flags": [], "architectures": ["90"]}
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(CompilerNotFoundError, match="nvcc was not found"):
        load("nocuda", [str(kernel)])


def test_cuda_architectures_default_and_override(monkeypatch):
    monkeypatch.setenv("SAMPAN_CUDA_ARCHITECTURES", "75;90")
    assert cpp_extension.cuda_architectures() == ("75", "90")
    monkeypatch.delenv("SAMPAN_CUDA_ARCHITECTURES")
    monkeypatch.setattr(cpp_extension, "_detected_gpu_architectures", lambda: ())
    assert cpp_extension.cuda_architectures() == ("80", "90")
    flags = cpp_extension._gencode_flags(("80", "90"))
    assert flags[-1] == "arch=compute_90,code=compute_90"  # PTX of the highest


def test_abi_mismatch_names_both_versions(ext_root, tmp_path):
    src = write_trivial_op(tmp_path, "abi")
    abi = cpp_extension.build_config()["abi_version"]
    with pytest.raises(RuntimeError, match=f"ABI 999 but this sampan has ABI {abi}"):
        load("abi", [str(src)], extra_cflags=["-DSAMPAN_ABI_VERSION=999"])
    # Loading it again raises again (not an empty library).
    with pytest.raises(RuntimeError, match="ABI 999"):
        load("abi", [str(src)], extra_cflags=["-DSAMPAN_ABI_VERSION=999"])


def test_duplicate_op_names_between_libraries_name_both(ext_root, tmp_path):
    first = load("dup_a", [str(write_trivial_op(tmp_path / "a", "dup", factor=2.0))])
    second_src = write_trivial_op(tmp_path / "b", "dup", factor=3.0)
    with pytest.raises(RuntimeError, match="registered twice") as info:
        load("dup_b", [str(second_src)])
    message = str(info.value)
    assert first.__file__ in message and "dup_b" in message
    assert first.scale(sp.tensor([1.0], dtype=sp.float64)).item() == 2.0


def test_bad_arguments(ext_root, tmp_path):
    with pytest.raises(FileNotFoundError, match="missing.cpp"):
        load("x", [str(tmp_path / "missing.cpp")])
    with pytest.raises(ValueError, match="identifier"):
        load("not a name", [str(write_trivial_op(tmp_path, "badname"))])
