#!/bin/sh
# Builds the libFuzzer harnesses with clang (AddressSanitizer + UBSan), writes the seed corpora
# (fuzz/make_corpus.sh) and runs each harness for a bounded time (two at once), printing its
# execution count.
# A crash, a sanitizer report or a leak stops the run with a nonzero status and leaves the input
# that caused it in the build directory (crash-*, leak-*).
# Usage: fuzz/run.sh [SECONDS per harness, default 60] [BUILD_DIR, default build/fuzz]
# Environment: CLANGXX (default clang++-16, else clang++), QKOV_SHARED_DIR.
set -eu
seconds=${1:-60}
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${2:-$root/build/fuzz}
if [ -z "${CLANGXX:-}" ]; then
  if command -v clang++-16 > /dev/null; then CLANGXX=clang++-16; else CLANGXX=clang++; fi
fi
harnesses="npy safetensors gguf config"
mkdir -p "$out"
includes=$(pkg-config --cflags xtensor 2>/dev/null || true)
# Compiled two at a time; a failed compile stops the run.
build_one() {
  "$CLANGXX" -std=c++20 -O1 -g1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
             -I"$root/include" $includes "$here/$1_fuzz.cpp" -o "$out/$1_fuzz"
}
set -- $harnesses
while [ $# -gt 0 ]; do
  if [ $# -gt 1 ]; then
    build_one "$1" & first=$!
    build_one "$2" || exit 1
    wait "$first" || exit 1
    shift 2
  else
    build_one "$1"
    shift
  fi
done
rm -rf "$out/corpus"
sh "$here/make_corpus.sh" "$out/corpus"
cd "$out"
# Two harnesses at a time, one per core of a 2-core machine; each gets its SECONDS of wall time.
fuzz_one() {
  "./$1_fuzz" -max_total_time="$seconds" -max_len=2000000 -rss_limit_mb=2048 -print_final_stats=1 \
              "corpus/$1" > "$1.log" 2>&1
  echo $? > "$1.status"
}
set -- $harnesses
while [ $# -gt 0 ]; do
  batch="$1"
  shift
  if [ $# -gt 0 ]; then batch="$batch $1"; shift; fi
  echo "== $batch: ${seconds}s each"
  for harness in $batch; do fuzz_one "$harness" & done
  wait
  for harness in $batch; do
    if [ "$(cat "$harness.status")" != 0 ]; then
      echo "fuzz: $harness failed (input saved as crash-*/leak-*/timeout-* in $out):"
      tail -40 "$harness.log"
      exit 1
    fi
    printf '%s: ' "$harness"
    grep -E "stat::number_of_executed_units|stat::peak_rss_mb|stat::new_units_added" "$harness.log" | tr '\n' ' '
    echo
  done
done
