"""sampan loads libgomp with OMP_WAIT_POLICY=PASSIVE unless the user chose a wait policy or spin
count (python/sampan/_wait_policy.py), and leaves the environment as it found it. libgomp reports
what it read with OMP_DISPLAY_ENV=VERBOSE (on stderr, when it loads); each case is a fresh
process because libgomp reads the variables once."""
import os
import re
import subprocess
import sys

import pytest

KNOBS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "OMP_DISPLAY_ENV")


def libgomp_settings(**env_vars):
    env = {k: v for k, v in os.environ.items() if k not in KNOBS}
    env.update(env_vars, OMP_DISPLAY_ENV="VERBOSE")
    run = subprocess.run(
        [sys.executable, "-c", "import os, sampan; print(os.environ.get('OMP_WAIT_POLICY'))"],
        env=env, capture_output=True, text=True, timeout=120, check=True)
    shown = dict(re.findall(r"^\s*(OMP_WAIT_POLICY|GOMP_SPINCOUNT) = '([^']*)'", run.stderr, re.M))
    if not shown:
        pytest.skip("this OpenMP runtime does not display its settings (not libgomp)")
    return shown, run.stdout.strip()


def test_passive_by_default_and_environment_left_as_it_was():
    shown, env_after = libgomp_settings()
    # PASSIVE: libgomp's spin count drops from its default 300,000 to 0
    assert shown == {"OMP_WAIT_POLICY": "PASSIVE", "GOMP_SPINCOUNT": "0"}
    assert env_after == "None"  # not inherited by child processes


def test_the_users_wait_policy_wins():
    shown, env_after = libgomp_settings(OMP_WAIT_POLICY="ACTIVE")
    assert shown["OMP_WAIT_POLICY"] == "ACTIVE"
    assert env_after == "ACTIVE"


def test_the_users_spin_count_wins():
    shown, env_after = libgomp_settings(GOMP_SPINCOUNT="300000")
    assert shown["GOMP_SPINCOUNT"] == "300000"
    assert env_after == "None"
