#!/usr/bin/env bash
# R6 at L = 4096, D = 768, d = 64, alpha = 100: qkov's run-time layer against numpy (Debian's
# python3-numpy on OpenBLAS) computing the same full causal pattern, in float64 and float32.
# The two alternate within each repetition; medians over REPS; ratio = numpy / qkov (> 1: qkov
# faster). Each side also prints the sum of the previous-token weights; the script checks they agree.
# Then the GEMM limit (one L x 768 x L product per dtype through the same BLAS; qkov's R6 rate counts
# the multiply-adds of the two projections and the causal half of the scores), and R10 at N = 1000
# (the d0 sweep's attention of the last query, qkov_r10.cpp against numpy_r10.py, alternating).
#   REPS=7 L=4096 bench/numeric/run.sh
# SMOKE: REPS=1 L=256 N=100 bench/numeric/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
reps=${REPS:-7}
length=${L:-4096}
alpha=${ALPHA:-100}
if ! /usr/bin/python3 -c "import numpy" 2>/dev/null; then
  echo "bench: python3-numpy is missing (scripts/install-deps.sh installs it)" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tokens=${N:-1000}
# Built by CMake with qkov's flags and the BLAS/LAPACK qkov::numeric links (bench/numeric/CMakeLists.txt).
bash bench/build.sh bench_qkov_r6 bench_qkov_r10
bin=${BENCH_BUILD_DIR:-build/bench}/bench/numeric
. bench/timing.sh  # median
for ((r = 0; r < reps; ++r)); do
  for dtype in f64 f32; do
    echo "R6 L=$length $dtype rep $((r + 1))/$reps" >&2
    echo "$dtype qkov $("$bin/qkov_r6" "$length" "$dtype" "$alpha")" >> "$tmp/all"
    echo "$dtype numpy $(/usr/bin/python3 bench/numeric/numpy_r6.py "$length" "$dtype" "$alpha")" >> "$tmp/all"
  done
done
for dtype in f64 f32; do
  echo "GEMM limit $dtype" >&2
  echo "$dtype gemm $("$bin/qkov_r6" gemm "$length" "$dtype")" >> "$tmp/all"
done
for ((r = 0; r < reps; ++r)); do
  echo "R10 N=$tokens rep $((r + 1))/$reps" >&2
  echo "r10 qkov $("$bin/qkov_r10" "$tokens" 11)" >> "$tmp/all"
  echo "r10 numpy $(/usr/bin/python3 bench/numeric/numpy_r10.py "$tokens" 11)" >> "$tmp/all"
done
echo "load: $(uptime)"
# useful flops of R6: 2 projections (2 L D d each) + the causal half of the scores (L (L + 1) d)
flops=$(awk -v l="$length" 'BEGIN {printf "%.0f", 4 * l * 768 * 64 + l * (l + 1) * 64}')
printf '| dtype | L | qkov (s) | numpy (s) | numpy / qkov | qkov GFLOP/s | GEMM GFLOP/s (L x 768 x L) | previous-token weight sum qkov / numpy |\n'
printf '| --- | --- | --- | --- | --- | --- | --- | --- |\n'
for dtype in f64 f32; do
  q=$(awk -v t=$dtype '$1==t && $2=="qkov" {print $3}' "$tmp/all" | median)
  n=$(awk -v t=$dtype '$1==t && $2=="numpy" {print $3}' "$tmp/all" | median)
  sq=$(awk -v t=$dtype '$1==t && $2=="qkov" {print $4; exit}' "$tmp/all")
  sn=$(awk -v t=$dtype '$1==t && $2=="numpy" {print $4; exit}' "$tmp/all")
  awk -v a="$sq" -v b="$sn" -v t=$dtype 'BEGIN { if ((a - b) > 1e-3 * b || (b - a) > 1e-3 * b) { print "bench: " t " patterns differ: " a " vs " b > "/dev/stderr"; exit 1 } }'
  g=$(awk -v t=$dtype '$1==t && $2=="gemm" {print $4}' "$tmp/all")
  printf '| %s | %s | %s | %s | %s | %s | %s | %s / %s |\n' "$dtype" "$length" "$q" "$n" "$(awk -v q=$q -v n=$n 'BEGIN {printf "%.2f", n/q}')" \
    "$(awk -v f=$flops -v q=$q 'BEGIN {printf "%.1f", f / q * 1e-9}')" "$g" "$sq" "$sn"
done
q=$(awk '$1=="r10" && $2=="qkov" {print $3}' "$tmp/all" | median)
n=$(awk '$1=="r10" && $2=="numpy" {print $3}' "$tmp/all" | median)
sq=$(awk '$1=="r10" && $2=="qkov" {print $4; exit}' "$tmp/all")
sn=$(awk '$1=="r10" && $2=="numpy" {print $4; exit}' "$tmp/all")
awk -v a="$sq" -v b="$sn" 'BEGIN { if ((a - b) > 1e-9 || (b - a) > 1e-9) { print "bench: R10 weights differ: " a " vs " b > "/dev/stderr"; exit 1 } }'
printf '\n| R10 d0 sweep (6 heads), N | qkov (s per sweep) | numpy (s per sweep) | numpy / qkov | sum of the largest weights qkov / numpy |\n| --- | --- | --- | --- | --- |\n'
printf '| %s | %s | %s | %s | %s / %s |\n' "$tokens" "$q" "$n" "$(awk -v q=$q -v n=$n 'BEGIN {printf "%.2f", n/q}')" "$sq" "$sn"
