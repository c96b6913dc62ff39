#!/usr/bin/env bash
# The compile checks' precompiled standard headers (tests/compile_check_prelude.hpp), paired: every
# compile-fail case and the false twins of R2 and T4, in both dialects, compiled with -fsyntax-only
# without and then with the precompiled header, alternating file by file, for g++ and clang; prints
# the summed wall seconds of each. Needs a built tree (the headers come from the build).
# Usage: bench/compile_time/compile_check_prelude.sh [BUILD_DIR, default build/default]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build/default}
sources=()
for f in tests/compile_fail/*.cpp proofs/false/R2*.cpp proofs/false/T4*.cpp; do
  grep -q "^// compile-flags" "$f" || sources+=("$f")  # those parse the headers themselves
done
seconds() { local start=$EPOCHREALTIME; "$@" > /dev/null 2>&1 || true; echo "$EPOCHREALTIME - $start" | bc; }
for kind in gcc clang; do
  if [[ $kind == gcc ]]; then compiler=g++; limit=-fconstexpr-ops-limit=536870912; else compiler=clang++-16; limit=-fconstexpr-steps=100000000; fi
  without=0 with=0
  for f in "${sources[@]}"; do
    for dialect in c++20 gnu++20; do
      dir=$build/compile-check-prelude/$kind/$dialect
      if [[ $kind == gcc ]]; then use=(-include "$dir/compile_check_prelude.hpp" -Werror=invalid-pch); else use=(-include-pch "$dir/compile_check_prelude.pch"); fi
      flags=(-std=$dialect -Wall -Wextra -Iinclude -Iproofs "$limit" -fsyntax-only "$f")
      without=$(echo "$without + $(seconds "$compiler" "${flags[@]}")" | bc)
      with=$(echo "$with + $(seconds "$compiler" "${use[@]}" "${flags[@]}")" | bc)
    done
  done
  echo "$kind: ${#sources[@]} sources x 2 dialects: without the precompiled headers ${without} s, with ${with} s"
done
