#!/usr/bin/env bash
# The benchmark environment .venv-bench: sampan plus the peers it is compared with. Kept apart
# from .venv so that no peer ever becomes a runtime dependency of sampan.
#
# PyTorch comes from Debian (python3-torch 1.13, CPU), the same build the reference baselines in
# ../shared/reference/framework.md were measured with; the venv sees it through
# --system-site-packages. Further peers come from PyPI via bench/requirements.txt.
set -euo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
say() { echo "setup_bench: $*"; }
sudo_cmd=""
if [[ $(id -u) -ne 0 ]]; then sudo_cmd="sudo"; fi

if ! dpkg -s python3-torch >/dev/null 2>&1; then
  say "installing python3-torch (Debian) for the PyTorch baselines"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq python3-torch >/dev/null
fi

venv="$repo_root/.venv-bench"
if [[ ! -x $venv/bin/python ]]; then
  say "creating .venv-bench"
  /usr/bin/python3 -m venv --system-site-packages "$venv"
fi
req="$repo_root/bench/requirements.txt"
stamp="$venv/.requirements.sha256"
if [[ -f $req ]] && [[ "$(sha256sum "$req" | cut -d' ' -f1)" != "$(cat "$stamp" 2>/dev/null || true)" ]]; then
  say "installing bench/requirements.txt into .venv-bench"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
  sha256sum "$req" | cut -d' ' -f1 >"$stamp"
fi
site="$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
echo "$repo_root/python" >"$site/sampan.pth"
say "ready: $venv/bin/python"
