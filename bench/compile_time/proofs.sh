#!/usr/bin/env bash
# Compile time and peak memory of each proof file (g++ -fsyntax-only, the proofs' flags),
# median of REPS runs, files alternating within each repetition.
set -euo pipefail
cd "$(dirname "$0")/../.."
reps=${REPS:-3}
tmp=$(mktemp -d)
for ((r = 0; r < reps; ++r)); do
  for f in proofs/*.cpp; do
    /usr/bin/time -f "%e %M" -o "$tmp/t" g++ -std=c++20 -Iinclude -fsyntax-only -fconstexpr-ops-limit=536870912 "$f"
    echo "$f $(tail -1 "$tmp/t")" >> "$tmp/all"
  done
done
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
printf '| proof | median seconds | median peak MB |\n| --- | --- | --- |\n'
certified_total=0
for f in proofs/*.cpp; do
  t=$(awk -v f="$f" '$1==f {print $2}' "$tmp/all" | median)
  m=$(awk -v f="$f" '$1==f {print $3}' "$tmp/all" | median)
  awk -v f="$f" -v t="$t" -v m="$m" 'BEGIN {printf "| %s | %.2f | %.0f |\n", f, t, m/1024}'
  # The certified (C) proofs: their "// Kind:" line says C; their total has a budget of 60 s.
  if grep -qE '^// Kind: (C|.* and C) ' "$f"; then certified_total=$(awk -v a="$certified_total" -v b="$t" 'BEGIN {print a + b}'); fi
done
echo
echo "certified (C) proofs together: ${certified_total} s (sum of medians)"
rm -rf "$tmp"
