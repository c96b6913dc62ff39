#!/usr/bin/env bash
# The whole test suite: proofs, false twins and compile-fail cases, Boost.Test suites, the
# find_package consumer, each compile check with clang as well, the Boost.Test suites, the command
# line's tests and the examples again under AddressSanitizer + UBSan, and the fuzz smoke run.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

cmake --preset default
cmake --build --preset default
ctest --preset default

cmake --preset asan
cmake --build --preset asan
ctest --preset asan

# Every reader of untrusted bytes under libFuzzer (ASan + UBSan): each harness for a bounded time.
sh fuzz/run.sh 60 build/fuzz
