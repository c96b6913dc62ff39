#!/usr/bin/env bash
# Compile-time cost of rational<I> for I = int64, __int128, Boost checked_int256: wall time and
# peak memory of g++ -fsyntax-only on bench/compile_time/rational_workload.cpp (an N x N product
# and inverse in static_asserts). The three integer types alternate within each repetition so
# that machine noise hits them alike; the table reports medians. The compiler and its flags are the
# ones CMake gives a qkov target (bench/CMakeLists.txt, written to build/bench by bench/build.sh).
#   REPS=3 SIZES="0 6 8 12" bench/compile_time/run.sh
# SMOKE: REPS=1 SIZES="0 6" bench/compile_time/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
bash bench/build.sh
mapfile -t compile < <(grep -v '^$' "${BENCH_BUILD_DIR:-build/bench}/bench/compile_time/bench_rational_workload.command")
reps=${REPS:-3}
sizes=${SIZES:-"0 6 8 12"}  # N = 0: headers only, no constant evaluation
names=([1]=int64 [2]=int128 [3]=boost_int256)
tmp=$(mktemp -d)
for n in $sizes; do
  for ((r = 0; r < reps; ++r)); do
    for i in 1 2 3; do
      if /usr/bin/time -f "%e %M" -o "$tmp/t" "${compile[@]}" -fsyntax-only \
        -DQKOV_BENCH_INTEGER=$i -DQKOV_BENCH_N=$n bench/compile_time/rational_workload.cpp 2> "$tmp/err"; then
        echo "$n $i $(tail -1 "$tmp/t")" >> "$tmp/all"
      elif grep -q overflow "$tmp/err"; then
        echo "$n $i overflow" >> "$tmp/all"   # the exact values do not fit this integer type
      else
        cat "$tmp/err" >&2; exit 1
      fi
    done
  done
done
. bench/timing.sh  # median
printf '| N | integer | median seconds | median peak MB | vs int128 |\n| --- | --- | --- | --- | --- |\n'
for n in $sizes; do
  base=$(awk -v n=$n '$1==n && $2==2 && $3!="overflow" {print $3}' "$tmp/all" | median)
  for i in 1 2 3; do
    if awk -v n=$n -v i=$i '$1==n && $2==i && $3=="overflow" {f=1} END {exit !f}' "$tmp/all"; then
      printf '| %d | %s | overflow (compile error) | | |\n' "$n" "${names[$i]}"
      continue
    fi
    t=$(awk -v n=$n -v i=$i '$1==n && $2==i {print $3}' "$tmp/all" | median)
    m=$(awk -v n=$n -v i=$i '$1==n && $2==i {print $4}' "$tmp/all" | median)
    awk -v n=$n -v name=${names[$i]} -v t=$t -v m=$m -v base=${base:-0} 'BEGIN {
      printf "| %d | %s | %.2f | %.0f | %s |\n", n, name, t, m/1024, (base > 0 ? sprintf("%.1fx", t/base) : "-") }'
  done
done
cp "$tmp/all" "${RAW_OUT:-/dev/null}"; rm -rf "$tmp"
