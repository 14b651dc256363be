#!/usr/bin/env bash
# scripts/wheel_check.sh: sampan as a user gets it from `pip install .` and `pip install -e .`.
#
#   1. builds the wheel (pip wheel ., pyproject.toml + scikit-build-core, the same CMake as
#      `make build`, in build-wheel/ with ccache),
#   2. installs it into a NEW virtual environment made from /usr/bin/python3 in a temporary folder,
#   3. and there, in a folder outside the checkout and with the checkout off sys.path, runs: one
#      op, one just-in-time custom op, `sampan quantum run` on a small QASM file,
#      `import sampan.helix, sampan.deepmd`, sampan-lmp (where LAMMPS is built) and a CMake project
#      that finds the package with find_package(sampan CONFIG), builds and links against it;
#   4. installs the checkout editable (pip install -e .) into another new venv and runs one op.
#
# Each stage prints its name and wall time; the first failure stops the script, naming the stage
# and the folder with the logs (kept on failure; removed on success unless SAMPAN_WHEEL_KEEP=1).
#
# Needs: the Debian packages of scripts/setup.sh (python3-venv, cmake, ninja-build, ccache,
# build-essential ...) and PyPI (scikit-build-core into pip's build environment, numpy).
# Environment: SAMPAN_JOBS (parallel compile jobs, default 2), CCACHE_DIR (default
# ~/.cache/sampan-ccache), SAMPAN_WHEEL_KEEP=1 (keep the temporary folder).
set -Eeuo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jobs="${SAMPAN_JOBS:-2}"
system_python=/usr/bin/python3

say() { printf 'wheel_check: %s\n' "$*"; }
die() { printf 'wheel_check: error: %s\n' "$*" >&2; exit 1; }

[[ $jobs =~ ^[1-9][0-9]*$ ]] || die "SAMPAN_JOBS must be a positive number, got '$jobs'"
[[ -x $system_python ]] || die "$system_python not found (Debian package python3)"
"$system_python" -c 'import ensurepip, venv' 2>/dev/null \
  || die "$system_python cannot make virtual environments (Debian package python3-venv)"
for tool in cmake ninja c++ readelf; do
  command -v "$tool" >/dev/null || die "$tool not found: run scripts/setup.sh first"
done

work="$(mktemp -d "${TMPDIR:-/tmp}/sampan-wheel-check.XXXXXX")"
logs="$work/logs"
run_dir="$work/run"  # every check runs here: outside the checkout
mkdir -p "$logs" "$run_dir"

# The build: ninja with SAMPAN_JOBS jobs (cmake --build reads CMAKE_BUILD_PARALLEL_LEVEL), through
# the same ccache as `make build` (the launcher's defaults, spelled out as the Makefile does).
export CMAKE_BUILD_PARALLEL_LEVEL="$jobs"
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/sampan-ccache}"
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$repo_root}"
# The checks must see the installed package only: nothing from the caller's Python setup (a
# PYTHONPATH naming the checkout, the user site) may leak in. The venvs are new, so the
# checkout's .venv (whose sampan.pth names python/) is not involved.
unset PYTHONPATH PYTHONHOME VIRTUAL_ENV
export PYTHONNOUSERSITE=1
export PIP_DISABLE_PIP_VERSION_CHECK=1
# Just-in-time builds go to this run's own cache.
export SAMPAN_EXTENSIONS_DIR="$work/extensions"

current_stage="setup"
timings=()
on_exit() {
  local rc=$?
  if ((rc != 0)); then
    printf '\nwheel_check: FAILED in stage "%s" (exit status %d)\n' "$current_stage" "$rc" >&2
    printf 'wheel_check: logs and files are kept in %s\n' "$work" >&2
  elif [[ ${SAMPAN_WHEEL_KEEP:-0} == 1 ]]; then
    say "files kept in $work"
  else
    rm -rf "$work"
  fi
  if ((${#timings[@]})); then
    printf 'wheel_check: stage times:\n'
    printf '  %s\n' "${timings[@]}"
  fi
}
trap on_exit EXIT

stage_start=0
begin() {
  current_stage="$1"
  printf '\n== wheel_check: %s\n' "$1"
  stage_start=$(date +%s.%N)
}
end() {
  local seconds
  seconds=$(awk -v a="$stage_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  printf -- '-- %s: ok, %s s\n' "$current_stage" "$seconds"
  timings+=("$(printf '%-60s %8s s' "$current_stage" "$seconds")")
}

# Runs a command with its output in $logs/<name>.log; on failure shows the log's end.
logged() {
  local name="$1"; shift
  if ! "$@" >"$logs/$name.log" 2>&1; then
    printf 'wheel_check: command failed: %s\n--- last 60 lines of %s:\n' "$*" "$logs/$name.log" >&2
    tail -n 60 "$logs/$name.log" >&2
    return 1
  fi
}

ccache_counts() {  # "hits misses" of the shared cache (other builds running meanwhile count too)
  if command -v ccache >/dev/null; then
    ccache --print-stats 2>/dev/null | awk -F'\t' '
      $1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { h += $2 }
      $1 == "cache_miss" { m += $2 } END { printf "%d %d\n", h, m }'
  else
    printf '0 0\n'
  fi
}

new_venv() {  # new_venv <folder>: a virtual environment of the system Python
  "$system_python" -m venv "$1"
  [[ -x $1/bin/python ]] || die "no python in the new venv $1"
}

site_packages() { "$1/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])'; }

# ---------------------------------------------------------------------------------------------
begin "build the wheel (pip wheel .)"
new_venv "$work/venv-build"
read -r hits0 misses0 < <(ccache_counts)
# -v: scikit-build-core shows CMake's output (configure summary, compile lines) only then.
logged pip-wheel "$work/venv-build/bin/python" -m pip wheel "$repo_root" --no-deps -v -w "$work/wheelhouse"
read -r hits1 misses1 < <(ccache_counts)
wheels=("$work"/wheelhouse/sampan-*.whl)
[[ -f ${wheels[0]} ]] || die "pip wheel wrote no sampan-*.whl into $work/wheelhouse (log: $logs/pip-wheel.log)"
wheel="${wheels[0]}"
say "built $(basename "$wheel") ($(du -h "$wheel" | cut -f1)); ccache: $((hits1 - hits0)) hits, $((misses1 - misses0)) misses"
# The configure summary: which modules the wheel has.
sed -n '/sampan configuration summary/,/benchmarks :/p' "$logs/pip-wheel.log" | sed 's/^ *//'
end

# ---------------------------------------------------------------------------------------------
begin "install the wheel into a new venv"
venv="$work/venv"
new_venv "$venv"
logged pip-install "$venv/bin/python" -m pip install "$wheel"
site="$(site_packages "$venv")"
pkg="$site/sampan"
for f in __init__.py cli.py quantum/cli.py libsampan_core.so _build_config.json include/sampan/op.h include/sampan/host_device.h include/sampan/cuda_launch.cuh \
         include/sampan/tensor.h share/cmake/sampan/sampanConfig.cmake \
         share/cmake/sampan/sampanConfigVersion.cmake share/cmake/sampan/sampanTargets.cmake \
         share/cmake/sampan/sampan_op_library.cmake; do
  [[ -e $pkg/$f ]] || die "the installed package lacks $f (in $pkg)"
done
compgen -G "$pkg/_C.*.so" >/dev/null || die "the installed package lacks the extension _C (in $pkg)"
[[ -x $venv/bin/sampan ]] || die "the wheel installed no 'sampan' command into $venv/bin"
# Nothing installed may name the checkout or its build folders: the package must work with the
# checkout deleted. Text files by content, libraries by their RPATH.
if grep -rIl --include='*.json' --include='*.cmake' --include='*.py' -F "$repo_root" "$pkg"; then
  die "the installed files above name the checkout $repo_root"
fi
for so in "$pkg"/*.so "$venv"/bin/sampan-lmp; do
  [[ -e $so ]] || continue
  rpath="$(readelf -d "$so" | sed -n 's/.*(R\(UN\)\{0,1\}PATH).*\[\(.*\)\]/\2/p')"
  [[ $rpath != *"$repo_root"* ]] || die "$so has the RPATH '$rpath', which names the checkout"
  if ldd "$so" | grep -q 'not found'; then
    ldd "$so" | grep 'not found' >&2
    die "$so: libraries not found (above)"
  fi
done
say "installed into $pkg"
end

cd "$run_dir"
py="$venv/bin/python"
export WC_REPO="$repo_root" WC_SITE="$site"

# ---------------------------------------------------------------------------------------------
begin "one op: matmul"
"$py" - <<'EOF'
import os, sys
repo, site = os.environ["WC_REPO"], os.environ["WC_SITE"]
leaks = [p for p in sys.path if p.startswith(repo)]
assert not leaks, f"the checkout is on sys.path: {leaks}"
import sampan as sp
assert sp.__file__.startswith(site), f"sampan imported from {sp.__file__}, not from {site}"
assert sp._C.__file__.startswith(site), f"sampan._C imported from {sp._C.__file__}"
x = sp.tensor([[1.0, 2.0], [3.0, 4.0]])
y = sp.matmul(x, x)
assert y.tolist() == [[7.0, 10.0], [15.0, 22.0]], y.tolist()
print(f"sampan {sp.__version__} from {os.path.dirname(sp.__file__)}: matmul -> {y.tolist()}")
EOF
end

# ---------------------------------------------------------------------------------------------
begin "a just-in-time custom op (cpp_extension.load)"
mkdir -p "$run_dir/jit"
cat >"$run_dir/jit/triple_op.cpp" <<'EOF'
// A custom op as a user writes it: x * 3, with its vjp.
#include "sampan/op.h"
#include "sampan/ops.h"
using namespace sampan;

SAMPAN_OP(wheelcheck, triple)
    .doc("x * 3.")
    .args("x")
    .outputs("out")
    .shape([](const TensorSpec& x) { return x; })
    .cpu([](const Tensor& x, Tensor& out) {
      Tensor c = x.contiguous();
      const double* px = c.data<double>();
      double* po = out.data<double>();
      for (int64_t i = 0; i < c.numel(); ++i) po[i] = 3.0 * px[i];
    })
    .vjp([](const VjpContext& c) -> Grads { return {c.grad_output(0) * 3.0}; });
EOF
"$py" - <<'EOF'
import os
import sampan as sp
from sampan.utils import cpp_extension
site = os.environ["WC_SITE"]
config = cpp_extension.build_config()
for d in config["include_dirs"] + [config["core_library"]]:
    assert d.startswith(site) and os.path.exists(d), f"the JIT record names {d}, not a file of {site}"
m = cpp_extension.load("wheelcheck_triple", ["jit/triple_op.cpp"])
x = sp.tensor([1.5, -2.0], dtype=sp.float64, requires_grad=True)
y = m.triple(x)
assert y.tolist() == [4.5, -6.0], y.tolist()
y.sum().backward()
assert x.grad.tolist() == [3.0, 3.0], x.grad.tolist()
assert sp.ops.wheelcheck.triple is m.triple
print(f"built {m.__file__}: triple([1.5, -2]) = {y.tolist()}, grad {x.grad.tolist()}")
EOF
end

# ---------------------------------------------------------------------------------------------
begin "sampan quantum run (a Bell pair)"
cat >"$run_dir/bell.qasm" <<'EOF'
OPENQASM 2.0;
include "qelib1.inc";
qreg q[2];
h q[0];
cx q[0], q[1];
EOF
"$venv/bin/sampan" quantum run bell.qasm --shots 200 --seed 7 --observable "1.0 Z0 Z1" --json >quantum.json
cat quantum.json
"$py" - <<'EOF'
import json
out = json.load(open("quantum.json"))
assert out["n_qubits"] == 2, out
assert set(out["counts"]) <= {"00", "11"} and sum(out["counts"].values()) == 200, out["counts"]
assert abs(out["expectation"] - 1.0) < 1e-12, out["expectation"]
EOF
end

# ---------------------------------------------------------------------------------------------
begin "import sampan.helix, sampan.deepmd"
"$py" -c "import sampan.helix, sampan.deepmd"
end

# ---------------------------------------------------------------------------------------------
begin "sampan-lmp (LAMMPS with the sampan/deepmd pair style)"
if [[ -x $venv/bin/sampan-lmp ]]; then
  mkdir -p "$run_dir/lmp"
  cat >"$run_dir/lmp/in.lmp" <<'EOF'
units metal
atom_style atomic
lattice fcc 5.26
region box block 0 3 0 3 0 3
create_box 1 box
create_atoms 1 box
mass 1 39.948
pair_style sampan/deepmd lj 8.0 shift yes
pair_coeff 1 1 0.0104 3.40
thermo_style custom step pe
run 0
EOF
  mpi_flags=()
  if ((EUID == 0)); then mpi_flags=(--allow-run-as-root); fi
  (cd "$run_dir/lmp" && export OMP_NUM_THREADS=1 && logged lmp \
     mpirun -n 1 --oversubscribe "${mpi_flags[@]}" "$venv/bin/sampan-lmp" in.lmp -log log.lammps)
  grep -q "Loop time" "$run_dir/lmp/log.lammps" || die "sampan-lmp ran no step (see $run_dir/lmp/log.lammps)"
  energy="$(awk '/^ *Step +PotEng/ { getline; print $2; exit }' "$run_dir/lmp/log.lammps")"
  [[ -n $energy ]] || die "sampan-lmp printed no energy (see $run_dir/lmp/log.lammps)"
  say "sampan-lmp: 108 Lennard-Jones atoms through pair_style sampan/deepmd, energy $energy eV"
else
  grep -E "LAMMPS +:" "$logs/pip-wheel.log" | sed 's/^ *//' || true
  say "warning: the wheel has no sampan-lmp (LAMMPS not built, see the line above); not checked"
fi
end

# ---------------------------------------------------------------------------------------------
begin "find_package(sampan CONFIG): a CMake project links sampan::core"
consumer="$work/consumer"
mkdir -p "$consumer"
cat >"$consumer/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.22)
project(sampan_consumer LANGUAGES CXX)
find_package(sampan 0.1 CONFIG REQUIRED)
message(STATUS "consumer: sampan ${sampan_VERSION} from ${sampan_DIR}")
add_executable(consumer main.cpp)
target_link_libraries(consumer PRIVATE sampan::core)
sampan_add_op_library(consumer_ops SOURCES triple_op.cpp)
EOF
cat >"$consumer/main.cpp" <<'EOF'
#include <cstdio>
#include "sampan/ops.h"
int main() {
  sampan::Tensor a = sampan::from_vector({1, 2, 3, 4}, {2, 2});
  std::printf("%g\n", sampan::sum(sampan::matmul(a, a)).item());  // 7 + 10 + 15 + 22
  return 0;
}
EOF
# The ahead-of-time op library is the just-in-time op's source, built by sampan_add_op_library().
cp "$run_dir/jit/triple_op.cpp" "$consumer/triple_op.cpp"
# Found two ways: CMAKE_PREFIX_PATH=<site-packages>, and sampan_DIR from the package itself.
logged consumer-configure cmake -S "$consumer" -B "$consumer/build" -G Ninja -DCMAKE_PREFIX_PATH="$site"
grep "consumer: sampan" "$logs/consumer-configure.log" | sed 's/^-- //'
grep -q "from $pkg/share/cmake/sampan" "$logs/consumer-configure.log" \
  || die "find_package(sampan) did not find the installed package (log: $logs/consumer-configure.log)"
logged consumer-build cmake --build "$consumer/build" -j "$jobs"
value="$("$consumer/build/consumer")"
[[ $value == 54 ]] || die "the consumer printed '$value', expected 54"
say "consumer: sum(a @ a) = $value"
"$py" - "$consumer/build/libconsumer_ops.so" <<'EOF'
import sys
import sampan as sp
m = sp.load_op_library(sys.argv[1])
y = m.triple(sp.tensor([1.0, -2.5], dtype=sp.float64))
assert y.tolist() == [3.0, -7.5], y.tolist()
print(f"consumer's op library {sys.argv[1]}: triple -> {y.tolist()}")
EOF
cmake_dir="$("$py" -c 'import sampan.utils.cpp_extension as c; print(c.get_cmake_dir())')"
logged consumer-configure-dir cmake -S "$consumer" -B "$consumer/build-dir" -G Ninja -Dsampan_DIR="$cmake_dir"
grep -q "from $cmake_dir" "$logs/consumer-configure-dir.log" \
  || die "-Dsampan_DIR=$cmake_dir did not configure (log: $logs/consumer-configure-dir.log)"
say "consumer: configures with -Dsampan_DIR=$cmake_dir too"
end

# ---------------------------------------------------------------------------------------------
begin "editable install (pip install -e .) into a new venv"
cd "$run_dir"
venv_e="$work/venv-editable"
new_venv "$venv_e"
read -r hits0 misses0 < <(ccache_counts)
logged pip-install-editable "$venv_e/bin/python" -m pip install -v -e "$repo_root"
read -r hits1 misses1 < <(ccache_counts)
say "ccache: $((hits1 - hits0)) hits, $((misses1 - misses0)) misses"
WC_SITE="$(site_packages "$venv_e")" "$venv_e/bin/python" - <<'EOF'
import os
repo, site = os.environ["WC_REPO"], os.environ["WC_SITE"]
import sampan as sp
from sampan.utils import cpp_extension
# Editable: the Python files from the checkout, the compiled ones from the venv.
assert sp.__file__.startswith(os.path.join(repo, "python")), f"sampan imported from {sp.__file__}"
assert sp._C.__file__.startswith(site), f"sampan._C imported from {sp._C.__file__}, not {site}"
config = cpp_extension.build_config()
assert config["core_library"].startswith(site), config["core_library"]
y = sp.matmul(sp.tensor([[1.0, 2.0], [3.0, 4.0]]), sp.tensor([[1.0], [1.0]]))
assert y.tolist() == [[3.0], [7.0]], y.tolist()
print(f"editable: sampan from {os.path.dirname(sp.__file__)}, _C from {os.path.dirname(sp._C.__file__)}; "
      f"matmul -> {y.tolist()}")
EOF
end

current_stage="done"
printf '\nwheel_check: all stages passed\n'
