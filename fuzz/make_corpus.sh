#!/bin/sh
# Writes the seed corpora of the libFuzzer harnesses into DIR/<harness>/: small valid files of
# every format and variant the readers accept (made here, with numpy for .npy), the shared
# fixtures and real models when present, and a few minimal invalid inputs.
# Usage: fuzz/make_corpus.sh DIR
set -eu
out=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
shared=${QKOV_SHARED_DIR:-$root/../shared}
# Debian's interpreter, which has python3-numpy (scripts/install-deps.sh); a python3 earlier in
# PATH (pyenv, a venv) may lack numpy.
python=/usr/bin/python3
for harness in safetensors gguf config npy llama2c tokenizer; do mkdir -p "$out/$harness"; done

# safetensors: an empty header, and one tensor of each supported dtype.
printf '\010\000\000\000\000\000\000\000{}      ' > "$out/safetensors/empty"
"$python" - "$out/safetensors" <<'PY'
import json, struct, sys
for dtype, size in (("F64", 8), ("F32", 4), ("F16", 2), ("BF16", 2)):
    header = json.dumps({"w": {"dtype": dtype, "shape": [2, 3], "data_offsets": [0, 6 * size]},
                         "__metadata__": {"format": "pt"}}).encode()
    header += b" " * (-len(header) % 8)
    with open(f"{sys.argv[1]}/{dtype.lower()}", "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header + bytes(range(1, 6 * size + 1)))
PY

# GGUF: a header with no tensors and no metadata.
printf 'GGUF\003\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000\000' > "$out/gguf/empty"

# config.json: a minimal Llama, and the fixtures' GPT-2, GPT-NeoX and Llama configs.
printf '{"model_type":"llama","hidden_size":8,"num_hidden_layers":1,"num_attention_heads":2,"vocab_size":4}' > "$out/config/llama"

# .npy: every dtype the reader takes, both orders, a 0-d array and format versions 1.0 and 2.0.
"$python" - "$out/npy" <<'PY'
import sys, numpy as np
d = sys.argv[1]
a = np.arange(6, dtype=np.float64).reshape(2, 3) / 7
for t in ("<f2", "<f4", "<f8", "<u2"):
    np.save(f"{d}/c_{t[1:]}.npy", a.astype(t))
np.save(f"{d}/fortran.npy", np.asfortranarray(a))
np.save(f"{d}/scalar.npy", np.float32(1.5))
with open(f"{d}/v2.npy", "wb") as f:
    np.lib.format.write_array(f, a, version=(2, 0))
PY

# llama2.c: the smallest checkpoint (dim 2, one head, vocabulary 1, seq_len 1), shared and
# unshared classifier; a tokenizer of three pieces, preceded by the two bytes of the vocabulary size.
"$python" - "$out" <<'PY'
import struct, sys
d = sys.argv[1]
# embedding 2, rms_att 2, wq 4, wk 4, wv 4, wo 4, rms_ffn 2, w1 + w2 + w3 6, rms_final 2, freq_cis 2
floats = 2 + 2 + 4 + 4 + 4 + 4 + 2 + 6 + 2 + 2
for name, vocab, extra in (("shared", 1, 0), ("unshared", -1, 2)):
    with open(f"{d}/llama2c/{name}", "wb") as f:
        f.write(struct.pack("<7i", 2, 1, 1, 1, 1, vocab, 1) + struct.pack(f"<{floats + extra}f", *[0.5] * (floats + extra)))
with open(f"{d}/tokenizer/three", "wb") as f:
    f.write(bytes([3, 0]) + struct.pack("<i", 6))
    for piece in (b"<s>", b" Once", b"<0x41>"):
        f.write(struct.pack("<fi", 0.0, len(piece)) + piece)
PY

if [ -d "$shared/fixtures/models" ]; then
  for m in gpt2 gpt_neox llama; do cp "$shared/fixtures/models/$m/config.json" "$out/config/$m.json"; done
  cp "$shared/fixtures/models/gpt2/model.safetensors" "$out/safetensors/gpt2"
fi
if [ -f "$shared/real_models/llama2c-stories260K/stories260K.bin" ]; then
  cp "$shared/real_models/llama2c-stories260K/stories260K.bin" "$out/llama2c/stories260K"
  { printf '\000\002'; cat "$shared/real_models/llama2c-stories260K/tok512.bin"; } > "$out/tokenizer/tok512"
fi
if [ -f "$shared/real_models/llama2c-stories260K/stories260K.gguf" ]; then
  cp "$shared/real_models/llama2c-stories260K/stories260K.gguf" "$out/gguf/stories260K"
fi
