#!/usr/bin/env bash
# The cost of `qkov scan`'s labels on a GPT-2-small-sized model (12 layers of 12 heads, D = 768,
# MLP 3,072, V = 50,257, 1,024 learned positions, random weights written by
# bench/forward/make_model.py into a temporary directory, about 500 MB, removed at exit), against
# numpy_labels.py, a vectorised numpy float64 reference for the two expensive parts the labels add:
#   (a) the forward passes: the proxy pass on [BOS] + mean embedding x 50, and every read token's
#       effective embedding at every layer (3,866 tokens, every 13th of V, in qkov's seeded order,
#       in chunks of 50);
#   (b) the per-token copying of all 144 heads: a 3,866 x 50,257 row block product per head and
#       the rank of each token in its own row (top-1, top-5, bottom-10 shares, median margin).
# qkov's side is the whole process, `qkov scan DIR --json FILE`: it also does everything the scan
# did before the labels (SVDs, W_E^T W_E copying scores, composition; bench/scan/run.sh times
# those), the mean-field kernels and their interval certificates, and writes the JSON. numpy's side
# is only (a) and (b).
# REPS repetitions alternate the two, both with OPENBLAS_NUM_THREADS=THREADS (default: every
# core). The table gives medians of the whole process's wall time and CPU time (user + system), the
# peak RSS, numpy's own times (after reading the file: all, (a), (b)), and ratio = numpy / qkov
# (> 1: qkov faster). The split inside qkov comes from `qkov scan --timings`: (a) the forward pass
# reaching each layer (the proxy sequence and the token chunks go through the layers with the
# scan), (b) the per-token copying of each layer's heads, summed over the layers, and the time
# before the first layer (W_E^T W_E, the read-out's token rows); and the circuit search's own time
# (circuit_seconds), as a share of the rest of the scan: what the circuits add.
# Every rep is checked: numpy_labels.py --compare fails the script unless qkov's
# heads[].token_copying has the same token count and shares within 1/T of numpy's (and the median
# margins within 1e-6, or 1e-4 when qkov's products ran in float32, its default: docs/SCAN-LABELS.md).
#   REPS=3 bench/labels/run.sh     (QKOV=path/to/qkov, default build/default/apps/qkov/qkov;
#                                   THREADS, default nproc; TMPDIR for the 500 MB model;
#                                   PRECISION, qkov's --precision, default float64 like numpy's
#                                   reference: float32 times qkov's default)
set -euo pipefail
cd "$(dirname "$0")/../.."
reps=${REPS:-3}
threads=${THREADS:-$(nproc)}
precision=${PRECISION:-float64}
. bench/timing.sh  # median, timed_run, bench_programs, scratch_directory
bench_programs  # qkov, python
scratch_directory 700 "the generated model"  # the 500 MB model, two JSON reports and room to spare
echo "bench: writing the GPT-2-small-sized model into $tmp/model" >&2
"$python" bench/forward/make_model.py "$tmp/model" 0
export OPENBLAS_NUM_THREADS=$threads
echo "load: $(uptime)"
echo "REPS=$reps, OPENBLAS_NUM_THREADS=$threads, qkov --precision $precision; qkov: $qkov; numpy $("$python" -c 'import numpy; print(numpy.__version__)'); $(nproc) cores"
echo "model: $("$python" -c 'import json, sys; c = json.load(open(sys.argv[1])); print(", ".join(f"{k} {c[k]}" for k in ("n_layer", "n_head", "n_embd", "n_inner", "vocab_size", "n_positions")))' "$tmp/model/config.json")"
: > "$tmp/all"
: > "$tmp/split"
for ((r = 0; r < reps; ++r)); do
  echo "rep $((r + 1))/$reps" >&2
  timed_run "$tmp/all" "$tmp/qkov.err" qkov sh -c 'exec "$0" scan "$1" --json "$2" --timings "$3" --precision "$4" > /dev/null' "$qkov" "$tmp/model" "$tmp/qkov.json" "$tmp/timings.json" "$precision"  # exec: time sees qkov itself
  "$python" -c 'import json, sys; t = json.load(open(sys.argv[1])); print(*(f"{x:.2f}" for x in (sum(l["pass_seconds"] for l in t["layers"]), sum(l["copying_seconds"] for l in t["layers"]), t["before_layers_seconds"], sum(l["circuit_seconds"] for l in t["layers"]))))' "$tmp/timings.json" >> "$tmp/split"
  timed_run "$tmp/all" "$tmp/numpy.err" numpy "$python" bench/labels/numpy_labels.py "$tmp/model" "$tmp/numpy.json"
  "$python" bench/labels/numpy_labels.py --compare "$tmp/qkov.json" "$tmp/numpy.json" > "$tmp/agreement"
done
nw=$(awk '$1=="numpy" {print $2}' "$tmp/all" | median)
nc=$(awk '$1=="numpy" {print $4}' "$tmp/all" | median)
printf '| program | wall (s) | CPU (s) | peak RSS (MiB) | own time, all (s) | (a) forward passes (s) | (b) per-token copying (s) | numpy / qkov (wall) | numpy / qkov (CPU) |\n'
printf '| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n'
for name in qkov numpy; do
  w=$(awk -v n=$name '$1==n {print $2}' "$tmp/all" | median)
  m=$(awk -v n=$name '$1==n {print $3}' "$tmp/all" | median)
  c=$(awk -v n=$name '$1==n {print $4}' "$tmp/all" | median)
  own="-" fwd="-" copy="-" ratio_w="-" ratio_c="-"
  if [[ $name == numpy ]]; then
    own=$(awk '$1=="numpy" {print $5}' "$tmp/all" | median)
    fwd=$(awk '$1=="numpy" {print $6}' "$tmp/all" | median)
    copy=$(awk '$1=="numpy" {print $7}' "$tmp/all" | median)
  else
    fwd=$(awk '{print $1}' "$tmp/split" | median)
    copy=$(awk '{print $2}' "$tmp/split" | median)
    ratio_w=$(awk -v a="$nw" -v b="$w" 'BEGIN {printf "%.2f", a / b}')
    ratio_c=$(awk -v a="$nc" -v b="$c" 'BEGIN {printf "%.2f", a / b}')
  fi
  printf '| %s | %s | %s | %.1f | %s | %s | %s | %s | %s |\n' "$name" "$w" "$c" "$(awk -v k="$m" 'BEGIN {print k / 1024}')" "$own" "$fwd" "$copy" "$ratio_w" "$ratio_c"
done
echo "inside qkov (medians over the reps, from --timings): (a) and (b) in the table; before the first layer $(awk '{print $3}' "$tmp/split" | median) s"
circuits=$(awk '{print $4}' "$tmp/split" | median)
qkov_wall=$(awk '$1=="qkov" {print $2}' "$tmp/all" | median)
echo "circuit search (docs/SCAN-LABELS.md, Circuits): $circuits s of qkov's $qkov_wall s wall: $(awk -v c="$circuits" -v w="$qkov_wall" 'BEGIN {printf "%.1f", 100 * c / (w - c)}') % added to the scan without it"
echo "agreement (the last rep's; every rep was checked): $(cat "$tmp/agreement")"
echo "load at the end: $(uptime)"
