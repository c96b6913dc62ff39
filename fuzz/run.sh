#!/bin/sh
# Builds the libFuzzer harnesses with clang (AddressSanitizer + UBSan), writes the seed corpora
# (fuzz/make_corpus.sh) and runs each harness for a bounded time (two at once), printing its
# execution count.
# A crash, a sanitizer report or a leak stops the run with a nonzero status and leaves the input
# that caused it in the build directory (crash-*, leak-*).
# Usage: fuzz/run.sh [SECONDS per harness, default 60] [BUILD_DIR, default build/fuzz]
# Environment: CLANGXX (default clang++-16, else clang++), QKOV_SHARED_DIR, QKOV_CLI (a built qkov:
# make_corpus.sh scans a fixture with it for the scan documents' seeds).
set -eu
seconds=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${2:-$root/build/fuzz}
if [ -z "${CLANGXX:-}" ]; then
  if command -v clang++-16 > /dev/null; then CLANGXX=clang++-16; else CLANGXX=clang++; fi
fi
harnesses="npy safetensors gguf config llama2c tokenizer token_ids scan_document"
mkdir -p "$out"
includes=$(pkg-config --cflags xtensor 2>/dev/null || true)
# Runs "$1 HARNESS" for every harness, two at a time (one per core of a 2-core machine); returns
# nonzero once a pair has finished if either failed.
two_at_a_time() {
  step=$1
  set -- $harnesses
  while [ $# -gt 0 ]; do
    first=$1
    shift
    "$step" "$first" & pid=$!
    status=0
    if [ $# -gt 0 ]; then "$step" "$1" || status=1; shift; fi
    wait "$pid" || status=1
    [ "$status" = 0 ] || return 1
  done
}

build_one() {
  "$CLANGXX" -std=c++20 -O1 -g1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
             -I"$root/include" $includes "$here/$1_fuzz.cpp" -o "$out/$1_fuzz"
}
two_at_a_time build_one || { echo "fuzz: a harness did not compile"; exit 1; }

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
echo "== fuzzing each harness for ${seconds}s, two at a time"
two_at_a_time fuzz_one
