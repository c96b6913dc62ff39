#!/usr/bin/env bash
# The scan's bulk products in float32 against float64 (`qkov scan --precision`, docs/SCAN-LABELS.md),
# at Llama-3-8B's shape: layer 1 of a two-layer model written by make_llama_model.py (SHAPE=small
# for a quicker run), scanned REPS times in each precision, alternating, with `--layers 1-1
# --timings`. Layer 1 makes the per-token copying of its heads and the composition of its pairs with
# layer 0 (32 x 32), the two parts the precision changes. Prints per run their seconds and the
# whole scan's wall time, then the medians and the ratios float64 / float32. Every float32
# document must give the float64 one's labels, copying shares, circuits and partners (checked; the
# float32 run's median margins, partner shares and composition scores may differ in their last
# digits: the largest difference of a composition score is printed beside the document's bound).
#   REPS=2 bench/scan/precision.sh     (MODEL=DIR reuses a model; THREADS, default every core; SHAPE; QKOV)
set -euo pipefail
cd "$(dirname "$0")/../.."
reps=${REPS:-2}
threads=${THREADS:-$(nproc)}
shape=${SHAPE:-8b}
. bench/timing.sh  # timed_run, bench_programs, scratch_directory, median
bench_programs     # qkov, python
scratch_directory 6500 "a two-layer model of Llama-3-8B's shape and the scans"
if [[ -n ${MODEL:-} ]]; then
  model=$MODEL
else
  model=$tmp/model
  echo "bench: writing a two-layer Llama-shaped model (SHAPE=$shape) into $model" >&2
  SHAPE=$shape LAYERS=2 "$python" bench/scan/make_llama_model.py "$model" 0
fi
export OPENBLAS_NUM_THREADS=$threads
echo "load: $(uptime)"
log=$tmp/log
: > "$log"
for ((rep = 1; rep <= reps; ++rep)); do
  for precision in float64 float32; do
    timed_run "$log" "$tmp/$precision.err" "${precision}_$rep" sh -c 'exec "$0" scan "$1" --layers 1-1 --threads "$2" --quiet --precision "$3" --json "$4" --timings "$5" > /dev/null' \
      "$qkov" "$model" "$threads" "$precision" "$tmp/$precision.json" "$tmp/$precision-$rep.timings.json"
  done
done
"$python" - "$tmp" "$reps" <<'PY'
import json, statistics, struct, sys
tmp, reps = sys.argv[1], int(sys.argv[2])
parts = {"copying_seconds": "per-token copying", "composition_seconds": "composition"}
seconds = {(p, k): [] for p in ("float64", "float32") for k in parts}
for rep in range(1, reps + 1):
    for p in ("float64", "float32"):
        t = json.load(open(f"{tmp}/{p}-{rep}.timings.json"))
        for k in parts:
            seconds[p, k].append(t["layers"][0][k])
        print(f"{p} run {rep}: " + ", ".join(f"{parts[k]} {seconds[p, k][-1]:.1f} s" for k in parts) + f", scan {t['scan_seconds']:.1f} s")
for k, name in parts.items():
    m64, m32 = statistics.median(seconds["float64", k]), statistics.median(seconds["float32", k])
    print(f"{name}, median of {reps}: float64 {m64:.1f} s, float32 {m32:.1f} s, ratio {m64 / m32:.2f}")
fast, exact = (json.load(open(f"{tmp}/{p}.json")) for p in ("float32", "float64"))

def without_shares(circuits):
    """The circuits' decisions: every field but the partners' shares, which come from the scores."""
    if isinstance(circuits, dict):
        return {k: without_shares(v) for k, v in circuits.items() if k != "share"}
    if isinstance(circuits, list):
        return [without_shares(v) for v in circuits]
    return circuits

shares = ("top1_share", "top5_share", "bottom10_share", "top1_interval", "bottom10_interval")
recomputed = 0
for a, b in zip(fast["heads"], exact["heads"], strict=True):
    name = f"head {a['layer']}.{a['head']}"
    if a["labels"] != b["labels"] or without_shares(a["circuits"]) != without_shares(b["circuits"]):
        sys.exit(f"bench: {name}: float32 and float64 give other labels or circuits")
    if any(a["token_copying"][k] != b["token_copying"][k] for k in shares):
        sys.exit(f"bench: {name}: float32 and float64 give other copying shares")
    recomputed += a["token_copying"]["recomputed_in_float64"]

def scores(document):
    path = f"{tmp}/{document['composition']['tensors']}"
    raw = open(path, "rb").read()
    size = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + size])
    out = {}
    for name in ("q_composition", "k_composition", "v_composition"):
        start, end = header[name]["data_offsets"]
        out[name] = struct.unpack(f"<{(end - start) // 8}d", raw[8 + size + start:8 + size + end])
    return out

difference = max(abs(x - y) for name, values in scores(fast).items() for x, y in zip(values, scores(exact)[name]) if x == x)
bound = fast["composition"]["largest_bound"]
if difference > bound:
    sys.exit(f"bench: a float32 composition score is {difference:.3g} from the float64 one, past the document's bound {bound:.3g}")
print(f"float32 gives the float64 labels, shares, circuits and partners of {len(fast['heads'])} heads; {recomputed} tokens and "
      f"{fast['composition']['recomputed_in_float64']} composition pairs recomputed in float64; composition scores at most "
      f"{difference:.3g} apart (bound {bound:.3g})")
PY
