#!/usr/bin/env bash
# The main job: build everything (building proves every proof in proofs/) and report which
# claims are proved, in the terminal and in report/claims.md.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh

cmake --preset default
start=$(date +%s)
cmake --build --preset default
echo "main: build (all proofs) finished in $(( $(date +%s) - start )) s"

mkdir -p report
build/default/apps/qkov/qkov claims --proofs proofs --catalogue docs/CLAIMS.md --build-dir build/default \
  --markdown report/claims.md
echo "main: wrote report/claims.md"
build/default/apps/qkov/qkov validate --markdown report/validation.md --json report/validation.json
