#!/bin/sh
# needs.sh PATH... -- COMMAND [ARG...]: runs COMMAND when every PATH exists. Otherwise it names the
# absent paths and exits 77, which the test's SKIP_RETURN_CODE makes CTest report as skipped: a
# test of model files the machine lacks is registered anyway and is neither run nor passed.
absent=""
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
  [ -e "$1" ] || absent="$absent $1"
  shift
done
if [ "$#" -eq 0 ]; then
  echo "needs.sh: no '--' before the command" >&2
  exit 2
fi
shift
if [ -n "$absent" ]; then
  echo "SKIPPED: absent:$absent (set QKOV_SHARED_DIR to the shared directory)"
  exit 77
fi
exec "$@"
