#!/usr/bin/env bash
# Runs COMMAND while sampling how busy the machine's cores are every 2 s (/proc/stat: time not
# idle and not waiting for I/O), then prints the run's wall time, the mean share of the cores
# that was busy, and the busy CPU seconds (that share x cores x wall time): the work a command
# gives the machine, against which a target wall time can be judged (docs/scripts.md).
# Usage: bench/ci/cpu_busy.sh COMMAND [ARGS...]   e.g. bench/ci/cpu_busy.sh bash .ci/run
# The per-sample shares go to cpu_busy.samples in the current directory ("seconds busy%").
set -euo pipefail
(($# > 0)) || { echo "usage: $0 COMMAND [ARGS...]" >&2; exit 2; }
samples=$PWD/cpu_busy.samples
: > "$samples"
sample() {
  local u n s i w x y z tt ii pt pi t0=$SECONDS
  read -r _ u n s i w x y z _ < /proc/stat
  pt=$((u + n + s + i + w + x + y + z)); pi=$((i + w))
  while sleep 2; do
    read -r _ u n s i w x y z _ < /proc/stat
    tt=$((u + n + s + i + w + x + y + z)); ii=$((i + w))
    ((tt > pt)) && echo "$((SECONDS - t0)) $(((tt - pt - (ii - pi)) * 100 / (tt - pt)))" >> "$samples"
    pt=$tt; pi=$ii
  done
}
sample &
sampler=$!
start=$SECONDS
status=0
"$@" || status=$?
kill "$sampler" 2> /dev/null || true
awk -v wall=$((SECONDS - start)) -v cores="$(nproc)" \
  '{ sum += $2; n++ } END { if (n == 0) { print "cpu_busy: no samples"; exit }
     printf "cpu_busy: %d s wall, cores %.1f%% busy on average, %.0f busy CPU seconds (%d cores)\n", wall, sum / n, sum / n / 100 * cores * wall, cores }' "$samples"
exit "$status"
