#!/usr/bin/env bash
# The overhead of qkov's Python module over the C++ tool, on the same scan: `qkov scan DIR --json
# FILE` against python_scan.py (import qkov, qkov.scan(DIR), Scan.to_json() written to a file) on
# GPT-2 small's attention weights (../shared/real_models/gpt2-small-attention). REPS repetitions
# alternate the two programs (so a change in the machine's load falls on both); the table gives the
# medians of the whole process's wall and CPU time (Python's include starting the interpreter and
# importing numpy and qkov), Python's time inside the call, and the ratios Python / CLI. The target
# is an overhead below 5 % (ratio < 1.05). Every rep's two documents must be the same bytes.
#   REPS=5 THREADS=1 bench/python/run.sh   (QKOV=path/to/qkov, default build/default/apps/qkov/qkov;
#                                            QKOV_PYTHONPATH, default build/default/python;
#                                            PYTHON, default /usr/bin/python3; QKOV_SHARED_DIR, default ../shared)
set -euo pipefail
cd "$(dirname "$0")/../.."
reps=${REPS:-5}
threads=${THREADS:-1}
model=${QKOV_SHARED_DIR:-../shared}/real_models/gpt2-small-attention
qkov=${QKOV:-build/default/apps/qkov/qkov}
python=${PYTHON:-/usr/bin/python3}
export PYTHONPATH=${QKOV_PYTHONPATH:-build/default/python}
if [[ ! -f "$model/gpt2_small_attention_only.safetensors" ]]; then
  echo "bench: $model/gpt2_small_attention_only.safetensors is missing (set QKOV_SHARED_DIR)" >&2
  exit 1
fi
. bench/timing.sh  # median, timed_run, require_qkov, require_numpy, scratch_directory
require_qkov "$qkov"
require_numpy "$python"
if ! "$python" -c "import qkov" 2> /dev/null; then
  echo "bench: $python cannot import qkov from $PYTHONPATH: cmake --build build/default --target qkov_python (or set QKOV_PYTHONPATH)" >&2
  exit 1
fi
scratch_directory 50 "two scan documents"
echo "load: $(uptime)"
echo "REPS=$reps; threads $threads; qkov: $qkov; python: $python, qkov from $PYTHONPATH"
for ((rep = 1; rep <= reps; rep++)); do
  # The CLI's summary on stdout is dropped (one log line per run); exec keeps the timed process the CLI.
  timed_run "$tmp/log" "$tmp/err" cli sh -c 'exec "$0" "$@" > /dev/null' "$qkov" scan "$model" --threads "$threads" --json "$tmp/cli.json"
  timed_run "$tmp/log" "$tmp/err" python "$python" bench/python/python_scan.py "$model" "$threads" "$tmp/python.json"
  if ! cmp -s "$tmp/cli.json" "$tmp/python.json"; then
    echo "bench: rep $rep: the CLI's and Python's scan documents differ" >&2
    exit 1
  fi
  echo "rep $rep of $reps: $(tail -2 "$tmp/log" | awk '{printf "%s %s s  ", $1, $2}')" >&2
done
column() { awk -v n="$1" -v c="$2" '$1 == n {print $c}' "$tmp/log" | median; }
cli_wall=$(column cli 2) cli_cpu=$(column cli 4)
py_wall=$(column python 2) py_cpu=$(column python 4) py_call=$(column python 5)
printf '| threads | CLI wall (s) | CLI CPU (s) | Python wall (s) | Python CPU (s) | Python in the call (s) | Python / CLI (wall) | Python / CLI (CPU) | in the call / CLI wall |\n'
printf '| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n'
awk -v t="$threads" -v cw="$cli_wall" -v cc="$cli_cpu" -v pw="$py_wall" -v pc="$py_cpu" -v call="$py_call" \
  'BEGIN {printf "| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.3f | %.3f | %.3f |\n", t, cw, cc, pw, pc, call, pw / cw, pc / cc, call / cw}'
