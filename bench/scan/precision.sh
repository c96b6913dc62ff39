#!/usr/bin/env bash
# The per-token copying in float32 against float64 (`qkov scan --precision`, docs/SCAN-LABELS.md),
# at Llama-3-8B's shape: layer 0 of a model written by make_llama_model.py (LAYERS=1 is enough;
# SHAPE=small for a quicker run), scanned REPS times in each precision, alternating, with
# `--layers 0-0 --timings`. Prints per run the copying's seconds (the part the precision changes)
# and the whole scan's wall time, then the medians and the ratio float64 / float32. Every float32
# document must give the float64 one's labels, copying shares and circuits (checked; the float32
# run's median margins may differ in their last digits, which is not checked).
#   REPS=2 bench/scan/precision.sh     (MODEL=DIR reuses a model; THREADS, default every core; SHAPE; QKOV)
set -euo pipefail
cd "$(dirname "$0")/../.."
reps=${REPS:-2}
threads=${THREADS:-$(nproc)}
shape=${SHAPE:-8b}
. bench/timing.sh  # timed_run, bench_programs, scratch_directory, median
bench_programs     # qkov, python
scratch_directory 3500 "a one-layer model of Llama-3-8B's shape and the scans"
if [[ -n ${MODEL:-} ]]; then
  model=$MODEL
else
  model=$tmp/model
  echo "bench: writing a one-layer Llama-shaped model (SHAPE=$shape) into $model" >&2
  SHAPE=$shape LAYERS=1 "$python" bench/scan/make_llama_model.py "$model" 0
fi
export OPENBLAS_NUM_THREADS=$threads
echo "load: $(uptime)"
log=$tmp/log
: > "$log"
for ((rep = 1; rep <= reps; ++rep)); do
  for precision in float64 float32; do
    timed_run "$log" "$tmp/$precision.err" "${precision}_$rep" sh -c 'exec "$0" scan "$1" --layers 0-0 --threads "$2" --quiet --precision "$3" --json "$4" --timings "$5" > /dev/null' \
      "$qkov" "$model" "$threads" "$precision" "$tmp/$precision.json" "$tmp/$precision-$rep.timings.json"
  done
done
"$python" - "$tmp" "$reps" <<'PY'
import json, statistics, sys
tmp, reps = sys.argv[1], int(sys.argv[2])
copying = {p: [] for p in ("float64", "float32")}
for rep in range(1, reps + 1):
    for p in copying:
        t = json.load(open(f"{tmp}/{p}-{rep}.timings.json"))
        copying[p].append(t["layers"][0]["copying_seconds"])
        print(f"{p} run {rep}: per-token copying {copying[p][-1]:.1f} s, scan {t['scan_seconds']:.1f} s")
m64, m32 = statistics.median(copying["float64"]), statistics.median(copying["float32"])
print(f"per-token copying, median of {reps}: float64 {m64:.1f} s, float32 {m32:.1f} s, ratio {m64 / m32:.2f}")
fast, exact = (json.load(open(f"{tmp}/{p}.json")) for p in ("float32", "float64"))
shares = ("top1_share", "top5_share", "bottom10_share", "top1_interval", "bottom10_interval")
recomputed = 0
for a, b in zip(fast["heads"], exact["heads"], strict=True):
    name = f"head {a['layer']}.{a['head']}"
    if a["labels"] != b["labels"] or a["circuits"] != b["circuits"]:
        sys.exit(f"bench: {name}: float32 and float64 give other labels or circuits")
    if any(a["token_copying"][k] != b["token_copying"][k] for k in shares):
        sys.exit(f"bench: {name}: float32 and float64 give other copying shares")
    recomputed += a["token_copying"]["recomputed_in_float64"]
print(f"float32 gives the float64 labels, shares and circuits of {len(fast['heads'])} heads; {recomputed} tokens recomputed in float64")
PY
