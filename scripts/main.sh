#!/usr/bin/env bash
# The main job: build the proofs (building proves every proof in proofs/), the examples and the
# tool, and write report/ with
# `qkov report`: the claims summary with every check of every kind and its status in this run
# (claims.md), the numbers the certified proofs established (certified.md), the seed experiments
# at full size (index.md, figures, JSON), the high-precision validation (validation.md, .json)
# and an index linking them (README.md); the scan and detection of the seed-head model always, and
# those of the real models when their weights are found (QKOV_SHARED_DIR, else ../shared; listed
# as skipped otherwise, docs/commands/report.md). Between the two, clang 16 judges every proof,
# false twin and compile-fail case again (`ctest --preset clang`): the second constant evaluator.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

bash scripts/reset-other-generator.sh build/default
cmake --preset default
start=$(date +%s)
# Only what this job runs and proves (the target qkov_main_job): the proofs, the examples and the
# tool. scripts/test.sh builds the rest in the same tree, reusing all of this.
cmake --build --preset default --target qkov_main_job
echo "main: build (all proofs, examples, tool) finished in $(( $(date +%s) - start )) s"

start=$(date +%s)
ctest --preset clang -j "$(($(nproc) + 1))"
echo "main: the second constant evaluator (clang) agreed on every proof and twin in $(( $(date +%s) - start )) s"

build/default/apps/qkov/qkov report --out report --build-dir build/default
