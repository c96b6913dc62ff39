#!/usr/bin/env bash
# One layer pair's composition at Llama-3-8B's shape (qkov_composition.cpp: compose() on random
# factors, 32 heads in 8 key-value groups, d = 128, D = 4,096), --precision float64 against
# float32, alternating, REPS rounds, on THREADS workers as `qkov scan --threads THREADS` runs it
# (OPENBLAS_NUM_THREADS=1 per worker, as the scan holds it). Prints the medians and the ratio float64 / float32, the
# composition's part of the scan's float32 target (docs/benchmarks.md).
#   REPS=7 THREADS=2 bench/composition/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
reps=${REPS:-7}
threads=${THREADS:-$(nproc)}
bench/build.sh bench_qkov_composition
program=${BENCH_BUILD_DIR:-build/bench}/bench/composition/qkov_composition
echo "load: $(uptime)"
out=$(OPENBLAS_NUM_THREADS=1 "$program" "$reps" "$threads")
echo "$out"
/usr/bin/python3 - "$out" <<'PY'
import statistics, sys
runs = {}
for line in sys.argv[1].splitlines():
    precision, seconds, t3 = line.split()
    runs.setdefault(precision, []).append((float(seconds), float(t3)))
m = {p: statistics.median(s for s, _ in v) for p, v in runs.items()}
t3 = {p: statistics.median(t for _, t in v) for p, v in runs.items()}
print(f"median of {len(runs['float64'])}: float64 {m['float64']:.3f} s, float32 {m['float32']:.3f} s, "
      f"float64 / float32 {m['float64'] / m['float32']:.2f}x (T3 {t3['float64']:.3f} and {t3['float32']:.3f} worker-s)")
PY
