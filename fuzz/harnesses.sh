# shellcheck shell=bash
# Sourced by fuzz/build.sh and fuzz/run.sh: the harnesses (fuzz/NAME_fuzz.cpp), longest compile
# first (clang 16, quiet machine, CPU seconds: scan_document 35, config 15, safetensors 13, gguf 12,
# llama2c 8, the others 2 to 3), so that the short ones fill the other cores.
harnesses="scan_document config safetensors gguf llama2c npy tokenizer token_ids"

# in_parallel STEP runs "STEP HARNESS" for every harness, as many at once as there are cores (a
# harness starts as soon as one ends). After a failure no further harness starts; returns nonzero
# once those running have ended.
in_parallel() {
  local step=$1 harness running=0 failed=0 jobs
  jobs=$(nproc)
  for harness in $harnesses; do
    if ((running == jobs)); then
      wait -n || failed=1
      running=$((running - 1))
    fi
    ((failed == 0)) || break
    "$step" "$harness" &
    running=$((running + 1))
  done
  while ((running > 0)); do
    wait -n || failed=1
    running=$((running - 1))
  done
  return "$failed"
}
