#!/usr/bin/env bash
# Trains the DeePMD-kit water se_e2_a example (its hyperparameters and 1M-step learning-rate
# schedule) for the first STEPS steps (default 10000), then tests on data_3 like `dp test`.
# Reference (DeePMD-kit TF, same schedule, PR #529): rmse_f on validation 0.093 eV/Å at 10k steps.
#   bench/deepmd/train_water.sh [STEPS] [OUTDIR]
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
STEPS="${1:-10000}"
OUT="${2:-$ROOT/build/deepmd_water_run}"
DATA="${SAMPAN_SHARED_DATA:-$ROOT/../shared/data}/deepmd_water"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
mkdir -p "$OUT"
sed "s|DATA/|$DATA/|g" "$HERE/water_se_e2_a.json" > "$OUT/input.json"
cd "$OUT"
if [ -f model.ckpt.h5 ] && [ "${RESTART:-1}" = 1 ]; then
  "$PY" -m sampan deepmd train input.json --stop-at "$STEPS" --restart model.ckpt.h5
else
  "$PY" -m sampan deepmd train input.json --stop-at "$STEPS"
fi
"$PY" -m sampan deepmd freeze -c model.ckpt.h5 -o frozen_model.h5
"$PY" -m sampan deepmd test -m frozen_model.h5 -s "$DATA/data_3"
