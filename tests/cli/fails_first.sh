#!/bin/sh
# Usage: fails_first.sh MUST_NOT_EXIST PROGRAM ARGS...
# Passes only if PROGRAM fails and leaves MUST_NOT_EXIST (an output it was asked for) unwritten:
# a run whose outputs cannot all be written must fail before it writes any of them.
absent=$1
shift
log=$("$@" 2>&1)
status=$?
echo "$log" | tail -n 5
[ "$status" -ne 0 ] || { echo "expected a failure, the command exited 0"; exit 1; }
[ ! -e "$absent" ] || { echo "$absent was written before the failure"; exit 1; }
echo "failed first, nothing written"
