"""The `sampan` command: one subcommand per domain module, each defined next to its module.

A module contributes ``sampan/<package>/cli.py`` with ``register(subparsers)`` that adds its
commands (``sampan quantum run``, ``sampan deepmd train``, ``sampan helix featurize`` ...). A
module whose package cannot be imported (not built on this machine) still appears, and says why.
"""
import argparse
import importlib
import os
import sys

# subcommand -> package that holds its cli.py
MODULE_COMMANDS = {
    "quantum": "sampan.quantum.cli",
    "deepmd": "sampan.deepmd.cli",
    "helix": "sampan.helix.cli",
}


def build_parser():
    parser = argparse.ArgumentParser(prog="sampan", description="sampan scientific computing suite")
    subparsers = parser.add_subparsers(dest="module", metavar="MODULE")
    subparsers.required = True
    for name, module_path in MODULE_COMMANDS.items():
        try:
            module = importlib.import_module(module_path)
        except ModuleNotFoundError as error:
            if error.name is not None and module_path.startswith(error.name):
                continue  # this module has no command-line tool (yet)
            _add_unavailable(subparsers, name, error)
            continue
        except Exception as error:  # a module that exists but cannot load (e.g. not built)
            _add_unavailable(subparsers, name, error)
            continue
        module.register(subparsers)
    return parser


def _add_unavailable(subparsers, name, error):
    sub = subparsers.add_parser(name, help=f"(unavailable: {error})")
    sub.set_defaults(run=lambda args: _fail(f"sampan {name} is unavailable: {error}"))
    sub.add_argument("rest", nargs=argparse.REMAINDER)


def _fail(message):
    print(f"sampan: error: {message}", file=sys.stderr)
    return 2


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    run = getattr(args, "run", None)
    if run is None:
        parser.parse_args([args.module, "--help"])
        return 2
    try:
        result = run(args)
    except (OSError, ValueError, TypeError, KeyError, IndexError) as error:
        # Bad input (a missing file, malformed JSON, a wrong field ...) is one line naming the
        # problem, not a traceback; SAMPAN_DEBUG=1 shows the traceback.
        if os.environ.get("SAMPAN_DEBUG"):
            raise
        message = str(error) if not isinstance(error, KeyError) else f"missing key {error}"
        if isinstance(error, OSError) and error.filename and str(error.filename) not in message:
            message = f"{error.filename}: {message}"
        return _fail(f"{args.module}: {type(error).__name__}: {message}")
    return 0 if result is None else int(result)
