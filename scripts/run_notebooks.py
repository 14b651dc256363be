#!/usr/bin/env python3
"""Execute sampan's notebooks headless and report one line per notebook.

Every notebook runs top to bottom in a fresh kernel (the "sampan" kernel that scripts/setup.sh
registers, or "python3" where that is missing), with the notebook's own folder as the working
directory and SAMPAN_SCALE passed through the environment ("small" for tests, "full" for the
demo). The executed notebook and an HTML export of it are written to --out, also for a notebook
that failed, so its traceback can be read there.

A notebook states its key result by printing a line that starts with "RESULT:"; the last such
line of its standard output is shown in the summary:

    PASS helix_pretraining (41.2 s): ROC-AUC 0.74 on the BBBP scaffold split
    FAIL quantum_locc: ValueError: fidelity must lie in [0, 1], got 1.2

The closing line is "N passed, M failed"; the exit status is 1 when any notebook failed.

Environment: SAMPAN_NOTEBOOK_TIMEOUT, the limit for one cell in seconds (default 600).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from nbconvert import HTMLExporter

REPO_ROOT = Path(__file__).resolve().parent.parent
RESULT_PREFIX = "RESULT:"


def pick_kernel() -> str:
    """The "sampan" kernel where it is installed, else the interpreter's own "python3"."""
    available = KernelSpecManager().find_kernel_specs()
    if "sampan" in available:
        return "sampan"
    print("warning: Jupyter kernel 'sampan' not found (run `make setup`); using 'python3'",
          file=sys.stderr)
    return "python3"


def find_notebooks(paths: list[Path]) -> list[Path]:
    """Notebooks named on the command line; a folder stands for its *.ipynb files, sorted."""
    notebooks: list[Path] = []
    for path in paths:
        if path.is_dir():
            notebooks.extend(sorted(path.glob("*.ipynb")))
        elif path.suffix == ".ipynb" and path.is_file():
            notebooks.append(path)
        else:
            raise SystemExit(f"error: {path} is neither a notebook (.ipynb) nor a folder")
    return notebooks


def key_result(nb: nbformat.NotebookNode) -> str | None:
    """The text after the last "RESULT:" line printed to stdout by any code cell."""
    result = None
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        for output in cell.get("outputs", []):
            if output.get("output_type") != "stream" or output.get("name") != "stdout":
                continue
            for line in output.get("text", "").splitlines():
                if line.startswith(RESULT_PREFIX):
                    result = line[len(RESULT_PREFIX):].strip()
    return result


def describe_error(error: BaseException) -> str:
    """"ExceptionName: first line of the message", naming the error raised inside the notebook
    when a cell failed, else the error raised while running it (timeout, dead kernel ...)."""
    if isinstance(error, CellExecutionError) and error.ename:
        name, message = error.ename, error.evalue or ""
    else:
        name, message = type(error).__name__, str(error)
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    return f"{name}: {lines[0]}" if lines else name


def write_atomically(path: Path, text: str) -> None:
    """Write text to path so that a reader never sees a half-written file."""
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(tmp_name, 0o644)  # mkstemp makes it private; these are reports to share
        os.replace(tmp_name, path)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise


def run_notebook(path: Path, out_dir: Path, kernel: str, timeout: int) -> tuple[bool, str, float]:
    """Execute one notebook and save it; returns (passed, summary text, seconds).

    The kernel's own stderr (C++ aborts, crashes, the kernel's warnings) goes to
    <out>/<name>.kernel.log, which is kept only when the notebook failed."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name=kernel,
        resources={"metadata": {"path": str(path.parent)}},  # the kernel's working directory
    )
    kernel_log = out_dir / f"{path.stem}.kernel.log"
    start = time.perf_counter()
    error: BaseException | None = None
    with open(kernel_log, "w", encoding="utf-8") as log:
        try:
            client.execute(stderr=log)
        except Exception as exc:  # a failing cell, a timeout, a kernel that died: report, go on
            error = exc
    seconds = time.perf_counter() - start

    # Save what ran, outputs and traceback included, whether it passed or not.
    try:
        write_atomically(out_dir / f"{path.stem}.ipynb", nbformat.writes(nb))
        html, _ = HTMLExporter().from_notebook_node(nb)
        write_atomically(out_dir / f"{path.stem}.html", html)
    except Exception as exc:
        if error is None:
            error = exc

    if error is not None:
        return False, describe_error(error), seconds
    kernel_log.unlink(missing_ok=True)
    return True, key_result(nb) or "(no RESULT: line printed)", seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path, default=[REPO_ROOT / "notebooks"],
                        help="notebooks or folders of notebooks (default: the repo's notebooks/)")
    parser.add_argument("--out", type=Path, required=True,
                        help="folder for the executed notebooks and their HTML exports")
    args = parser.parse_args(argv)

    timeout_text = os.environ.get("SAMPAN_NOTEBOOK_TIMEOUT", "600")
    try:
        timeout = int(timeout_text)
    except ValueError:
        parser.error(f"SAMPAN_NOTEBOOK_TIMEOUT must be a whole number of seconds, got {timeout_text!r}")
    # The kernel inherits this process's environment, SAMPAN_SCALE included.
    scale = os.environ.setdefault("SAMPAN_SCALE", "small")

    notebooks = find_notebooks([p.resolve() for p in args.paths])
    if not notebooks:
        print("warning: no notebooks found in " + ", ".join(map(str, args.paths)), file=sys.stderr)
        print("0 passed, 0 failed")
        return 0

    out_dir = args.out.resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    kernel = pick_kernel()
    print(f"running {len(notebooks)} notebook(s), kernel {kernel}, SAMPAN_SCALE={scale}, "
          f"cell timeout {timeout} s, output in {out_dir}", flush=True)

    passed = failed = 0
    for path in notebooks:
        ok, text, seconds = run_notebook(path, out_dir, kernel, timeout)
        if ok:
            passed += 1
            print(f"PASS {path.stem} ({seconds:.1f} s): {text}", flush=True)
        else:
            failed += 1
            print(f"FAIL {path.stem}: {text}", flush=True)
            print(f"     see {out_dir / path.stem}.html and {path.stem}.kernel.log", flush=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
