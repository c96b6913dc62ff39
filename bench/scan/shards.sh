#!/usr/bin/env bash
# What sharding a scan costs in CPU time, with and without the inputs the shards share
# (docs/cluster.md): a Llama-shaped model of LAYERS layers (make_llama_model.py; SHAPE=small by
# default, 8b for Llama-3-8B's own shape) scanned
#   whole        one `qkov scan`
#   shards       SHARDS shards of equal work (cluster.md's ranges), each running the forward pass
#                through the layers before it and W_E^T W_U itself
#   shared       `qkov scan --prepare-shards` once, then the same shards with `--shared`
# one stage after another, each under /usr/bin/time (CPU s = user + system). Both sharded runs are
# merged (`qkov merge-scans`) and each merge must equal the whole scan's document and tensors byte
# for byte (every run uses THREADS threads). Prints each stage and the ratio of each sharded
# run's CPU time (shards and the preparation, not the merge) to the whole scan's.
#   LAYERS=32 SHARDS=8 bench/scan/shards.sh     (THREADS, default every core; SHAPE; QKOV; MODEL=DIR
#                                                reuses a model written before; RUNS="shared" runs
#                                                the whole scan and the shared run only)
set -euo pipefail
cd "$(dirname "$0")/../.."
layers=${LAYERS:-32}
shards=${SHARDS:-8}
threads=${THREADS:-$(nproc)}
shape=${SHAPE:-small}
runs=${RUNS:-shards shared}
. bench/timing.sh  # timed_run, bench_programs, scratch_directory
bench_programs  # qkov, python
if ((shards < 1 || shards > layers)); then
  echo "bench: SHARDS=$shards: give 1..LAYERS ($layers) shards" >&2
  exit 1
fi
# The model (1.2 GB small, 14 GB at 8b unless MODEL is given), the shared inputs (2.8 GB small,
# about 6 GB at 8b), the scans' tensors (small at either shape).
if [[ $shape == 8b ]]; then need=22000; else need=6000; fi
scratch_directory "$need" "the model, the shared inputs and three scans' tensors"
if [[ -n ${MODEL:-} ]]; then
  model=$MODEL
else
  model=$tmp/model
  echo "bench: writing a Llama-shaped model (SHAPE=$shape) of $layers layers into $model" >&2
  SHAPE=$shape LAYERS=$layers "$python" bench/scan/make_llama_model.py "$model" 0
fi
export OPENBLAS_NUM_THREADS=$threads
echo "load: $(uptime)"
log=$tmp/log
: > "$log"
# Ranges of about equal work: layer l costs l + 1 units (its heads and its pairs with the l layers before it).
mapfile -t ranges < <(awk -v L="$layers" -v S="$shards" 'BEGIN { total = L * (L + 1) / 2; first = 0; s = 1
  for (l = 0; l < L; ++l) { done += l + 1
    if (done >= s * total / S || l == L - 1) { printf "%d-%d\n", first, l; first = l + 1; ++s } } }')
list=$(IFS=,; echo "${ranges[*]}")
echo "bench: shards $list" >&2
scan() {  # NAME OUT [qkov scan options]: one timed scan writing OUT/scan.json
  local name=$1 out=$2
  shift 2
  mkdir -p "$out"
  timed_run "$log" "$tmp/$name.err" "$name" sh -c 'm=$1; j=$2; shift 2; exec "$0" scan "$m" --quiet --json "$j" "$@" > /dev/null' \
    "$qkov" "$model" "$out/scan.json" --threads "$threads" "$@"
  tail -1 "$log"
}
scan whole "$tmp/whole"
for run in $runs; do
  if [[ $run == shared ]]; then
    timed_run "$log" "$tmp/prepare.err" shared_prepare sh -c 'exec "$0" scan "$1" --quiet --prepare-shards "$2" --shared "$3" --threads "$4" > /dev/null' \
      "$qkov" "$model" "$list" "$tmp/inputs" "$threads"
    tail -1 "$log"
  fi
  parts=()
  for range in "${ranges[@]}"; do
    if [[ $run == shared ]]; then scan "${run}_$range" "$tmp/$run/$range" --layers "$range" --shared "$tmp/inputs"
    else scan "${run}_$range" "$tmp/$run/$range" --layers "$range"; fi
    parts+=("$tmp/$run/$range/scan.json")
  done
  mkdir -p "$tmp/$run/merged"
  timed_run "$log" "$tmp/$run-merge.err" "${run}_merge" sh -c 'exec "$0" merge-scans "$@" > /dev/null' "$qkov" "${parts[@]}" --json "$tmp/$run/merged/scan.json"
  for file in scan.json scan.tensors.safetensors; do
    cmp -s "$tmp/whole/$file" "$tmp/$run/merged/$file" || { echo "bench: the merged $run differ from the whole scan in $file" >&2; exit 1; }
  done
  echo "bench: the $run merge equals the whole scan, document and tensors" >&2
done
[[ -d $tmp/inputs ]] && echo "shared inputs: $(du -sm "$tmp/inputs" | cut -f1) MiB"
"$python" - "$log" $runs <<'PY'
import sys
rows = [line.split()[:4] for line in open(sys.argv[1])]
print(f"{'stage':<24} {'wall s':>8} {'CPU s':>8} {'peak RSS MB':>12}")
for name, wall, kib, cpu in rows:
    print(f"{name:<24} {float(wall):8.1f} {float(cpu):8.1f} {int(kib) / 1024:12.0f}")
cpu = {name: float(c) for name, _, _, c in rows}
whole = cpu["whole"]
for run in sys.argv[2:]:
    total = sum(c for name, c in cpu.items() if name.startswith(run + "_") and not name.endswith("_merge"))
    print(f"{run}: {total:.1f} CPU s, {total / whole:.2f} x the whole scan's {whole:.1f} (merge not counted: {cpu[run + '_merge']:.1f} s)")
PY
