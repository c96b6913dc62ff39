#!/usr/bin/env bash
# Usage: scripts/reset-other-generator.sh BUILD_DIR...
# The presets configure with Ninja. CMake refuses to configure a tree again with another generator
# than the one that made it (trees made before the presets chose Ninja used Unix Makefiles), so the
# cache of such a tree is removed and the next configuration starts it afresh.
set -euo pipefail
for dir in "$@"; do
  cache=$dir/CMakeCache.txt
  [[ -f $cache ]] || continue
  generator=$(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' "$cache")
  if [[ -n $generator && $generator != Ninja ]]; then
    echo "reset-other-generator: $dir was configured for $generator; configuring it afresh for Ninja"
    rm -rf "$cache" "$dir/CMakeFiles"
  fi
done
