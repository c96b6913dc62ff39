#!/bin/sh
# Writes the seed corpora of the libFuzzer harnesses into DIR/<harness>/: small valid files of
# every format and variant the readers accept (made here, with numpy for .npy), the shared
# fixtures and real models when present, and a few minimal invalid inputs.
# Usage: fuzz/make_corpus.sh DIR
# Environment: QKOV_CLI, a built qkov, writes the scan documents' seeds (two shards of the Llama
# fixture and its whole scan); without it their corpus holds only the minimal documents below.
set -eu
out=$1
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
shared=${QKOV_SHARED_DIR:-$root/../shared}
# Debian's interpreter, which has python3-numpy (scripts/install-deps.sh); a python3 earlier in
# PATH (pyenv, a venv) may lack numpy.
python=/usr/bin/python3
for harness in safetensors gguf config npy llama2c tokenizer token_ids scan_document; do mkdir -p "$out/$harness"; done

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

# Hostile seeds of issue 30: a llama2.c header whose implied size wraps around 2^64 to the file's
# 92 bytes; GGUF files with a rotary dimension wider than the head, a NaN base, a negative epsilon,
# a long metadata array, a non-power-of-two alignment, an unaligned tensor offset and a base
# given as bytes that are not UTF-8.
"$python" - "$out" <<'PY'
import struct, sys
d = sys.argv[1]
with open(f"{d}/llama2c/wrap", "wb") as f:
    f.write(struct.pack("<7i", 16777216, 11184799, 16384, 1048576, 1, 16383, 1) + bytes(64))

def s(text):
    b = text.encode()
    return struct.pack("<Q", len(b)) + b

def gguf(name, extra, tensors=b"", n_tensors=0, data=b""):
    kv = [(s("general.architecture"), 8, s("llama")), (s("llama.embedding_length"), 4, struct.pack("<I", 8)),
          (s("llama.block_count"), 4, struct.pack("<I", 1)), (s("llama.attention.head_count"), 4, struct.pack("<I", 1)),
          (s("llama.vocab_size"), 4, struct.pack("<I", 4))] + extra
    body = b"GGUF" + struct.pack("<IQQ", 3, n_tensors, len(kv))
    for key, kind, value in kv:
        body += key + struct.pack("<I", kind) + value
    body += tensors
    body += bytes(-len(body) % 32) + data
    with open(f"{d}/gguf/{name}", "wb") as f:
        f.write(body)

gguf("rope_wide", [(s("llama.rope.dimension_count"), 4, struct.pack("<I", 10))])
gguf("base_nan", [(s("llama.rope.freq_base"), 6, struct.pack("<f", float("nan")))])
gguf("eps_negative", [(s("llama.attention.layer_norm_rms_epsilon"), 6, struct.pack("<f", -1e-5))])
gguf("long_array", [(s("tokenizer.ggml.scores"), 9, struct.pack("<IQ", 0, 4096) + bytes(4096))])
gguf("alignment_3", [(s("general.alignment"), 4, struct.pack("<I", 3))])
gguf("unaligned", [], s("t") + struct.pack("<IQIQ", 1, 4, 0, 4), 1, bytes(64))
# A string that is not UTF-8 where a number belongs (quoting it once threw nlohmann's type_error).
gguf("base_bytes", [(s("llama.rope.freq_base"), 8, struct.pack("<Q", 2) + b"\x9f\xff")])
PY

# Token ids (--calibrate): sequences with a comment, CRLF ends, tabs, and a blank line.
printf '# two sequences\n1 2 3\n\n4\t5 999\n' > "$out/token_ids/two"
printf '7 8 9\r\n10 11\r\n' > "$out/token_ids/crlf"

# Scan documents: an empty object, and the shape of a shard with nothing in it.
printf '{}' > "$out/scan_document/empty"
printf '{"schema":"qkov.scan/4","model":{"layers":1,"heads":1},"scanned_layers":[0,0],"heads":[],"composition":{"tensors":"bare.tensors.safetensors","sha256":"","pairs":0,"largest_bound":0,"recomputed_in_float64":0},"facts":[]}' \
  > "$out/scan_document/bare"

# Shard inputs (scan/shard_inputs.hpp) of the harnesses' model (fuzz_shard_inputs.hpp: width 2, vocabulary 4;
# layer 1 of 3 proxy rows and 2 token rows; circuit writes over 2 offsets of 3 tokens): their manifest for the
# scan-document harness, the files for the safetensors harness.
"$python" - "$out" <<'PY'
import json, struct, sys
def tensors(named):
    header, data = {}, b""
    for name, shape, values in named:
        header[name] = {"dtype": "F64", "shape": shape, "data_offsets": [len(data), len(data) + 8 * len(values)]}
        data += struct.pack(f"<{len(values)}d", *values)
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data
seeds = {
    "shard_common": [("token_circuit", [2, 2], [1, 2, 3, 4]), ("mean_embedding", [2], [0.5, 0.25]), ("mean_unembedding", [2], [0.1, 0.2])],
    "shard_layer": [("proxy", [3, 2], [1, 2, 3, 4, 5, 6]), ("readout", [2, 2], [1, 0, 0, 1]), ("residual_scale", [1], [1.5])],
    "shard_circuits": [("writes.1", [3, 2], [0] * 6), ("writes.2", [3, 2], [1] * 6), ("writes.heads", [1, 3], [0, 1, 3]),
                       ("writes.attention", [3], [0.2, 0.5, 0.3])],
}
for name, named in seeds.items():
    open(f"{sys.argv[1]}/safetensors/{name}", "wb").write(tensors(named))
manifest = {"schema": "qkov.shard_inputs/1", "model": {"layers": 2, "hidden_size": 2}, "options": {"search_circuits": True}, "common": None,
            "layers": [{"layer": 1, "file": "layer-1.safetensors", "sha256": "0" * 64}],
            "circuits": [{"first_layer": 1, "file": "circuits-1.safetensors", "sha256": "0" * 64}]}
open(f"{sys.argv[1]}/scan_document/shard_manifest", "w").write(json.dumps(manifest))
PY

if [ -d "$shared/fixtures/models" ]; then
  if [ -n "${QKOV_CLI:-}" ] && [ -x "$QKOV_CLI" ]; then
    # The documents only: their tensors (written beside them) are not JSON inputs.
    scans=$(mktemp -d)
    for layers in 0 1 0-1; do
      "$QKOV_CLI" scan "$shared/fixtures/models/llama" --layers "$layers" --json "$scans/llama_$layers.json" > /dev/null 2>&1
      cp "$scans/llama_$layers.json" "$out/scan_document/"
    done
    # A scan's composition tensors, for the safetensors harness's reading of them.
    cp "$scans/llama_0-1.tensors.safetensors" "$out/safetensors/composition"
    rm -rf "$scans"
  fi
  for m in gpt2 gpt_neox llama; do cp "$shared/fixtures/models/$m/config.json" "$out/config/$m.json"; done
  cp "$shared/fixtures/models/gpt2/model.safetensors" "$out/safetensors/gpt2"
fi
if [ -f "$shared/real_models/llama2c-stories260K/stories260K.bin" ]; then
  cp "$shared/real_models/llama2c-stories260K/stories260K.bin" "$out/llama2c/stories260K"
  { printf '\000\002'; cat "$shared/real_models/llama2c-stories260K/tok512.bin"; } > "$out/tokenizer/tok512"
fi
if [ -f "$shared/real_models/llama2c-stories260K/stories260K.gguf" ]; then
  cp "$shared/real_models/llama2c-stories260K/stories260K.gguf" "$out/gguf/stories260K"
  # The same model with llama.rope.dimension_count 10, wider than its heads of 8 (it corrupted the heap).
  "$python" - "$out/gguf/stories260K" "$out/gguf/stories260K_rope_wide" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
key = b"llama.rope.dimension_count"
at = b.find(key)
if at >= 0:
    struct.pack_into("<I", b, at + len(key) + 4, 10)
    open(sys.argv[2], "wb").write(b)
PY
fi
