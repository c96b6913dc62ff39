#!/usr/bin/env bash
# Opening a model against reading its bytes with numpy: GPT-2 small's attention weights
# (../shared/real_models/gpt2-small-attention, 117 MB of F32 safetensors, 144 heads).
#   qkov inspect      the CLI: opens the file, loads and validates every head, prints per-layer norms
#   qkov_extract.cpp  every head's W_q, W_k, W_v, W_o and biases as float64 through qkov's head model
#   numpy_extract.py  the same matrices from np.frombuffer on the file's bytes (json header, astype
#                     float64, head slices copied); no NaN/Inf check, which qkov makes
# The three alternate within each repetition; medians over REPS of the wall time of the whole process
# (python's includes starting the interpreter and importing numpy), of the time each program measures
# itself from opening the file to the last head (qkov_extract, numpy), and the peak RSS
# (/usr/bin/time -f %M). Ratio = numpy / qkov (> 1: qkov faster). The two extractions print the sum of
# squares of every head matrix and bias; the script fails unless they agree to 1e-9 relative.
# Page cache: the file is read from the page cache after the first run of the first repetition (and
# probably before, if anything read it recently); these are warm-cache numbers. A cold read is bounded
# by the disk, the same for all three programs.
#   REPS=7 bench/models/run.sh        (QKOV=path/to/qkov, default build/default/apps/qkov/qkov)
set -euo pipefail
cd "$(dirname "$0")/../.."
reps=${REPS:-7}
model=${MODEL:-${QKOV_SHARED_DIR:-../shared}/real_models/gpt2-small-attention}
file="$model/gpt2_small_attention_only.safetensors"
qkov=${QKOV:-build/default/apps/qkov/qkov}
if [[ ! -f "$file" ]]; then
  echo "bench: $file is missing (set MODEL or QKOV_SHARED_DIR)" >&2
  exit 1
fi
if [[ ! -x "$qkov" ]]; then
  echo "bench: $qkov is missing: cmake --build build/default --target qkov_cli (or set QKOV)" >&2
  exit 1
fi
if ! /usr/bin/python3 -c "import numpy" 2>/dev/null; then
  echo "bench: python3-numpy is missing (scripts/install-deps.sh installs it)" >&2
  exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Built by CMake with qkov's flags (bench/models/CMakeLists.txt).
bash bench/build.sh bench_qkov_extract
extract=${BENCH_BUILD_DIR:-build/bench}/bench/models/qkov_extract
. bench/timing.sh  # median
# run NAME COMMAND...: appends "NAME wall_s peak_kib [stdout of the program]" to $tmp/all
run() {
  local name=$1
  shift
  local start end out
  start=$(date +%s.%N)
  out=$(/usr/bin/time -f %M -o "$tmp/rss" "$@")
  end=$(date +%s.%N)
  echo "$name $(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.4f", b - a}') $(tail -1 "$tmp/rss") $out" >> "$tmp/all"
}
for ((r = 0; r < reps; ++r)); do
  echo "rep $((r + 1))/$reps" >&2
  run inspect sh -c 'exec "$0" inspect "$1" > /dev/null' "$qkov" "$model"  # exec: time sees qkov itself
  run extract "$extract" "$model"
  run numpy /usr/bin/python3 bench/models/numpy_extract.py "$file"
done
sq=$(awk '$1=="extract" {print $5; exit}' "$tmp/all")
sn=$(awk '$1=="numpy" {print $5; exit}' "$tmp/all")
awk -v a="$sq" -v b="$sn" 'BEGIN { d = a - b; if (d < 0) d = -d; if (d > 1e-9 * b) { print "bench: checksums differ: qkov " a " numpy " b > "/dev/stderr"; exit 1 } }'
bytes=$(stat -c %s "$file")
echo "load: $(uptime)"
echo "file: $file, $bytes bytes ($(awk -v b="$bytes" 'BEGIN {printf "%.1f", b / 1048576}') MiB); one layer of heads as float64: 18.0 MiB; REPS=$reps"
printf '| program | wall, whole process (s) | from opening to the last head (s) | peak RSS (MiB) | numpy / program (wall) | numpy / program (opening to last head) |\n'
printf '| --- | --- | --- | --- | --- | --- |\n'
nw=$(awk '$1=="numpy" {print $2}' "$tmp/all" | median)
ni=$(awk '$1=="numpy" {print $4}' "$tmp/all" | median)
for name in inspect extract numpy; do
  w=$(awk -v n=$name '$1==n {print $2}' "$tmp/all" | median)
  m=$(awk -v n=$name '$1==n {print $3}' "$tmp/all" | median)
  i=$(awk -v n=$name '$1==n && NF >= 4 {print $4}' "$tmp/all" | median)
  label=$name
  [[ $name == inspect ]] && label="qkov inspect" && i="-"
  [[ $name == extract ]] && label="qkov_extract (C++)"
  [[ $name == numpy ]] && label="numpy_extract.py"
  ri="-"
  [[ $i != "-" ]] && ri=$(awk -v a="$ni" -v b="$i" 'BEGIN {printf "%.2f", a / b}')
  printf '| %s | %s | %s | %.1f | %s | %s |\n' "$label" "$w" "$i" "$(awk -v k="$m" 'BEGIN {print k / 1024}')" "$(awk -v a="$nw" -v b="$w" 'BEGIN {printf "%.2f", a / b}')" "$ri"
done
echo "checksum (sum of squares of every head matrix and bias): qkov $sq, numpy $sn"
