#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang, AddressSanitizer + UBSan (fuzz/build.sh: only those
# out of date), writes the seed corpora (fuzz/make_corpus.sh) and runs each harness for a bounded
# time (one per core), printing its execution count.
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
# shellcheck source=fuzz/harnesses.sh
. "$here/harnesses.sh"
bash "$here/build.sh" "$out"

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
echo "== fuzzing each harness for ${seconds}s, $(nproc) at a time"
in_parallel fuzz_one
