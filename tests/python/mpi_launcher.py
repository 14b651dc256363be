"""The command line that starts N ranks for the tests that run under MPI: mpirun or mpiexec with
--oversubscribe (the test machines have fewer cores than ranks) and, as root, --allow-run-as-root
(Open MPI refuses root otherwise); None when no launcher is on PATH."""
import os
import shutil
import subprocess


def mpirun_command(n):
    exe = shutil.which("mpirun") or shutil.which("mpiexec")
    if exe is None:
        return None
    flags = []
    version = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
    if "Open MPI" in version or "OpenRTE" in version:
        flags.append("--oversubscribe")
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            flags.append("--allow-run-as-root")
    return [exe, "-n", str(n), *flags]
