#!/bin/sh
# Usage: write_failure.sh OUTPUT_FILE PROGRAM ARGS...
# Runs PROGRAM with files limited to 512 bytes (ulimit -f 1, SIGXFSZ ignored so a write past the
# limit fails with EFBIG, as on a full disk) and passes only if the program fails naming
# OUTPUT_FILE, does not claim to have written it, and leaves nothing behind in OUTPUT_FILE's
# directory: not it, no temporary, and no other output of the run (written together, all or none).
# QKOV_FILE_BLOCKS sets another limit in 512-byte blocks (a smaller output of the run then fits).
output=$1
shift
directory=$(dirname "$output")
rm -rf "$directory" && mkdir -p "$directory" || exit 1
log=$( (trap '' XFSZ; ulimit -f "${QKOV_FILE_BLOCKS:-1}"; exec "$@") 2>&1 )
status=$?
fail() { echo "$1"; echo "--- output:"; echo "$log" | tail -n 20; exit 1; }
[ "$status" -ne 0 ] || fail "expected a failure, the command exited 0"
echo "$log" | grep -q "cannot write $output" || fail "no 'cannot write $output' message"
echo "$log" | grep -q "^wrote $output" && fail "it printed 'wrote $output'"
[ -z "$(ls -A "$directory")" ] || fail "files were left in $directory: $(ls -A "$directory")"
echo "refused: $(echo "$log" | grep "cannot write")"
