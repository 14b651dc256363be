#!/usr/bin/env python3
"""Builds a second copy of the extension sampan._C for another CPython than the one of build/
(the GPU machine's 3.12; `make build` builds for .venv's 3.11), against the libraries that
`make build` already built (python/sampan/libsampan_*.so): only the binding sources compile.

    scripts/build_python_extension.py PYTHON [OUT_DIR]    # OUT_DIR default: build/py<XY>

prints the module's path (OUT_DIR/_C<EXT_SUFFIX>) as its last line of standard output. Run it
with any Python; PYTHON is the interpreter the module is for (it needs its headers).

How: the flags are the main build's own. Every compile command of the target _C comes from
build/compile_commands.json and the link command from build/'s ninja, with three changes: the
folder holding Python.h becomes PYTHON's, pybind11's headers come first from a pinned pybind11
fetched from PyPI into OUT_DIR (Debian 12's 2.10 predates CPython 3.12 and NumPy 2), and the
objects and the module go to OUT_DIR. So the module matches the libraries it links (defines,
include folders, LTO) with no second copy of the CMake logic, and nothing changes in build/.
The commands are written to OUT_DIR/build.ninja, so a second run compiles only what changed;
ninja runs under the build lock (/tmp/sampan-build.lock), as every build that reads
python/sampan's libraries must.
"""
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

PYBIND11 = "2.13.6"  # the last 2.x, as Debian's 2.10: supports CPython 3.12/3.13 and NumPy 2
REPO = Path(__file__).resolve().parent.parent
MAIN_BUILD = REPO / "build"
LOCK = "/tmp/sampan-build.lock"


def die(message):
    sys.exit(f"build_python_extension: {message}")


def target_python(python):
    """Version tag, extension suffix and include folder of the interpreter the module is for."""
    code = ("import sys, sysconfig; print(f'{sys.version_info[0]}{sys.version_info[1]}'); "
            "print(sysconfig.get_config_var('EXT_SUFFIX')); print(sysconfig.get_paths()['include'])")
    try:
        tag, suffix, include = subprocess.run([python, "-c", code], check=True, text=True,
                                              capture_output=True).stdout.split("\n")[:3]
    except (OSError, subprocess.CalledProcessError) as error:
        die(f"cannot run {python}: {error}")
    if not (Path(include) / "Python.h").is_file():
        die(f"{python} has no headers ({include}/Python.h is missing)")
    return tag, suffix, include


def pybind11_include(python, out_dir):
    """pybind11's header folder, installed once with PYTHON's pip into OUT_DIR/pybind11-<v>."""
    prefix = out_dir / f"pybind11-{PYBIND11}"
    include = prefix / "pybind11" / "include"
    if not (include / "pybind11" / "pybind11.h").is_file():
        print(f"build_python_extension: fetching pybind11 {PYBIND11} from PyPI into {prefix}",
              file=sys.stderr)
        subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                        "--no-deps", "--only-binary", ":all:", "--target", str(prefix),
                        f"pybind11=={PYBIND11}"], check=True)
    return include


def main_build_link_command():
    """The main build's _C module file and the shell command that links it (then strips it)."""
    build_ninja = (MAIN_BUILD / "build.ninja").read_text()
    found = re.search(r"^build (\S*/_C\.cpython-[^:\s]*\.so):", build_ninja, re.M)
    if not found:
        die(f"{MAIN_BUILD}/build.ninja has no _C module (configured without the bindings?)")
    module = found.group(1).replace("$:", ":")
    command = subprocess.run(["ninja", "-C", str(MAIN_BUILD), "-t", "commands", "-s", module],
                             check=True, text=True, capture_output=True).stdout.strip()
    return module, command


def ninja_escape(text):
    return text.replace("$", "$$")


def main():
    if len(sys.argv) not in (2, 3):
        die("usage: build_python_extension.py PYTHON [OUT_DIR]")
    python = sys.argv[1]
    tag, suffix, python_include = target_python(python)
    out_dir = Path(sys.argv[2] if len(sys.argv) == 3 else MAIN_BUILD / f"py{tag}").resolve()
    for needed in ("compile_commands.json", "build.ninja"):
        if not (MAIN_BUILD / needed).is_file():
            die(f"{MAIN_BUILD}/{needed} is missing: run `make build` first")
    out_dir.mkdir(parents=True, exist_ok=True)
    pybind11_dir = pybind11_include(python, out_dir)
    launcher = MAIN_BUILD / "ccache_launcher.sh"  # the main build's ccache settings, where it has them

    main_module, link = main_build_link_command()
    objects = {}  # main build's object path (relative to build/, as in its link command) -> ours
    rules = []
    for entry in json.loads((MAIN_BUILD / "compile_commands.json").read_text()):
        args = shlex.split(entry["command"])
        obj = args[args.index("-o") + 1]
        if not obj.startswith("python/CMakeFiles/_C.dir/"):
            continue
        ours = out_dir / "obj" / obj[len("python/CMakeFiles/_C.dir/"):]
        objects[obj] = ours
        args[args.index("-o") + 1] = str(ours)
        replaced = 0
        for i, arg in enumerate(args[:-1]):  # the main build's Python headers -> PYTHON's
            if arg in ("-I", "-isystem") and (Path(args[i + 1]) / "Python.h").is_file():
                args[i + 1] = python_include
                replaced += 1
        if replaced != 1:
            die(f"expected one folder with Python.h in the compile command of {entry['file']}")
        args[1:1] = ["-isystem", str(pybind11_dir), "-MD", "-MF", f"{ours}.d"]
        if launcher.is_file():
            args.insert(0, str(launcher))
        rules.append(f"build {ninja_escape(str(ours))}: cc {ninja_escape(entry['file'])}\n"
                     f"  cmd = cd {ninja_escape(shlex.quote(entry['directory']))} && "
                     f"{ninja_escape(shlex.join(args))}\n  depfile = {ninja_escape(str(ours))}.d\n")
    if not objects:
        die(f"{MAIN_BUILD}/compile_commands.json has no compile command of _C")

    # The link: ": && c++ ... -o MODULE OBJECTS... LIBS... && cd build/python && strip MODULE".
    module = out_dir / f"_C{suffix}"
    link = link.replace(main_module, str(module))
    link_args = []
    for word in link.split(" "):
        link_args.append(shlex.quote(str(objects[word])) if word in objects else word)
    missing = set(map(str, objects.values())) - {a.strip("'") for a in link_args}
    if missing:
        die(f"the main build's link command of _C does not name {sorted(missing)[0]}")
    libraries = sorted(str(p) for p in (REPO / "python" / "sampan").glob("lib*.so"))
    obj_list = " ".join(ninja_escape(str(o)) for o in objects.values())
    lib_list = " ".join(ninja_escape(p) for p in libraries)
    text = (f"# Written by scripts/build_python_extension.py for {python}: do not edit.\n"
            "rule cc\n  command = $cmd\n  deps = gcc\n  description = CXX $out\n"
            "rule link\n  command = cd $dir && $cmd\n  description = LINK $out\n\n"
            + "\n".join(rules)
            + f"\nbuild {ninja_escape(str(module))}: link {obj_list} | {lib_list}\n"
            f"  dir = {ninja_escape(shlex.quote(str(MAIN_BUILD)))}\n"
            f"  cmd = {ninja_escape(' '.join(link_args))}\n")
    ninja_file = out_dir / "build.ninja"
    if not ninja_file.is_file() or ninja_file.read_text() != text:
        ninja_file.write_text(text)

    jobs = os.environ.get("SAMPAN_JOBS", str(os.cpu_count() or 1))
    subprocess.run(["flock", LOCK, "ninja", "-C", str(out_dir), f"-j{jobs}"], check=True,
                   stdout=sys.stderr)
    print(module)


if __name__ == "__main__":
    main()
