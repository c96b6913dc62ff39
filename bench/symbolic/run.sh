#!/usr/bin/env bash
# qkov against SymPy on the same statements: R2 (R_m^T R_n = R_{n-m}) and R3 ((d/2) alpha for
# the previous-token head), for all m, n and independent symbolic angles, at growing d.
#
# qkov: g++ -fsyntax-only on bench/symbolic/qkov_rope.cpp (the proofs' own statements), minus
# the same file with QKOV_BASELINE (header parsing), i.e. the constant-evaluation time. The compiler
# and its flags are the ones CMake gives a qkov target (bench/build.sh writes them to build/bench).
# SymPy: bench/symbolic/sympy_rope.py (building the matrices + trigsimp; import not timed).
# The two alternate within each repetition; medians over REPS (default 3). After SymPy times out
# at some d it is not run at larger d for that claim.
#   REPS=3 SIZES="8 16 32 64 128 256 512" TIMEOUT=300 CLAIMS="2 3" bench/symbolic/run.sh
# SMOKE: REPS=1 SIZES="8 16" TIMEOUT=30 bench/symbolic/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
bash bench/build.sh
mapfile -t compile < <(grep -v '^$' "${BENCH_BUILD_DIR:-build/bench}/bench/symbolic/bench_symbolic_rope.command")
reps=${REPS:-3}
sizes=${SIZES:-"8 16 32 64 128 256 512"}
timeout=${TIMEOUT:-300}
claims=${CLAIMS:-"2 3"}
if ! /usr/bin/python3 -c "import sympy" 2>/dev/null; then
  echo "bench: installing python3-sympy (Debian)" >&2
  apt-get install -y -qq python3-sympy >/dev/null || { apt-get update -qq && apt-get install -y -qq python3-sympy >/dev/null; }
fi
compile() {  # prints seconds
  /usr/bin/time -f "%e" -o "$tmp/t" "${compile[@]}" -fsyntax-only "$@" bench/symbolic/qkov_rope.cpp
  cat "$tmp/t"
}
. bench/timing.sh  # median
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for claim in $claims; do
  sympy_done=""
  for d in $sizes; do
    for ((r = 0; r < reps; ++r)); do
      echo "R$claim d=$d rep $((r + 1))/$reps" >&2
      echo "$claim $d qkov $(compile -DQKOV_CLAIM=$claim -DQKOV_D=$d)" >> "$tmp/all"
      echo "$claim $d base $(compile -DQKOV_BASELINE -DQKOV_CLAIM=$claim -DQKOV_D=$d)" >> "$tmp/all"
      if [[ -z $sympy_done ]]; then
        out=$(bench/symbolic/sympy_rope.py --claim R$claim --d "$d" --timeout "$timeout" || true)
        s=$(python3 -c 'import json,sys; j=json.loads(sys.argv[1]); print(j["seconds"] if j.get("holds") else ("timeout" if j.get("timed_out_after") else "failed"))' "$out")
        echo "$claim $d sympy $s" >> "$tmp/all"
        [[ $s == timeout ]] && sympy_done=$d
      fi
    done
  done
done
printf '| claim | d | qkov compile (s) | qkov constant evaluation (s) | SymPy (s) | SymPy / qkov evaluation |\n'
printf '| --- | --- | --- | --- | --- | --- |\n'
for claim in $claims; do
  for d in $sizes; do
    q=$(awk -v c=$claim -v d=$d '$1==c && $2==d && $3=="qkov" {print $4}' "$tmp/all" | median)
    b=$(awk -v c=$claim -v d=$d '$1==c && $2==d && $3=="base" {print $4}' "$tmp/all" | median)
    net=$(awk -v q=$q -v b=$b 'BEGIN {n = q - b; if (n < 0.01) n = 0.01; printf "%.2f", n}')
    if awk -v c=$claim -v d=$d '$1==c && $2==d && $3=="sympy" && $4=="timeout" {f=1} END {exit !f}' "$tmp/all"; then
      sympy="timed out (> ${timeout} s)"; ratio="> $(awk -v t=$timeout -v n=$net 'BEGIN {printf "%.0f", t/n}')x"
    elif awk -v c=$claim -v d=$d '$1==c && $2==d && $3=="sympy" {f=1} END {exit !f}' "$tmp/all"; then
      s=$(awk -v c=$claim -v d=$d '$1==c && $2==d && $3=="sympy" {print $4}' "$tmp/all" | median)
      sympy=$s; ratio=$(awk -v s=$s -v n=$net 'BEGIN {printf "%.0fx", s/n}')
    else
      sympy="not run (timed out at smaller d)"; ratio="-"
    fi
    printf '| R%s | %s | %.2f | %s | %s | %s |\n' "$claim" "$d" "$q" "$net" "$sympy" "$ratio"
  done
done
