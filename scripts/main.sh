#!/usr/bin/env bash
# The main job: build everything (building proves every proof in proofs/) and report which
# claims are proved (report/claims.md) and the numbers the certified proofs established
# (report/certified.md).
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

# The numbers the certified proofs established (the constants their static_asserts checked).
build/default/proofs/print_certified_values report/certified.md
echo "main: wrote report/certified.md"

# The seed experiments at full size: report/index.md, figures and JSON.
build/default/apps/qkov/qkov reproduce --out report

# High-precision validation (50 and 100 digits): report/validation.md and .json.
build/default/apps/qkov/qkov validate --markdown report/validation.md --json report/validation.json
