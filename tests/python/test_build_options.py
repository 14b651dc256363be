"""The configure step and an installed package whose CMake configuration is incomplete.

Debian's liblammps-dev names /usr/bin/lmp, which the separate package lammps installs; its
generated config stops any configure that loads it without that file. sampan probes the config in
a child CMake first (cmake/sampan_config_probe.cmake): with SAMPAN_WITH_LAMMPS=AUTO the module is
left out with a warning naming the missing file and the package; with ON it is an error saying the
same. A fake LAMMPS config that references a missing file stands in for the broken package.
"""
import os
import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CMAKE = shutil.which("cmake")
pytestmark = pytest.mark.skipif(CMAKE is None, reason="cmake is not on PATH")

# The generated check of a CMake export file (<Pkg>Targets.cmake), in CMake's own words.
BROKEN_CONFIG = textwrap.dedent("""\
    add_executable(LAMMPS::lmp IMPORTED)
    set(_missing "${CMAKE_CURRENT_LIST_DIR}/../../../bin/lmp")
    if(NOT EXISTS "${_missing}")
      message(FATAL_ERROR "The imported target \\"LAMMPS::lmp\\" references the file
       \\"${_missing}\\"
    but this file does not exist.  Possible reasons include:
    * The file was deleted, renamed, or moved to another location.")
    endif()
    """)


@pytest.fixture
def broken_lammps(tmp_path):
    config_dir = tmp_path / "prefix" / "lib" / "cmake" / "LAMMPS"
    config_dir.mkdir(parents=True)
    (config_dir / "LAMMPSConfig.cmake").write_text(BROKEN_CONFIG)
    return config_dir, (tmp_path / "prefix" / "bin" / "lmp")


def probe(tmp_path, package_dir):
    """Runs sampan_probe_config_package(LAMMPS) in a small project; returns (ok, missing)."""
    project = tmp_path / "probe_user"
    project.mkdir()
    (project / "CMakeLists.txt").write_text(textwrap.dedent(f"""\
        cmake_minimum_required(VERSION 3.22)
        project(probe_user NONE)
        include("{REPO}/cmake/sampan_config_probe.cmake")
        set(LAMMPS_DIR "{package_dir}")
        sampan_probe_config_package(LAMMPS ok missing)
        message(STATUS "probe: ok=[${{ok}}] missing=[${{missing}}]")
        """))
    out = subprocess.run([CMAKE, "-S", str(project), "-B", str(tmp_path / "probe_build")],
                         capture_output=True, text=True, check=True).stdout
    line = next(l for l in out.splitlines() if "probe: ok=" in l)
    ok = line.split("ok=[")[1].split("]")[0]
    missing = line.split("missing=[")[1].split("]")[0]
    return ok, missing


def test_the_probe_names_the_file_a_broken_config_references(tmp_path, broken_lammps):
    config_dir, lmp = broken_lammps
    ok, missing = probe(tmp_path, config_dir)
    assert ok == "FALSE"
    assert Path(missing).resolve() == lmp.resolve()


def test_the_probe_passes_a_config_whose_files_exist(tmp_path, broken_lammps):
    config_dir, lmp = broken_lammps
    lmp.parent.mkdir(parents=True)
    lmp.write_text("")
    assert probe(tmp_path, config_dir) == ("TRUE", "")


# Configuring sampan itself needs Ninja, and LAMMPS is only looked for where MPI is found.
needs_sampan_configure = pytest.mark.skipif(
    shutil.which("ninja") is None or shutil.which("mpicxx") is None,
    reason="configuring sampan with LAMMPS needs ninja and MPI (mpicxx) on PATH")


def configure_sampan(tmp_path, config_dir, lammps_mode):
    """Configures sampan itself (CUDA off to save time) into a scratch folder. The build record
    goes to a scratch file too, so the checkout's python/sampan/_build_config.json is untouched."""
    cmd = [CMAKE, "-S", str(REPO), "-B", str(tmp_path / f"build_{lammps_mode}"), "-G", "Ninja",
           "-DSAMPAN_WITH_CUDA=OFF", "-DSAMPAN_WITH_RDKIT=OFF", "-DSAMPAN_BUILD_TESTS=OFF",
           f"-DSAMPAN_WITH_LAMMPS={lammps_mode}", f"-DLAMMPS_DIR={config_dir}",
           f"-DSAMPAN_BUILD_CONFIG_JSON={tmp_path / 'build_config.json'}"]
    return subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "CCACHE_DISABLE": "1"})


@needs_sampan_configure
def test_auto_leaves_lammps_out_naming_the_file_and_package(tmp_path, broken_lammps):
    config_dir, lmp = broken_lammps
    result = configure_sampan(tmp_path, config_dir, "AUTO")
    log = result.stdout + result.stderr
    assert result.returncode == 0, log
    summary = next(l for l in log.splitlines() if "LAMMPS     :" in l)
    assert "OFF" in summary and "bin/lmp" in summary and "apt-get install lammps" in summary, summary
    assert "sampan: LAMMPS is OFF" in log  # the loud warning at the end of the summary


@needs_sampan_configure
def test_on_makes_the_broken_config_a_configure_error_saying_the_same(tmp_path, broken_lammps):
    config_dir, lmp = broken_lammps
    result = configure_sampan(tmp_path, config_dir, "ON")
    assert result.returncode != 0
    assert "SAMPAN_WITH_LAMMPS=ON" in result.stderr
    assert "bin/lmp" in result.stderr and "apt-get install lammps" in result.stderr, result.stderr
