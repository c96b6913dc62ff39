#!/usr/bin/env bash
# The whole test suite: proofs, false twins and compile-fail cases, Boost.Test suites, the
# find_package consumer, and the Boost.Test suites again under AddressSanitizer + UBSan.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

cmake --preset default
cmake --build --preset default
ctest --preset default

cmake --preset asan
cmake --build --preset asan
ctest --preset asan

# The model readers under libFuzzer (ASan + UBSan), a bounded smoke run of each harness.
if command -v clang++ > /dev/null; then
  sh fuzz/run.sh 10 build/fuzz
else
  echo "fuzz: clang++ not found, the libFuzzer smoke run is skipped"
fi
