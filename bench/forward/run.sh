#!/usr/bin/env bash
# The forward pass of a GPT-2-small-shaped model (12 layers of 12 heads, D = 768, MLP 3,072,
# V = 50,257, random N(0, 0.02^2) weights written by make_model.py into a temporary directory,
# about 500 MB, removed at exit) on N tokens (default 1,024; token i = (i * 7919) % V), float32:
#   qkov          qkov_forward.cpp: forward::decoder<float>::logits, no pattern visitor
#   qkov+detect   the same with forward::score_heads as the visitor (previous-token, duplicate-token
#                 and induction scores of all 144 heads, each pattern scored as it streams past)
#   numpy         numpy_forward.py: the same computation vectorised in numpy float32 (all heads of
#                 a layer in one batched matmul), on the same OpenBLAS
# For each thread count t in THREADS, all three run with OPENBLAS_NUM_THREADS=t, pinned by taskset
# to the first t cores (qkov's own row-block threads, one per core the system reports, then share
# those t cores: the same cores for both). REPS repetitions alternate the three. The table gives
# medians of the whole process's wall time and CPU time (user + system), the peak RSS
# (/usr/bin/time -f %M), each program's own time for the pass alone (from the first token's
# embedding to the logits, after reading the model), and ratio = numpy / qkov (> 1: qkov faster)
# for the wall time and the own time; "detection adds" is the median of qkov+detect's own time
# over qkov's, per thread count. Every rep's logits are checked: qkov_forward --checksum and
# numpy_forward.py --checksum write a checksum of the n x V logits (sums, weighted sum, 45 single
# logits) and numpy_forward.py --compare fails the script unless they agree to 1e-4 of their scale.
#   REPS=5 THREADS="1 2" bench/forward/run.sh     (N=1024; TMPDIR for the 500 MB model)
set -euo pipefail
cd "$(dirname "$0")/../.."
reps=${REPS:-5}
threads=${THREADS:-1 2}
n=${N:-1024}
python=/usr/bin/python3
. bench/timing.sh  # median, timed_run, require_numpy, scratch_directory
require_numpy "$python"
cores=$(nproc)
for t in $threads; do
  if ! [[ $t =~ ^[1-9][0-9]*$ ]] || ((t > cores)); then
    echo "bench: THREADS has '$t', each must be a thread count from 1 to the $cores cores here" >&2
    exit 1
  fi
done
scratch_directory 700 "the generated model"  # the 500 MB model and room to spare
# Built by CMake with qkov's flags (bench/forward/CMakeLists.txt).
bash bench/build.sh bench_qkov_forward
qkov=${BENCH_BUILD_DIR:-build/bench}/bench/forward/qkov_forward
echo "bench: writing the GPT-2-small-shaped model into $tmp/model" >&2
"$python" bench/forward/make_model.py "$tmp/model" 0
echo "load: $(uptime)"
echo "REPS=$reps, N=$n; numpy $("$python" -c 'import numpy; print(numpy.__version__)'); $(nproc) cores"
{
printf '| threads | program | wall (s) | CPU (s) | peak RSS (MiB) | own time, the pass (s) | numpy / qkov (wall) | numpy / qkov (own time) |\n'
printf '| --- | --- | --- | --- | --- | --- | --- | --- |\n'
} > "$tmp/table"
: > "$tmp/detection"
for t in $threads; do
  export OPENBLAS_NUM_THREADS=$t
  pin=(taskset -c "0-$((t - 1))")
  : > "$tmp/all"
  for ((r = 0; r < reps; ++r)); do
    echo "threads $t: rep $((r + 1))/$reps" >&2
    timed_run "$tmp/all" "$tmp/err" qkov "${pin[@]}" "$qkov" "$tmp/model" "$n" --checksum "$tmp/qkov.sum"
    timed_run "$tmp/all" "$tmp/err" qkov+detect "${pin[@]}" "$qkov" "$tmp/model" "$n" --detect --checksum "$tmp/detect.sum"
    timed_run "$tmp/all" "$tmp/err" numpy "${pin[@]}" "$python" bench/forward/numpy_forward.py --checksum "$tmp/numpy.sum" "$tmp/model" "$n"
    for side in qkov detect; do
      "$python" bench/forward/numpy_forward.py --compare "$tmp/$side.sum" "$tmp/numpy.sum" > "$tmp/agreement-$t-$side"
    done
  done
  nw=$(awk '$1=="numpy" {print $2}' "$tmp/all" | median)
  no=$(awk '$1=="numpy" {print $5}' "$tmp/all" | median)
  for name in qkov qkov+detect numpy; do
    w=$(awk -v k=$name '$1==k {print $2}' "$tmp/all" | median)
    m=$(awk -v k=$name '$1==k {print $3}' "$tmp/all" | median)
    c=$(awk -v k=$name '$1==k {print $4}' "$tmp/all" | median)
    o=$(awk -v k=$name '$1==k {print $5}' "$tmp/all" | median)
    ratio_w="-" ratio_o="-"
    if [[ $name != numpy ]]; then
      ratio_w=$(awk -v a="$nw" -v b="$w" 'BEGIN {printf "%.2f", a / b}')
      ratio_o=$(awk -v a="$no" -v b="$o" 'BEGIN {printf "%.2f", a / b}')
    fi
    printf '| %s | %s | %s | %s | %.1f | %s | %s | %s |\n' "$t" "$name" "$w" "$c" "$(awk -v k="$m" 'BEGIN {print k / 1024}')" "$o" "$ratio_w" "$ratio_o" >> "$tmp/table"
  done
  off=$(awk '$1=="qkov" {print $5}' "$tmp/all" | median)
  on=$(awk '$1=="qkov+detect" {print $5}' "$tmp/all" | median)
  awk -v t="$t" -v a="$off" -v b="$on" 'BEGIN {printf "threads %s: detection adds %.3f s to the pass (%.1f%%; medians %s s off, %s s on)\n", t, b - a, 100 * (b - a) / a, a, b}' >> "$tmp/detection"
  { echo "agreement with numpy, threads $t (the last rep's; every rep was checked):"; sed 's/^/  qkov: /' "$tmp/agreement-$t-qkov"; sed 's/^/  qkov+detect: /' "$tmp/agreement-$t-detect"; } >> "$tmp/detection"
done
cat "$tmp/table" "$tmp/detection"
