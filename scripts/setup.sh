#!/usr/bin/env bash
# One-time (and idempotent) setup of a sampan checkout on Debian 12:
#   1. the Debian packages the C++ build needs (only the missing ones are installed),
#   2. a virtual environment .venv made from the system Python (the one python3-dev matches),
#      with requirements.txt installed (only when that file changed since the last install),
#   3. the source package python/ put on the venv's path through a .pth file,
#   4. a Jupyter kernel named "sampan" that runs the venv's Python (used by the notebooks).
# A second run changes nothing and takes a few seconds.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo_root"

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# ---------------------------------------------------------------------------------------------
# 1. Debian packages
# ---------------------------------------------------------------------------------------------
# Everything the build, the tests and the demo use, on a minimal Debian 12 root (.ci/run proves
# it there on every submission). Packages are installed without their recommendations, so what a
# package merely recommends and sampan needs is named here: lammps holds /usr/bin/lmp, which
# liblammps-dev's CMake configuration references and the LAMMPS comparison tests run.
debian_packages=(
  build-essential cmake ninja-build ccache pkg-config git
  libeigen3-dev libopenblas-dev libhdf5-dev libdnnl-dev
  libopenmpi-dev openmpi-bin
  librdkit-dev rdkit-data libboost-dev libyaml-cpp-dev liblammps-dev lammps libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  pybind11-dev python3-dev python3-venv
)

is_installed() {
  # dpkg -s exits 0 for packages that are merely known (e.g. removed but not purged): check the state.
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

command -v dpkg-query >/dev/null 2>&1 || die "dpkg-query not found: this script expects Debian 12 (or a derivative)"

missing=()
for pkg in "${debian_packages[@]}"; do
  is_installed "$pkg" || missing+=("$pkg")
done

if ((${#missing[@]})); then
  if [[ $(id -u) -eq 0 ]]; then
    as_root=()
  elif command -v sudo >/dev/null 2>&1; then
    as_root=(sudo)
  else
    die "missing Debian packages (${missing[*]}) and neither root nor sudo is available; install them as root: apt-get install -y ${missing[*]}"
  fi
  say "installing ${#missing[@]} Debian package(s): ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update -qq
  "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  say "Debian packages: all ${#debian_packages[@]} present"
fi

# ---------------------------------------------------------------------------------------------
# 2. virtual environment
# ---------------------------------------------------------------------------------------------
# The system interpreter, not whatever python3 comes first on PATH (pyenv shims, conda): its
# headers are the ones python3-dev installed and that the extension module is compiled against.
system_python=/usr/bin/python3
[[ -x $system_python ]] || die "$system_python not found (Debian package python3)"
venv="$repo_root/.venv"
venv_python="$venv/bin/python"

# A venv copied from another machine or left half-made by an interrupted run has a python that
# does not start: make it anew.
if [[ -d $venv ]] && ! "$venv_python" -c 'import sys' >/dev/null 2>&1; then
  say "virtual environment .venv is broken; recreating it"
  rm -rf "$venv"
fi
if [[ ! -x $venv_python ]]; then
  say "creating virtual environment .venv ($($system_python --version 2>&1))"
  "$system_python" -m venv "$venv"
fi

requirements="$repo_root/requirements.txt"
stamp="$venv/.requirements.sha256"
[[ -f $requirements ]] || die "requirements.txt not found in $repo_root"
want_sha="$(sha256sum "$requirements" | cut -d' ' -f1)"
have_sha="$(cat "$stamp" 2>/dev/null || true)"
if [[ $want_sha != "$have_sha" ]]; then
  say "installing Python packages from requirements.txt into .venv"
  "$venv_python" -m pip install --quiet --disable-pip-version-check -r "$requirements"
  printf '%s\n' "$want_sha" >"$stamp"
else
  say "Python packages: requirements.txt unchanged since last install"
fi

# The optional extras (pyproject.toml's [project.optional-dependencies]: the ASE, dpdata, Qiskit
# and PennyLane bridges among them) go into .venv too, so that every bridge is tested. The table
# is the one list; tomllib reads it (Python >= 3.11).
extras="$("$venv_python" - "$repo_root/pyproject.toml" <<'PY'
import sys, tomllib
groups = tomllib.load(open(sys.argv[1], "rb"))["project"].get("optional-dependencies", {})
print("\n".join(sorted({req for reqs in groups.values() for req in reqs})))
PY
)"
extras_stamp="$venv/.extras.sha256"
want_sha="$(printf '%s' "$extras" | sha256sum | cut -d' ' -f1)"
have_sha="$(cat "$extras_stamp" 2>/dev/null || true)"
if [[ $want_sha != "$have_sha" ]]; then
  say "installing the optional extras into .venv: $(echo $extras)"
  mapfile -t extra_list <<<"$extras"
  "$venv_python" -m pip install --quiet --disable-pip-version-check "${extra_list[@]}"
  printf '%s\n' "$want_sha" >"$extras_stamp"
else
  say "Python extras: unchanged since last install"
fi

# ---------------------------------------------------------------------------------------------
# 3. make `import sampan` work from the source tree (the build puts the extension module there)
# ---------------------------------------------------------------------------------------------
site_packages="$("$venv_python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
pth_file="$site_packages/sampan.pth"
pth_line="$repo_root/python"
if [[ "$(cat "$pth_file" 2>/dev/null || true)" != "$pth_line" ]]; then
  printf '%s\n' "$pth_line" >"$pth_file"
  say "registered $pth_line on the venv's path"
fi
# The entry points (plug-ins for PennyLane and dpdata) need a dist-info folder, as an editable
# install writes; scripts/dev_metadata.py writes it from pyproject.toml.
if [[ $("$venv_python" scripts/dev_metadata.py "$site_packages" pyproject.toml CMakeLists.txt) == written ]]; then
  say "wrote sampan's package metadata (entry points) into .venv"
fi

# The command-line tool: .venv/bin/sampan runs `python -m sampan` (subcommands per module).
cli="$venv/bin/sampan"
cli_text="#!/bin/sh
exec \"$venv_python\" -m sampan \"\$@\""
if [[ "$(cat "$cli" 2>/dev/null || true)" != "$cli_text" ]]; then
  printf '%s\n' "$cli_text" >"$cli"
  chmod +x "$cli"
  say "installed the command .venv/bin/sampan"
fi

# ---------------------------------------------------------------------------------------------
# 4. Jupyter kernel "sampan" running the venv's Python
# ---------------------------------------------------------------------------------------------
kernel_json="$venv/share/jupyter/kernels/sampan/kernel.json"
# Reinstall too when the kernel points at another python (the checkout was moved).
if [[ ! -f $kernel_json ]] || ! grep -qF "\"$venv_python\"" "$kernel_json"; then
  say "registering Jupyter kernel 'sampan'"
  "$venv_python" -m ipykernel install --prefix "$venv" --name sampan --display-name "Python (sampan)" >/dev/null
fi

say "done"
