#!/usr/bin/env bash
# NVE energy conservation with the trained water model (issue 5 acceptance; on demand, ~1-3 h on
# one core: 22,000 steps of 192 atoms at ~0.2 s of CPU each).
#   bench/deepmd/nve_water.sh [MODEL_OR_RUN_DIR] [OUTDIR]
# MODEL_OR_RUN_DIR: a frozen model (.h5), a checkpoint (model.ckpt-STEP.h5, frozen here first), or
# a training folder (bench/deepmd/train_water.sh's, default build/deepmd_water_run), whose newest
# model.ckpt-STEP.h5 is used. From data_3 frame 0, velocities at 300 K (seed 1), Berendsen 0.5 ps,
# then NVE by velocity Verlet at 0.5 fs for 10 ps; prints the total-energy drift per atom per ps
# (linear fit), the fluctuation, the mean temperature, the O-O g(r) first peak and the closest O-O
# approach. Environment: NVE_PS, EQUIL_PS, DT_FS, TEMPERATURE, PYTHON, SAMPAN_SHARED_DATA.
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
SRC="${1:-$ROOT/build/deepmd_water_run}"
OUT="${2:-$ROOT/build/deepmd_water_nve}"
DATA="${SAMPAN_SHARED_DATA:-$ROOT/../shared/data}/deepmd_water/data_3"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}"
mkdir -p "$OUT"
if [ -d "$SRC" ]; then
  # the newest numbered checkpoint of a training folder
  CKPT="$(ls "$SRC"/model.ckpt-*.h5 2>/dev/null | sed 's/.*model\.ckpt-\([0-9]*\)\.h5$/\1 &/' | sort -n | tail -1 | cut -d' ' -f2)"
  [ -n "$CKPT" ] || { echo "nve_water.sh: no model.ckpt-STEP.h5 in $SRC (train first: bench/deepmd/train_water.sh)" >&2; exit 2; }
else
  CKPT="$SRC"
fi
[ -f "$CKPT" ] || { echo "nve_water.sh: $CKPT: no such file" >&2; exit 2; }
case "$CKPT" in
  *ckpt*) MODEL="$OUT/frozen_$(basename "$CKPT")"
          echo "# freezing $CKPT"
          "$PY" -m sampan deepmd freeze -c "$CKPT" -o "$MODEL" ;;
  *) MODEL="$CKPT" ;;
esac
uptime
"$PY" "$HERE/nve_water.py" -m "$MODEL" -s "$DATA" --out "$OUT" -T "${TEMPERATURE:-300}" --dt "${DT_FS:-0.5}" \
  --equil-ps "${EQUIL_PS:-0.5}" --nve-ps "${NVE_PS:-10}"
uptime
