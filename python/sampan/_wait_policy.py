"""OpenMP's wait policy for sampan's own parallel loops, chosen before the C++ core loads.

libgomp reads OMP_WAIT_POLICY and GOMP_SPINCOUNT once, when the library loads (with
``sampan._C``), and by default a thread that reaches a barrier spins 300,000 rounds before it
sleeps. On a machine with more runnable threads than cores (this project's shared 2-core VM,
a cluster node shared by MPI ranks) that spin burns the core its partner thread is waiting for:
``bench/omp_wait_policy.py`` measured ops 3-4x slower in wall time and 5-8x costlier in CPU time
than with PASSIVE, where a waiting thread sleeps at once (README, "Performance"). So sampan
makes PASSIVE its default: only while ``_C`` loads, only when the user named neither variable,
and only when libgomp is not in the process yet (another library loaded it first, e.g. PyTorch:
then its settings stand). The variable is removed again afterwards, so child processes (peers in
benchmarks, mpirun) see the environment the user gave.
"""
import contextlib
import os

KNOBS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")


def _libgomp_loaded():
    try:
        with open("/proc/self/maps") as maps:
            return any("libgomp" in line for line in maps)
    except OSError:  # not Linux: assume it is, and change nothing
        return True


@contextlib.contextmanager
def passive_by_default():
    if any(knob in os.environ for knob in KNOBS) or _libgomp_loaded():
        yield
        return
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    try:
        yield
    finally:
        os.environ.pop("OMP_WAIT_POLICY", None)
