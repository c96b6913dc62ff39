#!/usr/bin/env bash
# The whole test suite: proofs, false twins and compile-fail cases, Boost.Test suites, the
# find_package consumer, each compile check with clang as well, the Boost.Test suites, the command
# line's tests and the examples again under AddressSanitizer + UBSan, and the fuzz smoke run.
# Each stage prints how long it took, so a slow stage is visible in CI logs.
set -euo pipefail
cd "$(dirname "$0")/.."

stage_start=$SECONDS
stage() {
  echo "== test.sh: $1 took $((SECONDS - stage_start)) s (total $SECONDS s)"
  stage_start=$SECONDS
}

bash scripts/install-deps.sh
stage "dependencies"

# One job more than there are cores: the spare job fills the gaps while another links or waits.
jobs=$(($(nproc) + 1))

cmake --preset default
cmake --build --preset default -j "$jobs"
stage "default build (compiles every proof with g++)"
ctest --preset default -j "$jobs"
stage "tests (g++ and clang compile checks, Boost.Test, examples, tool, package)"

cmake --preset asan
cmake --build --preset asan -j "$jobs"
stage "sanitizer build"
ctest --preset asan -j "$jobs"
stage "sanitizer tests"

# Every reader of untrusted bytes under libFuzzer (ASan + UBSan): each harness for a bounded time.
sh fuzz/run.sh 30 build/fuzz
stage "fuzzing"
