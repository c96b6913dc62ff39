#!/bin/sh
# Usage: write_llama2c.sh FILE FLOATS DIM HIDDEN_DIM LAYERS HEADS KV_HEADS VOCAB SEQ_LEN
# Writes a llama2.c checkpoint: the seven header values as little-endian int32, then FLOATS float32
# zeros. For the CLI tests' hostile and tiny models, written by the tests themselves.
file=$1
floats=$2
shift 2
: > "$file" || exit 1
for v in "$@"; do
  v=$((v & 0xFFFFFFFF))
  for shift_by in 0 8 16 24; do
    printf "\\$(printf %03o $(((v >> shift_by) & 255)))" >> "$file"
  done
done
head -c $((4 * floats)) /dev/zero >> "$file"
