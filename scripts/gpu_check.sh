#!/usr/bin/env bash
# Everything that needs a GPU, in one call on a GPU machine that has only what this script packs
# (no compiler, no package registries, another Python): the C++ test binaries with a GPU present
# (every check_op of an op with a CUDA kernel compares the GPU's outputs with the CPU's), the
# CUDA device tests under compute-sanitizer's memcheck, and build/bench/gpu_ops_bench.
#
#   scripts/gpu_check.sh stage [DIR]     # here, after `make build`: packs the test binaries, the
#                                        # benchmark and every library they load (glibc and the
#                                        # CUDA driver excepted) into DIR (default .gpu-stage)
#   scripts/gpu_check.sh run DIR OUT     # there: unpacks DIR, runs it all, writes OUT/summary.txt,
#                                        # OUT/tests.log, OUT/memcheck.log, OUT/bench.log
#
# The device tool carries DIR beside the working tree: run(command="bash scripts/gpu_check.sh run
# .gpu-stage $OUT", carry=[".gpu-stage"], timeout_s=540). Each step has its own time limit, so
# the whole run ends within about 8 minutes; a failing step is reported and the others still run.
# The Python GPU tests (tests/python/test_cuda.py and the *_device.py files) need the extension
# built for that machine's Python (3.12): `stage` builds one with scripts/build_python_extension.py
# where this machine has a Python 3.12; the summary says whether they could run.
set -uo pipefail
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mode=${1:-}

binaries=(build/tests/cpp/sampan_framework_tests build/tests/cpp/sampan_deepmd_bridge_tests
          build/tests/cpp/sampan_helix_tests build/tests/cpp/sampan_custom_ops_tests
          build/tests/cpp/sampan_quantum_tests build/bench/gpu_ops_bench)

stage() (  # a subshell with -e: any failing copy stops the packing
  set -e
  local dir=${1:-$repo_root/.gpu-stage}
  cd "$repo_root" || exit 1
  for b in "${binaries[@]}"; do
    [[ -x $b ]] || { echo "gpu_check stage: $b is missing; run make build first (with nvcc)" >&2; exit 1; }
  done
  ldd python/sampan/libsampan_core.so | grep -q libcudart ||
    { echo "gpu_check stage: sampan_core was built without CUDA (no libcudart linked); build with nvcc" >&2; exit 1; }
  mkdir -p "$dir/tmp"
  # Every library the binaries load, but glibc's and the driver's, which belong to that machine,
  # and the CUDA math libraries (cuBLAS, cuSOLVER and what it loads: about 1 GB; that machine has
  # CUDA 13's own, found by `run`).
  ldd "${binaries[@]}" | awk '/=> \//{print $3}' | sort -u |
    grep -Ev '/(libc|libm|libmvec|libpthread|libdl|librt|libresolv)\.so|ld-linux|libcuda\.so|libnvidia|libcublas|libcusolver|libcusparse|libnvJitLink' |
    awk -F/ '!seen[$NF]++' >"$dir/libs.txt"  # one copy of a library found under two paths
  # Paths as in this checkout, unpacked there into the working tree's copy: the tests find the
  # op libraries they load (build/examples/...) and the data by the paths they were built with.
  mkdir -p "$dir/tmp/build/gpu-check/lib"
  xargs -a "$dir/libs.txt" cp -L -t "$dir/tmp/build/gpu-check/lib"
  find build -name '*.so' -path 'build/examples/*' -exec cp -L --parents -t "$dir/tmp" {} +
  cp --parents "${binaries[@]}" "$dir/tmp"
  # The extension for that machine's Python (3.12; SAMPAN_GPU_PYTHON: an interpreter of the same
  # minor version here, default pyenv's), so the Python GPU tests run there too.
  local gpu_python=${SAMPAN_GPU_PYTHON:-$(ls -d "$HOME"/.pyenv/versions/3.12.*/bin/python 2>/dev/null | tail -1)}
  if [[ -n $gpu_python ]]; then
    local module
    module=$(python3 scripts/build_python_extension.py "$gpu_python" | tail -1)
    mkdir -p "$dir/tmp/python/sampan"
    cp "$module" "$dir/tmp/python/sampan/"
  else
    echo "gpu_check stage: no Python 3.12 here (set SAMPAN_GPU_PYTHON); the Python GPU tests will not run there" >&2
  fi
  echo "$repo_root" >"$dir/tmp/build/gpu-check/SOURCE_DIR"
  git -C "$repo_root" rev-parse --short HEAD >"$dir/tmp/build/gpu-check/COMMIT" 2>/dev/null ||
    echo unknown >"$dir/tmp/build/gpu-check/COMMIT"
  local tmp_archive="$dir/bundle.tar.xz.tmp"
  tar -C "$dir/tmp" -cJf "$tmp_archive" . && mv "$tmp_archive" "$dir/bundle.tar.xz"
  rm -rf "$dir/tmp" "$dir/libs.txt"
  echo "gpu_check stage: $(du -h "$dir/bundle.tar.xz" | cut -f1) in $dir/bundle.tar.xz (commit $(git rev-parse --short HEAD))"
)

run() {
  local dir=$1 out=$2 work=$repo_root/build/gpu-check
  mkdir -p "$out"
  local summary=$out/summary.txt
  : >"$summary"
  say() { echo "$*" | tee -a "$summary"; }
  tar -C "$repo_root" -xJf "$dir/bundle.tar.xz" || { say "could not unpack $dir/bundle.tar.xz"; exit 1; }
  say "sampan gpu_check, commit $(cat "$work/COMMIT"), $(date -u +%Y-%m-%dT%H:%MZ)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 | sed 's/^/GPU: /' | tee -a "$summary"
  # The tests find the checkout's data through the path they were built in.
  local source_dir
  source_dir=$(cat "$work/SOURCE_DIR")
  if [[ ! -e $source_dir ]]; then mkdir -p "$(dirname "$source_dir")" && ln -s "$repo_root" "$source_dir"; fi
  export LD_LIBRARY_PATH="$work/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  # The Python package loads its libraries from its own folder (the extension's $ORIGIN), which the
  # device copy of the checkout lacks (build outputs are not carried): the bundle's copies.
  local so
  for so in "$work"/lib/libsampan_*.so; do
    [[ -e $repo_root/python/sampan/$(basename "$so") ]] || cp "$so" "$repo_root/python/sampan/"
  done
  # The CUDA math libraries (matmul's and the decompositions' twins) are not packed: the
  # machine's CUDA toolkit, or the pip wheels beside its PyTorch.
  local lib found
  for lib in libcublas.so.13 libcublasLt.so.13 libcusolver.so.12 libcusparse.so.12 libnvJitLink.so.13; do
    found=$(ldconfig -p 2>/dev/null | awk -v l="$lib" '$1 == l {print $NF; exit}')
    [[ -n $found ]] || found=$(find /usr/local/cuda*/lib64 /usr/local/cuda*/targets/*/lib /opt /usr/lib /usr/local/lib \
      -name "$lib" 2>/dev/null | head -1)
    if [[ -n $found ]]; then
      export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$(dirname "$found")"
      say "$lib: $found"
    else
      say "$lib: not found on this machine; the binaries will not load"
    fi
  done
  cd "$repo_root" || exit 1

  say ""
  say "C++ tests with the GPU present (gtest; a failure names the test):"
  for b in build/tests/cpp/sampan_*_tests; do
    local name line
    name=$(basename "$b")
    timeout 240 "$b" --gtest_brief=1 >"$work/$name.log" 2>&1
    local rc=$?
    line=$(grep -E '^\[  PASSED  \]|FAILED TEST|^\[  FAILED  \]' "$work/$name.log" | head -5 | tr '\n' ' ')
    say "  $name: rc $rc ${line:-no gtest summary (see tests.log)}"
    { echo "==== $name (rc $rc)"; cat "$work/$name.log"; } >>"$out/tests.log"
  done

  say ""
  local sanitizer
  sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  if [[ -n $sanitizer ]]; then
    # The device tests and the registry audit, which runs check_op on cuda:0 for every op with a
    # CUDA kernel: every kernel launch of the project goes through memcheck once.
    timeout 240 "$sanitizer" --tool memcheck --error-exitcode 3 build/tests/cpp/sampan_framework_tests \
      --gtest_filter='Cuda*:RegistryAudit*:StridedLayout*' >"$out/memcheck.log" 2>&1
    local rc=$?
    say "compute-sanitizer memcheck (framework Cuda*, RegistryAudit*): rc $rc, $(grep -E 'ERROR SUMMARY' "$out/memcheck.log" | tail -1)"
    timeout 120 "$sanitizer" --tool memcheck --error-exitcode 3 build/tests/cpp/sampan_quantum_tests \
      --gtest_filter='QuantumCuda*:QuantumRegistryAudit*' >"$out/memcheck_quantum.log" 2>&1
    rc=$?
    say "compute-sanitizer memcheck (quantum QuantumCuda*, QuantumRegistryAudit*): rc $rc, $(grep -E 'ERROR SUMMARY' "$out/memcheck_quantum.log" | tail -1)"
    timeout 120 "$sanitizer" --tool memcheck --error-exitcode 3 build/tests/cpp/sampan_deepmd_bridge_tests \
      --gtest_filter='DeepPotDevice*:DeepmdRegistryAudit*' >"$out/memcheck_deepmd.log" 2>&1
    rc=$?
    say "compute-sanitizer memcheck (deepmd DeepPotDevice*, DeepmdRegistryAudit*): rc $rc, $(grep -E 'ERROR SUMMARY' "$out/memcheck_deepmd.log" | tail -1)"
  else
    say "compute-sanitizer: not found on this machine (skipped)"
  fi

  say ""
  say "build/bench/gpu_ops_bench 10:"
  timeout 180 build/bench/gpu_ops_bench 10 >"$out/bench.log" 2>&1
  say "  rc $?"
  cat "$out/bench.log" >>"$summary"

  say ""
  local py
  py=$(command -v python3 || true)
  if [[ -n $py ]] && [[ -n $(ls "$repo_root"/python/sampan/_C.cpython-"$("$py" -c 'import sys; print(f"{sys.version_info[0]}{sys.version_info[1]}")')"-*.so 2>/dev/null) ]]; then
    say "Python GPU tests: see tests.log"
    local gpu_tests=(tests/python/test_cuda.py tests/python/test_creation_device.py tests/python/test_module_device.py
                     tests/python/test_helix_device.py tests/python/test_quantum_device.py
                     tests/python/test_deepmd_device.py)
    (cd "$repo_root" && PYTHONPATH=python timeout 150 "$py" -m pytest "${gpu_tests[@]}" -q -p no:cacheprovider) >>"$out/tests.log" 2>&1
    say "  pytest ${gpu_tests[*]}: rc $?"
  else
    say "Python GPU tests: not run (the extension is built for another Python than this machine's ${py:-none})"
  fi
}

case $mode in
  stage) stage "${2:-}" ;;
  run)
    [[ $# -eq 3 ]] || { echo "usage: $0 run DIR OUT" >&2; exit 2; }
    run "$2" "$3"
    ;;
  *)
    echo "usage: $0 stage [DIR] | run DIR OUT" >&2
    exit 2
    ;;
esac
