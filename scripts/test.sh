#!/usr/bin/env bash
# The whole test suite: proofs, false twins and compile-fail cases (judged by g++; the main job has
# clang judge them again), Boost.Test suites, the examples, the command-line tool, the
# find_package consumer; the Boost.Test suites of run-time memory again under AddressSanitizer +
# UBSan, and the fuzz smoke run.
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
stage "tests (compile checks, Boost.Test, examples, tool, package)"

cmake --preset asan
cmake --build --preset asan -j "$jobs"
stage "sanitizer build"
ctest --preset asan -j "$jobs"
stage "sanitizer tests"

# Every reader of untrusted bytes under libFuzzer (ASan + UBSan): each harness for a bounded time.
sh fuzz/run.sh 20 build/fuzz
stage "fuzzing"
