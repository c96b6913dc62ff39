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
