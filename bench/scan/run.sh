#!/usr/bin/env bash
# `qkov scan` against a vectorised numpy reference reading the same file (numpy_scan.py), on
#   (a) GPT-2 small's attention weights (../shared/real_models/gpt2-small-attention: 144 heads,
#       9,504 layer-ordered head pairs, no token embedding, so no copying score), and
#   (b) a GPT-2-small-shaped file with a tied token embedding (V = 50,257) written by make_model.py
#       into a temporary directory (about 270 MB; removed at exit), which adds W_E^T W_E and the
#       copying scores.
# For each thread count t in THREADS (OPENBLAS_NUM_THREADS=t for both programs, and qkov's
# --threads t, its workers for the per-head work and T3) and each model, REPS repetitions alternate
# `qkov scan DIR --json FILE --threads t` and `numpy_scan.py FILE.safetensors`; the table
# gives medians of the whole process's wall time and CPU time (user + system: on a busy machine
# the wall time mostly measures waiting), the peak RSS (/usr/bin/time -f %M), numpy's own time
# after its imports, and ratio = numpy / qkov (> 1: qkov faster). numpy computes the metrics only
# (no residuals, labels, structure tests, facts or JSON): qkov's side does strictly more.
# The two must agree: numpy_scan.py --compare checks every rep's qkov JSON against numpy's
# checksum (weighted sums of every rank, condition number, spectrum, distance, copying score,
# composition score and T3 spectrum) to 1e-9 relative, and the script fails otherwise.
# GEMM limit: gemm_rate.py times numpy's dgemm (OpenBLAS) at 768 x 768 x 768 and 768 x V x 768
# (best of several runs). The dominant products have known FLOP counts: composition 2 (3Hd) D (Hd)
# per layer pair (66 pairs), W_E^T W_E V D^2 for the tied model (qkov calls dsyrk for it: one
# triangle of the symmetric product, as numpy does for an array times its own transpose). "At the
# limit" is the time those FLOPs take at the measured rates; "fraction of limit" divides it by
# qkov's whole scan (wall, then CPU time divided by the thread count, the wall time it would take
# on otherwise idle cores if every thread were busy): the scan's time is an upper bound on the
# time it spends in these products, so the fraction is a lower bound on the rate they reach
# (within 2x of the limit: >= 0.5).
#   REPS=5 THREADS="1 2" bench/scan/run.sh     (QKOV=path/to/qkov, default build/default/apps/qkov/qkov;
#                                               QKOV_SHARED_DIR, default ../shared)
set -euo pipefail
cd "$(dirname "$0")/../.."
reps=${REPS:-5}
threads=${THREADS:-1 2}
real=${QKOV_SHARED_DIR:-../shared}/real_models/gpt2-small-attention
if [[ ! -f "$real/gpt2_small_attention_only.safetensors" ]]; then
  echo "bench: $real/gpt2_small_attention_only.safetensors is missing (set QKOV_SHARED_DIR)" >&2
  exit 1
fi
. bench/timing.sh  # median, timed_run, bench_programs, scratch_directory
bench_programs  # qkov, python
scratch_directory 400 "the generated model"  # the 270 MB model, two JSON reports and room to spare
echo "bench: writing the GPT-2-small-shaped model with embeddings into $tmp/generated ($((free_kib / 1024)) MiB free)" >&2
"$python" bench/scan/make_model.py "$tmp/generated" 0
models=("gpt2-attention $real $real/gpt2_small_attention_only.safetensors 0"
        "generated $tmp/generated $tmp/generated/model.safetensors 50257")
# FLOPs of the dominant products for 12 layers of 12 heads, D = Hd = 768.
composition_flop=$(awk 'BEGIN {printf "%.0f", 66 * 2 * 2304 * 768 * 768}')
echo "load: $(uptime)"
echo "REPS=$reps; qkov: $qkov; numpy $("$python" -c 'import numpy; print(numpy.__version__)')"
{
printf '| threads | model | program | wall (s) | CPU (s) | peak RSS (MiB) | numpy own time (s) | numpy / qkov (wall) | numpy / qkov (CPU) | dominant products at the GEMM limit (s) | fraction of limit (wall) | fraction of limit (CPU / threads) |\n'
printf '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n'
} > "$tmp/table"
for t in $threads; do
  export OPENBLAS_NUM_THREADS=$t
  read -r rate_square rate_vocabulary < <("$python" bench/scan/gemm_rate.py 50257)
  echo "OPENBLAS_NUM_THREADS=$t: dgemm 768 x 768 x 768 at $rate_square GFLOP/s, 768 x 50257 x 768 at $rate_vocabulary GFLOP/s" >&2
  echo "threads $t gemm $rate_square $rate_vocabulary" >> "$tmp/rates"
  for entry in "${models[@]}"; do
    read -r label dir file vocabulary <<< "$entry"
    : > "$tmp/all"
    for ((r = 0; r < reps; ++r)); do
      echo "threads $t, $label: rep $((r + 1))/$reps" >&2
      timed_run "$tmp/all" "$tmp/qkov.err" qkov sh -c 'exec "$0" scan "$1" --json "$2" --threads "$3" > /dev/null' "$qkov" "$dir" "$tmp/qkov.json" "$t"  # exec: time sees qkov itself
      timed_run "$tmp/all" "$tmp/numpy.err" numpy "$python" bench/scan/numpy_scan.py "$file" "$tmp/numpy.json"
      "$python" bench/scan/numpy_scan.py --compare "$tmp/qkov.json" "$tmp/numpy.json" > "$tmp/compare-$label"
    done
    limit=$(awk -v c="$composition_flop" -v v="$vocabulary" -v a="$rate_square" -v b="$rate_vocabulary" \
      'BEGIN {printf "%.3f", c / (a * 1e9) + v * 768 * 768 / (b * 1e9)}')
    nw=$(awk '$1=="numpy" {print $2}' "$tmp/all" | median)
    nc=$(awk '$1=="numpy" {print $4}' "$tmp/all" | median)
    for name in qkov numpy; do
      w=$(awk -v n=$name '$1==n {print $2}' "$tmp/all" | median)
      m=$(awk -v n=$name '$1==n {print $3}' "$tmp/all" | median)
      c=$(awk -v n=$name '$1==n {print $4}' "$tmp/all" | median)
      own="-" ratio_w="-" ratio_c="-" at_limit="-" fraction_w="-" fraction_c="-"
      if [[ $name == numpy ]]; then
        own=$(awk '$1=="numpy" {print $5}' "$tmp/all" | median)
      else
        ratio_w=$(awk -v a="$nw" -v b="$w" 'BEGIN {printf "%.2f", a / b}')
        ratio_c=$(awk -v a="$nc" -v b="$c" 'BEGIN {printf "%.2f", a / b}')
        at_limit=$limit
        fraction_w=$(awk -v a="$limit" -v b="$w" 'BEGIN {printf "%.2f", a / b}')
        fraction_c=$(awk -v a="$limit" -v b="$c" -v n="$t" 'BEGIN {printf "%.2f", (b > 0 ? a * n / b : 0)}')
      fi
      printf '| %s | %s | %s | %s | %s | %.1f | %s | %s | %s | %s | %s | %s |\n' "$t" "$label" "$name" "$w" "$c" \
        "$(awk -v k="$m" 'BEGIN {print k / 1024}')" "$own" "$ratio_w" "$ratio_c" "$at_limit" "$fraction_w" "$fraction_c" >> "$tmp/table"
    done
    { echo "agreement, threads $t, $label (the last rep's; every rep was checked):"; cat "$tmp/compare-$label"; } >> "$tmp/agreement"
  done
done
cat "$tmp/table" "$tmp/agreement"
echo "dgemm rates (GFLOP/s, best of several runs, numpy/OpenBLAS float64):"
awk '{printf "  OPENBLAS_NUM_THREADS=%s: 768 x 768 x 768 %s, 768 x 50257 x 768 %s\n", $2, $4, $5}' "$tmp/rates"
echo "dominant products: composition $composition_flop FLOP (66 layer pairs of 2304 x 768 x 768), W_E^T W_E $(awk 'BEGIN {printf "%.0f", 50257 * 768 * 768}') FLOP (dsyrk, generated model only)"
