# Shell functions the benchmarks' run.sh scripts source (`. bench/timing.sh` from the repository's root).

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
