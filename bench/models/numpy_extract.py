"""Every attention head of a GPT-2 safetensors file as float64 matrices, with numpy only.

Reads the file's bytes, parses the JSON header with json, views each tensor with np.frombuffer,
converts it to float64 and copies every head's W_q, W_k, W_v (d x D), W_o (D x d) and biases into
contiguous arrays in qkov's column convention (the matrices qkov's head model holds). Prints
"<seconds spent after the imports> <checksum>", the checksum being the sum of squares of every head
matrix and bias plus each layer's output bias, so that it can be compared with qkov_extract.
No NaN/Inf check is made here (qkov makes one): numpy's side does strictly less work.
"""
import json
import struct
import sys
import time

import numpy as np

start = time.perf_counter()
path = sys.argv[1]
with open(path, "rb") as f:
    data = f.read()
(header_length,) = struct.unpack_from("<Q", data, 0)
header = json.loads(data[8:8 + header_length])
base = 8 + header_length
dtypes = {"F32": "<f4", "F64": "<f8", "F16": "<f2"}


def tensor(name):
    entry = header[name]
    begin, end = entry["data_offsets"]
    array = np.frombuffer(data, dtype=dtypes[entry["dtype"]], count=int(np.prod(entry["shape"])), offset=base + begin)
    return array.reshape(entry["shape"]).astype(np.float64)


config = json.load(open(path.rsplit("/", 1)[0] + "/config.json"))
D, H, layers = config["n_embd"], config["n_head"], config["n_layer"]
d = D // H
heads = []
checksum = 0.0
for layer in range(layers):
    qkv = tensor(f"h.{layer}.attn.c_attn.weight")  # Conv1D [in, out]
    bias = tensor(f"h.{layer}.attn.c_attn.bias")
    proj = tensor(f"h.{layer}.attn.c_proj.weight")
    b_o = tensor(f"h.{layer}.attn.c_proj.bias")
    layer_heads = []
    for h in range(H):
        q, k, v = h * d, H * d + h * d, 2 * H * d + h * d
        head = {
            "w_q": np.ascontiguousarray(qkv[:, q:q + d].T), "b_q": bias[q:q + d].copy(),
            "w_k": np.ascontiguousarray(qkv[:, k:k + d].T), "b_k": bias[k:k + d].copy(),
            "w_v": np.ascontiguousarray(qkv[:, v:v + d].T), "b_v": bias[v:v + d].copy(),
            "w_o": np.ascontiguousarray(proj[q:q + d, :].T),
        }
        checksum += sum(float(np.dot(m.ravel(), m.ravel())) for m in head.values())
        layer_heads.append(head)
    checksum += float(np.dot(b_o, b_o))
    heads = layer_heads  # one layer's heads alive at a time, as in qkov's layer-by-layer reader
print(f"{time.perf_counter() - start:.6f} {checksum:.17g}")
