"""`sampan <module> <command> ...`: the command-line tool (installed as .venv/bin/sampan)."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
