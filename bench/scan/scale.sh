#!/usr/bin/env bash
# `qkov scan` at the size of today's models: a Llama-3-8B-shaped model (make_llama_model.py: bf16,
# D = 4,096, 32 x 32 heads with 8 KV heads, F = 14,336, V = 128,256), LAYERS of its 32 layers,
# scanned whole (every head, every pair, the copying scores, the labels' forward pass), reporting
# wall and CPU time, peak RSS (/usr/bin/time: it counts the mapped file's pages), the heap's peak
# (heaptrack, a second run, when installed), the time of each part against its FLOP at the
# machine's dgemm rate (scale_report.py), and the projection to 32 layers (composition grows as
# L^2: the pairs are L (L - 1) / 2).
#   LAYERS=2 bench/scan/scale.sh      (THREADS, default every core; QKOV, default
#                                      build/default/apps/qkov/qkov; MODEL=DIR scans a model
#                                      written before instead of writing one; KEEP=1 keeps it;
#                                      HEAP=0 skips the heaptrack run; PRECISION=float64
#                                      scans with --precision float64, default float32)
# The model takes 2.1 GB plus 0.44 GB per layer on disk (14.0 GB at 32 layers), in a temporary
# directory (TMPDIR) removed at exit unless KEEP=1.
set -euo pipefail
cd "$(dirname "$0")/../.."
layers=${LAYERS:-2}
threads=${THREADS:-$(nproc)}
precision=${PRECISION:-float32}
. bench/timing.sh  # median, timed_run, bench_programs, scratch_directory
bench_programs  # qkov, python
if [[ -n ${MODEL:-} ]]; then
  model=$MODEL
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
else
  scratch_directory $((2200 + 450 * layers + 500)) "the Llama-3-8B-shaped model of $layers layers"
  model=$tmp/model
  if [[ ${KEEP:-0} == 1 ]]; then
    model=$(mktemp -d "${TMPDIR:-/tmp}/llama3-8b-shaped.XXXXXX")
    echo "bench: the model stays in $model (KEEP=1)" >&2
  fi
  echo "bench: writing the Llama-3-8B-shaped model of $layers layers into $model" >&2
  start=$(date +%s)
  LAYERS=$layers "$python" bench/scan/make_llama_model.py "$model" 0
  echo "bench: written in $(($(date +%s) - start)) s" >&2
fi
export OPENBLAS_NUM_THREADS=$threads
echo "load: $(uptime)"
echo "precision: $precision"
gflops=$("$python" - <<'PY'
import time, numpy as np
a, b = np.random.default_rng(0).standard_normal((2, 4096, 4096))
best = min((lambda s: (a @ b, time.perf_counter() - s)[1])(time.perf_counter()) for _ in range(3))
print(f"{2 * 4096 ** 3 / best / 1e9:.1f}")
PY
)
echo "bench: numpy dgemm 4096^3 at $gflops GFLOP/s with OPENBLAS_NUM_THREADS=$threads" >&2
: > "$tmp/log"
echo "bench: qkov scan, $threads threads, --precision $precision" >&2
timed_run "$tmp/log" "$tmp/scan.err" qkov sh -c 'exec "$0" scan "$1" --quiet --threads "$2" --precision "$5" --json "$3" --timings "$4" > /dev/null' \
  "$qkov" "$model" "$threads" "$tmp/scan.json" "$tmp/timings.json" "$precision"
read -r _ wall rss cpu < "$tmp/log"
heap=-
if [[ ${HEAP:-1} == 1 ]] && command -v heaptrack > /dev/null; then
  echo "bench: the same scan under heaptrack, for the heap's peak" >&2
  heaptrack -o "$tmp/heap" "$qkov" scan "$model" --quiet --threads "$threads" --precision "$precision" > /dev/null 2> "$tmp/heap.err"
  heap=$(heaptrack_print "$tmp"/heap.*zst 2> /dev/null | awk '/^peak heap memory consumption/ {v = $5; u = substr(v, length(v)); n = substr(v, 1, length(v) - 1);
    f = (u == "G") ? 2^30 : (u == "M") ? 2^20 : (u == "K") ? 2^10 : 1; if (u ~ /[0-9]/) {n = v; f = 1}; printf "%.0f", n * f}')
fi
"$python" bench/scan/scale_report.py "$model/config.json" "$tmp/timings.json" "$wall" "$cpu" "$rss" "$heap" "$gflops" 32
echo "document: $(stat -c %s "$tmp/scan.json") bytes of JSON for $("$python" -c 'import json,sys; j=json.load(open(sys.argv[1])); print(len(j["heads"]), "heads,", j["composition"]["pairs"], "pairs")' "$tmp/scan.json"), their tensors $(stat -c %s "$tmp/scan.tensors.safetensors") bytes"
