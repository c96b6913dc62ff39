#!/usr/bin/env bash
# One layer pair's composition at Llama-3-8B's shape (qkov_composition.cpp: compose() on random
# factors, 32 heads in 8 key-value groups, d = 128, D = 4,096), --precision float64 against
# float32, alternating, REPS rounds, on THREADS workers as `qkov scan --threads THREADS` runs it
# (OPENBLAS_NUM_THREADS=1 per worker, as the scan holds it). Prints the medians and the ratio float64 / float32, the
# composition's part of the scan's float32 target (docs/benchmarks.md).
#   REPS=7 THREADS=2 bench/composition/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
. bench/timing.sh  # median
reps=${REPS:-7}
threads=${THREADS:-$(nproc)}
bench/build.sh bench_qkov_composition
program=${BENCH_BUILD_DIR:-build/bench}/bench/composition/qkov_composition
echo "load: $(uptime)"
out=$(OPENBLAS_NUM_THREADS=1 "$program" "$reps" "$threads")
echo "$out"
f64=$(awk '$1 == "float64" {print $2}' <<< "$out" | median)
f32=$(awk '$1 == "float32" {print $2}' <<< "$out" | median)
t64=$(awk '$1 == "float64" {print $3}' <<< "$out" | median)
t32=$(awk '$1 == "float32" {print $3}' <<< "$out" | median)
awk -v n="$reps" -v a="$f64" -v b="$f32" -v ta="$t64" -v tb="$t32" 'BEGIN {
  printf "median of %d: float64 %.3f s, float32 %.3f s, float64 / float32 %.2fx (T3 %.3f and %.3f worker-s)\n", n, a, b, a / b, ta, tb }'
