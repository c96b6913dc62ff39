# Shell functions the benchmarks' run.sh scripts source (`. bench/timing.sh` from the repository's root):
# timing, and the checks and scratch directory they share.

# median: the median of the numbers on stdin, one per line (the lower middle of an even count;
# "nan" for none).
median() { sort -g | awk '{v[NR]=$1} END {if (NR) print v[int((NR+1)/2)]; else print "nan"}'; }

# timed_run LOG ERR NAME COMMAND...: runs COMMAND under /usr/bin/time and appends
# "NAME wall_s peak_kib cpu_s [COMMAND's stdout]" to LOG; cpu_s is user + system time, wall_s
# includes starting the process. COMMAND's stderr goes to ERR, whose tail is shown (and the
# script exits) if COMMAND fails.
timed_run() {
  local log=$1 err=$2 name=$3
  shift 3
  local start end out
  start=$(date +%s.%N)
  out=$(/usr/bin/time -f "%M %U %S" -o "$log.time" "$@" 2> "$err") || {
    echo "bench: $name failed:" >&2
    tail -5 "$err" >&2
    exit 1
  }
  end=$(date +%s.%N)
  echo "$name $(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.4f", b - a}') $(tail -1 "$log.time" | awk '{printf "%s %.2f", $1, $2 + $3}') $out" >> "$log"
}

# require_numpy PYTHON: exits unless PYTHON imports numpy.
require_numpy() {
  if ! "$1" -c "import numpy" 2>/dev/null; then
    echo "bench: python3-numpy is missing (scripts/install-deps.sh installs it)" >&2
    exit 1
  fi
}

# require_qkov QKOV: exits unless the qkov CLI is built there.
require_qkov() {
  if [[ ! -x "$1" ]]; then
    echo "bench: $1 is missing: cmake --build build/default --target qkov_cli (or set QKOV)" >&2
    exit 1
  fi
}

# scratch_directory MIB WHAT: sets tmp to a new temporary directory, removed at exit, and exits
# unless its file system has MIB MiB free for WHAT; free_kib is what it has.
scratch_directory() {
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  free_kib=$(df --output=avail -k "$tmp" | tail -1)
  if ((free_kib < $1 * 1024)); then
    echo "bench: $tmp has $((free_kib / 1024)) MiB free, $2 needs about $1 MiB (set TMPDIR elsewhere)" >&2
    exit 1
  fi
}

# bench_programs: sets qkov (QKOV, default build/default/apps/qkov/qkov) and python (Debian's
# python3, which has numpy), and exits unless both are there.
bench_programs() {
  qkov=${QKOV:-build/default/apps/qkov/qkov}
  python=/usr/bin/python3
  require_qkov "$qkov"
  require_numpy "$python"
}
