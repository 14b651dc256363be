#!/usr/bin/env bash
# The benchmark environment .venv-bench: sampan plus the peers it is compared with. Kept apart
# from .venv so that no peer ever becomes a runtime dependency of sampan.
#
# PyTorch comes from Debian (python3-torch 1.13, CPU), the same build the reference baselines were
# measured with; the venv sees it through --system-site-packages. Further peers come from PyPI via
# bench/requirements.txt. The newest PyTorch from PyPI (bench/requirements-torch.txt) gets its own
# .venv-torch, since it cannot share a venv with Debian's; bench/framework_bench.py measures it in
# a child process. valgrind counts instructions (bench/framework_bench.py, step_instructions.py).
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
say() { echo "setup_bench: $*"; }
sudo_cmd=""
if [[ $(id -u) -ne 0 ]]; then sudo_cmd="sudo"; fi

missing=()
for pkg in python3-torch valgrind; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if ((${#missing[@]})); then
  say "installing ${missing[*]} (Debian)"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# install_requirements VENV FILE: pip-installs FILE into VENV unless it is unchanged since last time
install_requirements() {
  local venv=$1 req=$2 stamp="$1/.$(basename "$2").sha256"
  if [[ "$(sha256sum "$req" | cut -d' ' -f1)" != "$(cat "$stamp" 2>/dev/null || true)" ]]; then
    say "installing ${req#"$repo_root"/} into ${venv#"$repo_root"/}"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
    sha256sum "$req" | cut -d' ' -f1 >"$stamp"
  fi
}

venv="$repo_root/.venv-bench"
if [[ ! -x $venv/bin/python ]]; then
  say "creating .venv-bench"
  /usr/bin/python3 -m venv --system-site-packages "$venv"
fi
install_requirements "$venv" "$repo_root/bench/requirements.txt"
site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
echo "$repo_root/python" >"$site/sampan.pth"

torch_venv="$repo_root/.venv-torch"
if [[ ! -x $torch_venv/bin/python ]]; then
  say "creating .venv-torch"
  /usr/bin/python3 -m venv "$torch_venv"
fi
install_requirements "$torch_venv" "$repo_root/bench/requirements-torch.txt"
say "ready: $venv/bin/python (newest PyTorch: $torch_venv/bin/python)"
