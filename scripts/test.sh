#!/usr/bin/env bash
# The whole test suite: proofs, false twins and compile-fail cases judged by g++ and again by
# clang (the second constant evaluator: the two verdicts must agree), Boost.Test suites, the
# examples, the command-line tool, the Python module, the find_package consumer; every Boost.Test
# suite once: those of run-time memory (readers, forward pass, scan, detection, figures) under
# AddressSanitizer + UBSan, the others in the release build; and the fuzz smoke run.
# Each stage prints how long it took, so a slow stage is visible in CI logs.
#
# A test that cannot run here (model files of ../shared absent, python3-jsonschema or the Python
# module missing) is reported by CTest as skipped, never passed, and listed with its reason at the
# end. With QKOV_REQUIRE_ALL_TESTS=1 (CI sets it) a skipped test, or an absent shared directory,
# fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."

stage_start=$SECONDS
stage() {
  echo "== test.sh: $1 took $((SECONDS - stage_start)) s (total $SECONDS s)"
  stage_start=$SECONDS
}

# Fail at once, not after the build, when the run must use the model files and they are absent.
shared=${QKOV_SHARED_DIR:-../shared}
if [[ ${QKOV_REQUIRE_ALL_TESTS:-0} == 1 && ! -d $shared ]]; then
  echo "test.sh: QKOV_REQUIRE_ALL_TESTS=1 but the shared directory $shared is absent: the tests on model files cannot run" >&2
  exit 1
fi

bash scripts/install-deps.sh
stage "dependencies"

# One job more than there are cores: the spare job fills the gaps while another links or waits.
jobs=$(($(nproc) + 1))
# Each ctest run writes a JUnit file; tests/report_skipped.py reads the skipped tests from them.
results=$PWD/build/test-results
rm -rf "$results"
mkdir -p "$results"

# The release build leaves out the suites the sanitizer build runs (QKOV_TEST_SUITES=unsanitized):
# each suite is compiled and run once. `cmake --preset default` alone builds them all.
bash scripts/reset-other-generator.sh build/default build/asan
cmake --preset default -DQKOV_TEST_SUITES=unsanitized
cmake --build --preset default -j "$jobs"
stage "default build (compiles every proof with g++)"
ctest --preset default -j "$jobs" --output-junit "$results/default.xml"
stage "tests (compile checks, Boost.Test suites of the mathematics, examples, tool, Python module, package)"
ctest --preset clang -j "$jobs" --output-junit "$results/clang.xml"
stage "clang verdicts (every proof, false twin and compile-fail case again)"

cmake --preset asan
cmake --build --preset asan -j "$jobs"
stage "sanitizer build"
ctest --preset asan -j "$jobs" --output-junit "$results/asan.xml"
stage "sanitizer tests (the Boost.Test suites of run-time memory)"

# Every reader of untrusted bytes under libFuzzer (ASan + UBSan): each harness for a bounded time.
QKOV_CLI=$PWD/build/default/apps/qkov/qkov bash fuzz/run.sh 20 build/fuzz
stage "fuzzing"

python3 tests/report_skipped.py "$results/default.xml" "$results/clang.xml" "$results/asan.xml"
