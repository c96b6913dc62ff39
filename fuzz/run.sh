#!/bin/sh
# Builds the libFuzzer harnesses with clang (AddressSanitizer + UBSan), writes the seed corpora
# (fuzz/make_corpus.sh) and runs each harness for a bounded time, printing its execution count.
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
for harness in $harnesses; do
  "$CLANGXX" -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -I"$root/include" $includes \
             "$here/${harness}_fuzz.cpp" -o "$out/${harness}_fuzz"
done
rm -rf "$out/corpus"
sh "$here/make_corpus.sh" "$out/corpus"
cd "$out"
for harness in $harnesses; do
  echo "== $harness: ${seconds}s"
  "./${harness}_fuzz" -max_total_time="$seconds" -max_len=2000000 -rss_limit_mb=2048 -print_final_stats=1 \
                      "corpus/$harness" > "$harness.log" 2>&1 || { tail -40 "$harness.log"; exit 1; }
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb|stat::new_units_added" "$harness.log"
done
