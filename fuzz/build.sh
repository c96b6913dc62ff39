#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang (AddressSanitizer + UBSan) into BUILD_DIR, one per core.
# A harness is rebuilt only when its compile command or the compiler changed, or a file it includes
# is newer than it or gone (clang's dependency file), so that fuzz/run.sh, which calls this first,
# compiles nothing when run again on an unchanged tree.
# Usage: fuzz/build.sh [BUILD_DIR, default build/fuzz]
# Environment: CLANGXX (default clang++-16, else clang++).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${1:-$root/build/fuzz}
if [ -z "${CLANGXX:-}" ]; then
  if command -v clang++-16 > /dev/null; then CLANGXX=clang++-16; else CLANGXX=clang++; fi
fi
# shellcheck source=fuzz/harnesses.sh
. "$here/harnesses.sh"
mkdir -p "$out"
includes=$(pkg-config --cflags xtensor 2>/dev/null || true)

# The compiler that builds them, as resolved now: a changed clang (an upgrade under the same
# name) rebuilds every harness, as a changed command does.
compiler_identity="$(readlink -f "$(command -v "$CLANGXX")") $("$CLANGXX" --version | head -1)"

# True when BIN exists, was built by COMMAND, and every file of its dependency file (clang -MD:
# this tree's and the system's headers) exists and is older. A word of the file that is not a
# file (a path with an escaped space, say) counts as missing: it rebuilds, never skips.
up_to_date() {
  local bin=$1 command=$2 file
  [[ -x $bin && -f $bin.d && -f $bin.command && $(< "$bin.command") == "$command" ]] || return 1
  # "target: dep dep \" lines: every word after the first colon is a file.
  # shellcheck disable=SC2013
  for file in $(sed -e '1s/^[^:]*://' -e 's/\\$//' "$bin.d"); do
    [[ -e $file && ! $file -nt $bin ]] || return 1
  done
  return 0
}

build_one() {
  local bin=$out/$1_fuzz
  # shellcheck disable=SC2206,SC2054 # the include flags are words; the sanitizers one argument
  local command=("$CLANGXX" -std=c++20 -O1 -g1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
                 "-I$root/include" $includes "$here/$1_fuzz.cpp")
  local stamp="$compiler_identity: ${command[*]}"
  if up_to_date "$bin" "$stamp"; then
    echo "fuzz: $1_fuzz is up to date"
    return 0
  fi
  # The stamp only after a successful compile, and no binary of an older build left behind: a
  # failed compile fails here (set -e does not hold in a function called left of ||).
  rm -f "$bin" "$bin.command"
  "${command[@]}" -MD -MF "$bin.d" -o "$bin" || return 1
  echo "$stamp" > "$bin.command"
  echo "fuzz: built $1_fuzz"
}
in_parallel build_one || { echo "fuzz: a harness did not compile" >&2; exit 1; }
