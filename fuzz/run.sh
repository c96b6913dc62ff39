#!/bin/sh
# Builds the libFuzzer harnesses with clang++ (AddressSanitizer + UBSan) and runs each for a
# bounded time on a seed corpus made from the shared fixtures (when present) and small
# hand-written inputs. Usage: fuzz/run.sh [SECONDS per harness, default 20] [BUILD_DIR]
set -eu
seconds=${1:-20}
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=${2:-$root/build/fuzz}
shared=${QKOV_SHARED_DIR:-$root/../shared}
mkdir -p "$out"
includes=$(pkg-config --cflags xtensor 2>/dev/null || true)
for harness in safetensors gguf config; do
  clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -I"$root/include" $includes \
          "$here/${harness}_fuzz.cpp" -o "$out/${harness}_fuzz"
done
# Seed corpora: real files where available, plus minimal valid and invalid inputs.
for harness in safetensors gguf config; do mkdir -p "$out/corpus/$harness"; done
printf '\010\000\000\000\000\000\000\000{}      ' > "$out/corpus/safetensors/empty"
printf 'GGUF\003\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' > "$out/corpus/gguf/empty"
printf '{"model_type":"llama","hidden_size":8,"num_hidden_layers":1,"num_attention_heads":2,"vocab_size":4}' > "$out/corpus/config/llama"
if [ -d "$shared/fixtures/models" ]; then
  for m in gpt2 gpt_neox llama; do cp "$shared/fixtures/models/$m/config.json" "$out/corpus/config/$m.json"; done
  cp "$shared/fixtures/models/gpt2/model.safetensors" "$out/corpus/safetensors/gpt2"
fi
[ -f "$shared/real_models/llama2c-stories260K/stories260K.gguf" ] && cp "$shared/real_models/llama2c-stories260K/stories260K.gguf" "$out/corpus/gguf/stories260K"
for harness in safetensors gguf config; do
  echo "== $harness: ${seconds}s"
  "$out/${harness}_fuzz" -max_total_time="$seconds" -max_len=2000000 -rss_limit_mb=2048 -print_final_stats=1 "$out/corpus/$harness" 2>&1 | tail -5
done
