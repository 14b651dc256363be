"""Just-in-time op libraries: compile C++ (and CUDA) sources that declare ops with ``SAMPAN_OP``,
load them, and get their ops as Python functions.

    from sampan.utils.cpp_extension import load
    lj = load("lj", ["lj_op.cpp", "lj_kernels.cpp", "lj_kernels.cu"])
    energy = lj.lj_energy(pos, pairs, box, 1.0, 1.0, 2.5)     # also sp.ops.md.lj_energy

Flags. The compiler, flags, include directories and definitions are the ones sampan's CMake
configure records in ``sampan/_build_config.json``, the file that CMake's
``sampan_add_op_library()`` reads too: a library built just in time and one built ahead of time
get the same flags. An installed package (``pip install .``) has its own copy of the record, which
names the installed headers and libsampan_core.so relative to the package folder, so the loader
needs no checkout. ``.cu`` sources go through the recorded nvcc (``SAMPAN_CUDA_KERNELS=1`` is
then defined for every source, so the op can register its ``.cuda(...)`` kernels).

CUDA architectures: ``SAMPAN_CUDA_ARCHITECTURES`` (e.g. ``"80;90"``) when set, else those of the
GPUs ``nvidia-smi`` reports, else ``DEFAULT_CUDA_ARCHITECTURES`` = 80;90 (A100; H100/H200), each
as a cubin, plus PTX of the highest so that newer GPUs can JIT it.

Cache. The library is built in ``<root>/<name>_<hash>/`` where root is ``$SAMPAN_EXTENSIONS_DIR``
or ``~/.cache/sampan_extensions`` (or in ``build_directory`` when given). The hash covers the
name, the sources' contents, all flags, the compiler's version, sampan's version and op ABI;
the headers the sources include (as the compiler reported them) are hashed into the folder's
manifest, so editing a header rebuilds too. A second ``load`` of unchanged sources only hashes and loads.

Concurrency. Builders serialize on ``fcntl.flock`` of ``<folder>/lock``: concurrent loaders (MPI
ranks, notebook kernels) build once; the others wait and then load. The kernel drops the lock
when its holder exits, however it exits, so a killed build never leaves a lock that hangs
anyone; its half-written files are in a private temporary folder that the next build ignores.

A process cannot load two different builds of one op: op names are unique in the registry, so
after editing an op's source, a ``load`` in the same process raises, naming both libraries.
Restart the process (or the notebook kernel) to use the new build.
"""
from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import types
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterable, Sequence

__all__ = [
    "load", "load_op_library", "BuildError", "CompilerNotFoundError", "build_config",
    "cuda_architectures", "DEFAULT_CUDA_ARCHITECTURES", "get_cmake_dir",
]

#: CUDA architectures compiled for when no GPU is detected (and SAMPAN_CUDA_ARCHITECTURES is
#: unset): Ampere A100 (80) and Hopper H100/H200 (90), plus PTX of 90 for newer GPUs.
DEFAULT_CUDA_ARCHITECTURES = ("80", "90")

_PACKAGE_DIR = Path(__file__).resolve().parent.parent
_BUILD_CONFIG_NAME = "_build_config.json"
_MANIFEST = "manifest.json"


class BuildError(RuntimeError):
    """An op library failed to build. ``str(err)`` holds the failing command and the compiler's
    output; the same are in ``err.command`` and ``err.output``, and ``err.log`` is the folder's
    build log."""

    def __init__(self, message: str, command: Sequence[str] | None = None, output: str = "",
                 log: Path | None = None):
        super().__init__(message)
        self.command = list(command) if command else []
        self.output = output
        self.log = log


class CompilerNotFoundError(BuildError):
    """The C++ compiler or nvcc that an op library needs is not installed (or not where sampan's
    build recorded it)."""


# ---------------------------------------------------------------------------------------------
# Build configuration (written by CMake: cmake/sampan_op_library.cmake)
# ---------------------------------------------------------------------------------------------

def _package_dirs() -> list[Path]:
    """The folders of the package sampan, in import order. One folder for a checkout or a wheel;
    an editable install (pip install -e) has two, its compiled files (_C, libraries, the build
    record, headers) in site-packages first and the checkout's Python files second."""
    package = sys.modules.get("sampan")
    dirs = [Path(p) for p in getattr(package, "__path__", None) or []]
    return dirs or [_PACKAGE_DIR]


def _build_config_path() -> Path:
    for folder in _package_dirs():
        if (folder / _BUILD_CONFIG_NAME).is_file():
            return folder / _BUILD_CONFIG_NAME
    return _package_dirs()[0] / _BUILD_CONFIG_NAME


@functools.lru_cache(maxsize=None)
def build_config() -> dict:
    """The flag record that sampan's CMake configure wrote (``sampan/_build_config.json``), its
    paths absolute. The installed copy names its files relative to its own folder (the package
    can be installed anywhere): those are resolved against that folder here."""
    path = _build_config_path()
    try:
        with open(path, encoding="utf-8") as f:
            config = json.load(f)
    except FileNotFoundError:
        raise BuildError(
            f"sampan's build record {path} does not exist: it is written by sampan's CMake "
            "configure (make build, or cmake -S . -B build) and installed by pip install; "
            "build or reinstall sampan first") from None
    folder = path.parent
    config["include_dirs"] = [str(folder / d) for d in config.get("include_dirs", [])]
    if config.get("core_library"):
        config["core_library"] = str(folder / config["core_library"])
    return config


def get_cmake_dir() -> str:
    """The folder of the installed package's ``sampanConfig.cmake``, for
    ``cmake -Dsampan_DIR=$(python -c "import sampan.utils.cpp_extension as c; print(c.get_cmake_dir())")``.
    A checkout has none: use ``-Dsampan_DIR=<its build folder>`` (the build's sampan-config.cmake)."""
    for folder in _package_dirs():
        candidate = folder / "share" / "cmake" / "sampan"
        if (candidate / "sampanConfig.cmake").is_file():
            return str(candidate)
    raise FileNotFoundError(
        "sampan's CMake package (share/cmake/sampan/sampanConfig.cmake) is not in "
        f"{', '.join(str(d) for d in _package_dirs())}: it comes with an installed sampan "
        "(pip install .); with a checkout, use -Dsampan_DIR=<its build folder>")


def _cxx_compiler(config: dict) -> str:
    """The recorded C++ compiler, else $CXX, else c++ on PATH; CompilerNotFoundError if none."""
    recorded = config.get("cxx_compiler", "")
    for candidate in (recorded, os.environ.get("CXX", ""), "c++", "g++"):
        if candidate and (os.path.isfile(candidate) and os.access(candidate, os.X_OK)
                          or shutil.which(candidate)):
            return shutil.which(candidate) or candidate
    raise CompilerNotFoundError(
        f"no C++ compiler found: sampan was built with '{recorded}', which does not exist here, "
        "and neither $CXX nor c++ is on PATH. Install one (Debian: apt-get install g++) or set CXX.")


def _nvcc(config: dict, cuda_sources: Sequence[str]) -> str:
    cuda = config.get("cuda", {})
    names = ", ".join(Path(s).name for s in cuda_sources)
    if not cuda.get("available"):
        raise CompilerNotFoundError(
            f"CUDA sources given ({names}) but sampan was built without CUDA (no nvcc was found "
            "when it was configured). Install the CUDA toolkit and rebuild sampan, or leave the "
            ".cu files out to build the CPU kernels only.")
    nvcc = cuda.get("nvcc", "")
    if os.path.isfile(nvcc) and os.access(nvcc, os.X_OK):
        return nvcc
    found = shutil.which("nvcc")
    if found:
        return found
    raise CompilerNotFoundError(
        f"CUDA sources given ({names}) but nvcc was not found (sampan recorded '{nvcc}'). Install "
        "the CUDA toolkit or put nvcc on PATH, or leave the .cu files out.")


@functools.lru_cache(maxsize=None)
def _compiler_version(compiler: str) -> str:
    """`compiler --version` (cached per process: it is part of every cache key)."""
    try:
        out = subprocess.run([compiler, "--version"], capture_output=True, text=True, timeout=60)
        return out.stdout.strip()
    except (OSError, subprocess.SubprocessError) as e:
        raise CompilerNotFoundError(f"cannot run the compiler '{compiler}': {e}") from None


@functools.lru_cache(maxsize=None)
def _detected_gpu_architectures() -> tuple[str, ...]:
    """Compute capabilities of the GPUs nvidia-smi reports ("90" for 9.0), or () without GPUs."""
    smi = shutil.which("nvidia-smi")
    if not smi:
        return ()
    try:
        out = subprocess.run([smi, "--query-gpu=compute_cap", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ()
    if out.returncode != 0:
        return ()
    archs = {line.strip().replace(".", "") for line in out.stdout.splitlines()
             if re.fullmatch(r"\d+\.\d+", line.strip())}
    return tuple(sorted(archs, key=int))


def cuda_architectures() -> tuple[str, ...]:
    """The CUDA architectures a just-in-time build compiles for (see the module docstring)."""
    env = os.environ.get("SAMPAN_CUDA_ARCHITECTURES", "").strip()
    if env:
        archs = [a.strip() for a in env.replace(",", ";").split(";") if a.strip()]
        bad = [a for a in archs if not a.isdigit()]
        if bad:
            raise ValueError(f"SAMPAN_CUDA_ARCHITECTURES={env!r}: expected numbers like '80;90', got {bad}")
        return tuple(archs)
    return _detected_gpu_architectures() or DEFAULT_CUDA_ARCHITECTURES


def _gencode_flags(archs: Sequence[str]) -> list[str]:
    flags = []
    for a in archs:
        flags += ["-gencode", f"arch=compute_{a},code=sm_{a}"]
    top = max(archs, key=int)
    return flags + ["-gencode", f"arch=compute_{top},code=compute_{top}"]


# ---------------------------------------------------------------------------------------------
# The build plan: commands and the cache key
# ---------------------------------------------------------------------------------------------

def _sha256_file(path: str | os.PathLike) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class _Plan:
    """Everything that decides a build: sources, the compile and link commands, the cache key."""

    def __init__(self, name, sources, extra_cflags, extra_cuda_cflags, extra_ldflags):
        config = build_config()
        self.name = name
        self.sources = sources
        self.cpp_sources = [s for s in sources if not s.endswith(".cu")]
        self.cuda_sources = [s for s in sources if s.endswith(".cu")]
        self.cxx = _cxx_compiler(config)
        self.nvcc = _nvcc(config, self.cuda_sources) if self.cuda_sources else None

        defines = [f"-D{d}" for d in config.get("definitions", [])]
        if self.cuda_sources:
            defines.append("-DSAMPAN_CUDA_KERNELS=1")
        includes = [f"-I{d}" for d in config.get("include_dirs", [])]
        self.cxx_flags = list(config.get("cxx_flags", [])) + defines + includes + list(extra_cflags)
        self.cuda_flags = []
        if self.cuda_sources:
            cuda = config["cuda"]
            self.cuda_flags = (list(cuda.get("flags", [])) + _gencode_flags(cuda_architectures())
                               + defines + includes + list(extra_cuda_cflags))
        core = config.get("core_library", "")
        if not os.path.exists(core):  # a moved checkout: the library next to the record
            core = str(_build_config_path().parent / Path(core or "libsampan_core.so").name)
        self.core_library = core
        self.link_flags = list(config.get("link_flags", ["-shared"]))
        self.link_libs = [core, f"-Wl,-rpath,{os.path.dirname(core)}"]
        if self.cuda_sources:
            cudart = config["cuda"].get("cudart", "")
            self.link_libs += [cudart, f"-Wl,-rpath,{os.path.dirname(cudart)}"] if cudart else ["-lcudart"]
        self.link_libs += list(extra_ldflags)

        h = hashlib.sha256()
        for part in (
            name, "sampan", config.get("sampan_version", ""), str(config.get("abi_version", "")),
            self.cxx, _compiler_version(self.cxx),
            self.nvcc or "", _compiler_version(self.nvcc) if self.nvcc else "",
            *self.cxx_flags, "|", *self.cuda_flags, "|", *self.link_flags, *self.link_libs,
        ):
            h.update(part.encode() + b"\0")
        for src in sources:
            h.update(os.path.basename(src).encode() + b"\0" + _sha256_file(src).encode() + b"\0")
        self.key = h.hexdigest()

    def compile_command(self, src: str, obj: str, depfile: str) -> list[str]:
        if src.endswith(".cu"):
            return [self.nvcc, *self.cuda_flags, "-MD", "-MF", depfile, "-c", src, "-o", obj]
        return [self.cxx, *self.cxx_flags, "-MMD", "-MF", depfile, "-c", src, "-o", obj]

    def link_command(self, objects: Sequence[str], output: str) -> list[str]:
        return [self.cxx, *objects, *self.link_flags, *self.link_libs, "-o", output]


def _parse_depfile(path: str) -> list[str]:
    """The prerequisites listed in a make-style dependency file (-MMD / -MD output)."""
    try:
        text = Path(path).read_text()
    except OSError:
        return []
    text = text.replace("\\\n", " ")
    deps = []
    for line in text.splitlines():
        if ":" not in line:
            continue
        _, _, rest = line.partition(": ")
        for token in re.split(r"(?<!\\) +", rest.strip()):
            token = token.replace("\\ ", " ").strip()
            if token:
                deps.append(os.path.abspath(token))
    return deps


# System headers (the compiler's and CUDA's own) do not change under a user; hashing them would
# only slow the cache check down.
_SYSTEM_PREFIXES = ("/usr/include/", "/usr/lib/", "/usr/local/cuda", "/opt/")


def _manifest_deps(paths: Iterable[str]) -> dict[str, str]:
    return {p: _sha256_file(p) for p in sorted(set(paths))
            if not p.startswith(_SYSTEM_PREFIXES) and os.path.isfile(p)}


# ---------------------------------------------------------------------------------------------
# Cache folder, lock and build
# ---------------------------------------------------------------------------------------------

def _extensions_root() -> Path:
    env = os.environ.get("SAMPAN_EXTENSIONS_DIR")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "sampan_extensions"


def _cached_library(folder: Path, key: str) -> Path | None:
    """The library in `folder` if it was built for `key` and none of its inputs changed since."""
    try:
        manifest = json.loads((folder / _MANIFEST).read_text())
    except (OSError, ValueError):
        return None
    if manifest.get("key") != key:
        return None
    library = folder / manifest.get("library", "")
    if not library.is_file():
        return None
    for path, digest in manifest.get("deps", {}).items():
        try:
            if _sha256_file(path) != digest:
                return None
        except OSError:
            return None
    return library


class _FolderLock:
    """An exclusive flock on <folder>/lock. The kernel releases it when the holder dies."""

    def __init__(self, folder: Path, verbose: bool):
        self.path = folder / "lock"
        self.verbose = verbose

    def __enter__(self):
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if self.verbose:
                print(f"sampan.cpp_extension: waiting for another process building in {self.path.parent}",
                      file=sys.stderr)
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


def _run(command: list[str], cwd: str, verbose: bool) -> subprocess.CompletedProcess:
    if verbose:
        print(" ".join(command), file=sys.stderr)
    try:
        result = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    except FileNotFoundError:
        raise CompilerNotFoundError(f"cannot run '{command[0]}': not found") from None
    if verbose and (result.stdout or result.stderr):
        print(result.stdout + result.stderr, file=sys.stderr, end="")
    return result


def _build(plan: _Plan, folder: Path, verbose: bool) -> Path:
    """Compiles and links into a private temporary folder, then moves the library and the
    manifest into `folder` (the manifest last: it is what marks the build complete)."""
    log_path = folder / "build.log"
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="build-", dir=folder) as tmp:
        log: list[str] = []

        def compile_one(index_src):
            index, src = index_src
            obj = os.path.join(tmp, f"{index}_{Path(src).stem}.o")
            dep = obj[:-2] + ".d"
            cmd = plan.compile_command(src, obj, dep)
            return src, obj, dep, cmd, _run(cmd, tmp, verbose)

        # Sources compile in parallel (as ninja would); the link waits for all of them.
        with ThreadPoolExecutor(max_workers=max(1, min(len(plan.sources), os.cpu_count() or 1))) as pool:
            results = list(pool.map(compile_one, enumerate(plan.sources)))
        objects, deps = [], list(plan.sources)
        for src, obj, dep, cmd, res in results:
            log.append("$ " + " ".join(cmd) + "\n" + res.stdout + res.stderr)
            if res.returncode != 0:
                output = (res.stdout + res.stderr).strip()
                log_path.write_text("\n".join(log))
                raise BuildError(
                    f"building op library '{plan.name}' failed compiling {src}:\n{output}\n"
                    f"(command: {' '.join(cmd)}; log: {log_path})", cmd, output, log_path)
            objects.append(obj)
            deps += _parse_depfile(dep)
        library_tmp = os.path.join(tmp, f"lib{plan.name}.so")
        cmd = plan.link_command(objects, library_tmp)
        res = _run(cmd, tmp, verbose)
        log.append("$ " + " ".join(cmd) + "\n" + res.stdout + res.stderr)
        if res.returncode != 0:
            output = (res.stdout + res.stderr).strip()
            log_path.write_text("\n".join(log))
            raise BuildError(f"linking op library '{plan.name}' failed:\n{output}\n(log: {log_path})",
                             cmd, output, log_path)
        dep_hashes = _manifest_deps(deps)
        # A new file name for every build: a process that loaded an earlier build keeps it mapped
        # (and dlopen of a known name would return the old one).
        tag = hashlib.sha256(json.dumps(dep_hashes, sort_keys=True).encode()).hexdigest()[:12]
        library = folder / f"lib{plan.name}_{tag}.so"
        os.replace(library_tmp, library)
        elapsed = time.perf_counter() - start
        log.append(f"built {library.name} in {elapsed:.2f} s")
        log_path.write_text("\n".join(log) + "\n")
        with open(folder / "builds.txt", "a") as f:  # one line per build (tests count them)
            f.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} pid {os.getpid()} {library.name} {elapsed:.2f} s\n")
        manifest = {"key": plan.key, "library": library.name, "deps": dep_hashes,
                    "sources": plan.sources, "build_seconds": round(elapsed, 3)}
        manifest_tmp = os.path.join(tmp, _MANIFEST)
        Path(manifest_tmp).write_text(json.dumps(manifest, indent=1))
        os.replace(manifest_tmp, folder / _MANIFEST)
    # Libraries of earlier builds in this folder are stale; a process may still have one mapped,
    # which unlinking does not disturb.
    for old in folder.glob(f"lib{plan.name}_*.so"):
        if old != library:
            try:
                old.unlink()
            except OSError:
                pass
    if verbose:
        print(f"sampan.cpp_extension: built {library} in {elapsed:.2f} s", file=sys.stderr)
    return library


# ---------------------------------------------------------------------------------------------
# Loading: the registry, the ops module
# ---------------------------------------------------------------------------------------------

_loaded: dict[str, list[str]] = {}  # realpath of a library -> the ops it registered
# realpath -> the error its first load raised: dlopen of a loaded file registers nothing again,
# so a retry must raise the same error rather than return a library without ops.
_failed: dict[str, BaseException] = {}


def _ops_module(name: str, path: str, op_names: Sequence[str]) -> types.ModuleType:
    """A module whose attributes are the library's ops: the functions of sp.ops.<ns>.<name>."""
    from .._ops import ops

    module = types.ModuleType(name, f"Ops of the op library {path}: " + ", ".join(op_names))
    module.__file__ = path
    module.op_names = list(op_names)
    for full in op_names:
        ns, _, short = full.partition("::")
        fn = getattr(getattr(ops, ns), short)
        attr = short if not hasattr(module, short) else f"{ns}_{short}"
        setattr(module, attr, fn)
    return module


def load_op_library(path: str | os.PathLike) -> types.ModuleType:
    """Loads a built op library (e.g. from CMake's ``sampan_add_op_library``) and returns a
    module whose attributes are its ops; they also appear as ``sp.ops.<ns>.<name>``. Loading the
    same file again returns its ops again. Raises OSError for a missing file and RuntimeError for
    an ABI mismatch or an op name another library registered already (naming both)."""
    from .. import _C
    from .._ops import ops

    path = os.path.abspath(os.fspath(path))
    real = os.path.realpath(path)
    if real in _failed:
        raise _failed[real]
    if real not in _loaded:
        try:
            names = list(_C.load_op_library(path))
        except RuntimeError as e:  # OSError (no such file) may be retried
            _failed[real] = e
            raise
        if not names:  # loaded before by another route (sp.ops.load_library): ask the registry
            names = [n for n in _C.op_names()
                     if os.path.realpath(_C.op_schema(n)["library"]) == real]
        _loaded[real] = names
        ops._refresh()
    return _ops_module(Path(path).stem, path, _loaded[real])


def load(name: str, sources: str | os.PathLike | Sequence[str | os.PathLike],
         extra_cflags: Sequence[str] | None = None, extra_cuda_cflags: Sequence[str] | None = None,
         extra_ldflags: Sequence[str] | None = None, build_directory: str | os.PathLike | None = None,
         verbose: bool = False) -> types.ModuleType:
    """Builds (or finds in the cache) the op library `name` from `sources` and loads it.

    Returns a module whose attributes are the ops the library registered (Python functions with
    the ops' signatures and docstrings, the same objects as ``sp.ops.<ns>.<name>``).

    Raises BuildError (a RuntimeError) carrying the compiler's message when compiling or linking
    fails, CompilerNotFoundError when the C++ compiler or nvcc is missing, FileNotFoundError for
    a missing source, and RuntimeError from the registry (ABI mismatch, duplicate op names).
    """
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name or ""):
        raise ValueError(f"load: name must be an identifier (letters, digits, _), got {name!r}")
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    srcs = []
    for s in sources:
        p = os.path.abspath(os.fspath(s))
        if not os.path.isfile(p):
            raise FileNotFoundError(f"load('{name}'): source file {p} does not exist")
        if not p.endswith((".cpp", ".cc", ".cxx", ".c++", ".C", ".cu")):
            raise ValueError(f"load('{name}'): {p} is not a C++ (.cpp, .cc, .cxx) or CUDA (.cu) source")
        srcs.append(p)
    if not srcs:
        raise ValueError(f"load('{name}'): no sources given")

    plan = _Plan(name, srcs, extra_cflags or [], extra_cuda_cflags or [], extra_ldflags or [])
    if build_directory is not None:
        folder = Path(build_directory).expanduser().resolve()
    else:
        folder = _extensions_root() / f"{name}_{plan.key[:16]}"
    library = _cached_library(folder, plan.key)
    if library is None:
        folder.mkdir(parents=True, exist_ok=True)
        with _FolderLock(folder, verbose):
            library = _cached_library(folder, plan.key)  # built meanwhile by the lock's holder?
            if library is None:
                library = _build(plan, folder, verbose)
            elif verbose:
                print(f"sampan.cpp_extension: {library} was built by another process", file=sys.stderr)
    elif verbose:
        print(f"sampan.cpp_extension: cache hit {library}", file=sys.stderr)
    module = load_op_library(library)
    module.__name__ = name
    return module
