#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang (AddressSanitizer + UBSan), writes the seed corpora
# (fuzz/make_corpus.sh) and runs each harness for a bounded time (one per core), printing its
# execution count.
# A crash, a sanitizer report or a leak stops the run with a nonzero status and leaves the input
# that caused it in the build directory (crash-*, leak-*).
# Usage: fuzz/run.sh [SECONDS per harness, default 60] [BUILD_DIR, default build/fuzz]
# Environment: CLANGXX (default clang++-16, else clang++), QKOV_SHARED_DIR, QKOV_CLI (a built qkov:
# make_corpus.sh scans a fixture with it for the scan documents' seeds).
set -euo pipefail
seconds=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${2:-$root/build/fuzz}
if [ -z "${CLANGXX:-}" ]; then
  if command -v clang++-16 > /dev/null; then CLANGXX=clang++-16; else CLANGXX=clang++; fi
fi
# Longest compile first (clang 16, quiet machine, CPU seconds: scan_document 35, config 15,
# safetensors 13, gguf 12, llama2c 8, the others 2 to 3), so the short ones fill the other core.
harnesses="scan_document config safetensors gguf llama2c npy tokenizer token_ids"
mkdir -p "$out"
includes=$(pkg-config --cflags xtensor 2>/dev/null || true)
# Runs "$1 HARNESS" for every harness, as many at once as there are cores: a harness starts as
# soon as one ends. After a failure no further harness starts; returns nonzero once those running
# have ended.
jobs=$(nproc)
in_parallel() {
  local step=$1 harness running=0 failed=0
  for harness in $harnesses; do
    if ((running == jobs)); then
      wait -n || failed=1
      running=$((running - 1))
    fi
    ((failed == 0)) || break
    "$step" "$harness" &
    running=$((running + 1))
  done
  while ((running > 0)); do
    wait -n || failed=1
    running=$((running - 1))
  done
  return "$failed"
}

build_one() {
  "$CLANGXX" -std=c++20 -O1 -g1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
             -I"$root/include" $includes "$here/$1_fuzz.cpp" -o "$out/$1_fuzz"
}
in_parallel build_one || { echo "fuzz: a harness did not compile"; exit 1; }

rm -rf "$out/corpus"
sh "$here/make_corpus.sh" "$out/corpus"
cd "$out"

# Each harness gets its SECONDS of wall time; its statistics are printed when it ends.
fuzz_one() {
  if ! "./$1_fuzz" -max_total_time="$seconds" -max_len=2000000 -rss_limit_mb=2048 -print_final_stats=1 \
                   "corpus/$1" > "$1.log" 2>&1; then
    echo "fuzz: $1 failed (input saved as crash-*/leak-*/timeout-* in $out):"
    tail -40 "$1.log"
    return 1
  fi
  echo "$1: $(grep -E "stat::number_of_executed_units|stat::peak_rss_mb|stat::new_units_added" "$1.log" | tr -s ' \n' ' ')"
}
echo "== fuzzing each harness for ${seconds}s, $jobs at a time"
in_parallel fuzz_one
