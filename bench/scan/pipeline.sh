#!/usr/bin/env bash
# The whole pipeline of docs/cluster.md at the size of today's models, stage by stage: a
# Llama-3-8B-shaped model of LAYERS layers (make_llama_model.py, as scale.sh), the inputs the
# shards share prepared once (`qkov scan --prepare-shards`; SHARED=0 skips it, and each shard then
# runs the forward pass through the layers before it itself), scanned in SHARDS shards of
# consecutive layers (`qkov scan --layers A-B --shared DIR`, one after another here, one task each
# on a cluster), the shards merged (`qkov merge-scans`), then the behaviour judged against the merged
# scan (`qkov detect --scan`, SAMPLES sequences of LENGTH random tokens). For each stage: wall and
# CPU seconds and the peak resident set (/usr/bin/time; it counts the pages of the mapped model
# file the stage touched, so it is an upper bound of the memory the stage held), and the sizes
# of the documents and tensors it wrote. The merged scan must equal a whole scan's labels: the
# merged document's heads are checked against the shards' (the unit and CLI tests check the
# equality byte for byte on small models).
#   LAYERS=2 SHARDS=2 bench/scan/pipeline.sh     (THREADS, default every core; QKOV; MODEL=DIR
#                                                 reuses a model written before; KEEP=1 keeps the
#                                                 model; SAMPLES default 4, LENGTH default 50;
#                                                 SHARED=0: no shared inputs)
set -euo pipefail
cd "$(dirname "$0")/../.."
layers=${LAYERS:-2}
shards=${SHARDS:-2}
threads=${THREADS:-$(nproc)}
samples=${SAMPLES:-4}
length=${LENGTH:-50}
shared=${SHARED:-1}
. bench/timing.sh  # timed_run, bench_programs, scratch_directory
bench_programs  # qkov, python
if ((shards < 1 || shards > layers)); then
  echo "bench: SHARDS=$shards: give 1..LAYERS ($layers) shards" >&2
  exit 1
fi
scratch_directory $((2200 + 450 * layers + 1200 * shards + 300 * layers + 500)) "the Llama-3-8B-shaped model of $layers layers and $shards shards' tensors"
if [[ -n ${MODEL:-} ]]; then
  model=$MODEL
else
  model=$tmp/model
  [[ ${KEEP:-0} == 1 ]] && model=$(mktemp -d "${TMPDIR:-/tmp}/llama3-8b-shaped.XXXXXX") && echo "bench: the model stays in $model (KEEP=1)" >&2
  echo "bench: writing the Llama-3-8B-shaped model of $layers layers into $model" >&2
  LAYERS=$layers "$python" bench/scan/make_llama_model.py "$model" 0
fi
export OPENBLAS_NUM_THREADS=$threads
echo "load: $(uptime)"
log=$tmp/log
: > "$log"
# Shards of consecutive layers, the later ones no larger (a late layer composes with more).
ranges=()
first=0
for ((s = 0; s < shards; ++s)); do
  count=$(((layers - first) / (shards - s)))
  ranges+=("$first-$((first + count - 1))")
  first=$((first + count))
done
with_shared=()
if [[ $shared == 1 ]]; then
  echo "bench: preparing what the shards ${ranges[*]} share" >&2
  timed_run "$log" "$tmp/prepare.err" prepare-shards sh -c 'exec "$0" scan "$1" --quiet --threads "$2" --prepare-shards "$3" --shared "$4" > /dev/null' \
    "$qkov" "$model" "$threads" "$(IFS=,; echo "${ranges[*]}")" "$tmp/inputs"
  tail -1 "$log"
  with_shared=(--shared "$tmp/inputs")
fi
list=()
for s in "${!ranges[@]}"; do
  echo "bench: shard $s: layers ${ranges[s]}" >&2
  mkdir -p "$tmp/shard$s"
  timed_run "$log" "$tmp/shard$s.err" "scan_layers_${ranges[s]}" sh -c 'q=$0 m=$1 t=$2 r=$3 j=$4; shift 4; exec "$q" scan "$m" --quiet --threads "$t" --layers "$r" --json "$j" "$@" > /dev/null' \
    "$qkov" "$model" "$threads" "${ranges[s]}" "$tmp/shard$s/scan.json" "${with_shared[@]}"
  tail -1 "$log"  # name wall_s peak_kib cpu_s, as each stage ends
  list+=("$tmp/shard$s/scan.json")
done
[[ -d $tmp/inputs ]] && echo "shared inputs: $(du -sm "$tmp/inputs" | cut -f1) MiB"
echo "bench: merging" >&2
timed_run "$log" "$tmp/merge.err" merge-scans sh -c 'out=$1; shift; exec "$0" merge-scans "$@" > "$out"' "$qkov" "$tmp/merge.out" "${list[@]}" --json "$tmp/whole/scan.json"
tail -1 "$log"
echo "bench: detecting, $samples samples of $length tokens, against the merged scan" >&2
timed_run "$log" "$tmp/detect.err" detect sh -c 'exec "$0" detect "$1" --threads "$2" --samples "$3" --length "$4" --scan "$5" --json "$6" > /dev/null' \
  "$qkov" "$model" "$threads" "$samples" "$length" "$tmp/whole/scan.json" "$tmp/detect.json"
tail -1 "$log"
"$python" - "$log" "$tmp" "${list[@]}" <<'PY'
import json, os, sys
log, tmp, shards = sys.argv[1], sys.argv[2], sys.argv[3:]
print(f"{'stage':<22} {'wall s':>8} {'CPU s':>8} {'peak RSS MB':>12}")
for line in open(log):
    name, wall, kib, cpu = line.split()[:4]
    print(f"{name:<22} {float(wall):8.1f} {float(cpu):8.1f} {int(kib) / 1024:12.0f}")
size = lambda p: os.path.getsize(p) / 1e6
for path in shards + [os.path.join(tmp, "whole", "scan.json")]:
    tensors = os.path.join(os.path.dirname(path), "scan.tensors.safetensors")
    print(f"{os.path.relpath(path, tmp)}: {size(path):.2f} MB of JSON, {size(tensors):.1f} MB of tensors")
whole = json.load(open(os.path.join(tmp, "whole", "scan.json")))
labels = {(h["layer"], h["head"]): h["labels"] for h in whole["heads"]}
parts = {(h["layer"], h["head"]): h["labels"] for s in shards for h in json.load(open(s))["heads"]}
assert labels == parts, "the merged document's labels differ from the shards'"
detection = json.load(open(os.path.join(tmp, "detect.json")))
total = detection["comparison"]["total"]
print(f"merged: {len(labels)} heads, {whole['composition']['pairs']} pairs; detect against it: "
      + ", ".join(f"{k} {total[k]}" for k in ("confirmed", "contradicted", "missed", "undecided", "not_tested")))
PY
