"""The forward pass of a GPT-2 model in vectorised numpy float32: the reference qkov_forward is timed against.

    numpy_forward.py [--checksum FILE] MODEL_DIR N
    numpy_forward.py --compare QKOV_CHECKSUM NUMPY_CHECKSUM

Reads MODEL_DIR/model.safetensors (GPT2LMHeadModel names, Conv1D [in, out] weights, tied
embedding, as make_model.py writes them) and MODEL_DIR/config.json, then runs N tokens, token
i = (i * 7919) % V (qkov_forward.cpp uses the same), through
    x = wte[tokens] + wpe[0 .. N)
    per layer:  h = LN_1(x); q, k, v = h c_attn + b; per head softmax(q k^T / sqrt(d), causal) v;
                x += [z_0 .. z_11] c_proj + b;  x += gelu_new(LN_2(x) c_fc + b) c_proj + b
    logits = LN_f(x) wte^T   (N x V)
all heads of a layer at once (one batched matmul for the scores, one for pattern x values).
Prints the seconds from the first token's embedding to the logits (after reading the file), the
same span qkov_forward prints. --checksum writes the logits' checksum (checksum_lines below);
--compare fails unless QKOV_CHECKSUM (qkov_forward --checksum) agrees with NUMPY_CHECKSUM (this
script's, same model and N), each value to 1e-4 of the scale it is compared on (see compare()).
"""
import json
import math
import os
import struct
import sys
import time

import numpy as np

TOKEN_STRIDE = 7919  # token i = (i * 7919) % V: prime, so distinct tokens for any N < V


def read_safetensors(path):
    with open(path, "rb") as f:
        length = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(length))
        data = f.read()
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        if entry["dtype"] != "F32":
            raise SystemExit(f"numpy_forward: {name} is {entry['dtype']}, only F32 is read")
        begin, end = entry["data_offsets"]
        tensors[name] = np.frombuffer(data, dtype="<f4", count=(end - begin) // 4, offset=begin).reshape(entry["shape"])
    return tensors


# The constants take the dtype of x: float32 here, float64 when numpy_labels.py runs these blocks
# on float64 weights as qkov's scan does.
def layer_norm(x, weight, bias, eps):
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    variance = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / np.sqrt(variance + x.dtype.type(eps)) * weight + bias


def gelu_new(x):
    f = x.dtype.type
    c = f(math.sqrt(2 / math.pi))
    return f(0.5) * x * (f(1) + np.tanh(c * (x + f(0.044715) * x * x * x)))


def forward(w, config, tokens):
    n = len(tokens)
    x = w["transformer.wte.weight"][tokens] + w["transformer.wpe.weight"][:n]
    x = residual_stream(w, config, x)
    return layer_norm(x, w["transformer.ln_f.weight"], w["transformer.ln_f.bias"], config["layer_norm_epsilon"]) @ w["transformer.wte.weight"].T


def residual_stream(w, config, x, on_layer=None):
    """Every block on residual vectors x (n x D, the embedding and positions already added); the
    residual after the last block. on_layer(layer, h), when given, sees each layer's normed
    attention input h = LN_1(x) (numpy_labels.py reads it)."""
    n, D, H = x.shape[0], config["n_embd"], config["n_head"]
    d, eps = D // H, config["layer_norm_epsilon"]
    scale = x.dtype.type(1 / math.sqrt(d))
    future = np.triu(np.ones((n, n), dtype=bool), k=1)
    for layer in range(config["n_layer"]):
        p = f"transformer.h.{layer}."
        h = layer_norm(x, w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
        if on_layer:
            on_layer(layer, h)
        qkv = h @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]
        q, k, v = (qkv[:, i * D:(i + 1) * D].reshape(n, H, d).transpose(1, 0, 2) for i in range(3))
        scores = (q @ k.transpose(0, 2, 1)) * scale
        scores[:, future] = -np.inf
        scores -= scores.max(axis=-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(axis=-1, keepdims=True)
        z = (scores @ v).transpose(1, 0, 2).reshape(n, D)
        x = x + (z @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"])
        h = layer_norm(x, w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
        x = x + (gelu_new(h @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"]) @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"])
    return x


def checksum_lines(logits):
    """The logits' checksum, as qkov_forward --checksum writes it: "name value" lines. In float64:
    sum, sum |x|, sum of squares, a weighted sum and its sum |x w| (weight
    w = ((31 t + 17 j) % 101 - 50) / 50 at position t, entry j), the root mean square; then the
    single logits at positions 0, N/2, N - 1 and entries 0, 4099, 8198, ... (every 4099th)."""
    n, V = logits.shape
    sums = np.zeros(5)  # sum, sum |x|, sum x^2, sum x w, sum |x w|
    for first in range(0, n, 64):  # 64 rows at a time, so the float64 copies stay small next to the logits
        x = logits[first:first + 64].astype(np.float64)
        weight = ((31 * np.arange(first, first + len(x))[:, None] + 17 * np.arange(V)[None, :]) % 101 - 50) / 50
        xw = x * weight
        sums += [x.sum(), np.abs(x).sum(), (x * x).sum(), xw.sum(), np.abs(xw).sum()]
    values = dict(zip(("sum", "abs_sum", "sum_squares", "weighted", "abs_weighted"), sums))
    values["rms"] = math.sqrt(sums[2] / (n * V))
    for row in sorted({0, n // 2, n - 1}):
        for column in range(0, V, 4099):
            values[f"logit_{row}_{column}"] = float(logits[row, column])
    return [f"shape {n} {V}"] + [f"{name} {value:.9e}" for name, value in values.items()]


def read_checksum(path):
    with open(path) as f:
        return dict(line.rstrip("\n").split(" ", 1) for line in f if line.strip())


# What each checksum value is compared on: a scale that does not vanish when the value does.
SCALES = {"sum": "abs_sum", "abs_sum": "abs_sum", "sum_squares": "sum_squares", "weighted": "abs_weighted", "abs_weighted": "abs_weighted", "rms": "rms"}
TOLERANCE = 1e-4


def compare(theirs, ours):
    """Every value of our checksum against theirs to TOLERANCE of its scale (ours): the sums
    against sum |x| (the weighted one against sum |x w|), the sum of squares and the RMS against
    themselves, a single logit against the RMS. Two float32 passes of the same computation agree
    to about 1e-6 of these scales; a dropped bias or a wrong norm moves them by far more."""
    if theirs.get("shape") != ours["shape"]:
        raise SystemExit(f"numpy_forward: qkov's logits are {theirs.get('shape')}, numpy's {ours['shape']}")
    worst, failures = 0.0, []
    for name, value in ours.items():
        if name == "shape":
            continue
        if name not in theirs:
            raise SystemExit(f"numpy_forward: qkov's checksum lacks {name}")
        difference = abs(float(theirs[name]) - float(value)) / float(ours[SCALES.get(name, "rms")])
        worst = max(worst, difference)
        if not difference <= TOLERANCE:
            failures.append(f"{name}: qkov {theirs[name]}, numpy {value} (difference {difference:.2e} of its scale)")
    if failures:
        raise SystemExit("numpy_forward: qkov and numpy disagree:\n  " + "\n  ".join(failures))
    print(f"agree: {len(ours) - 1} checksum values, largest difference {worst:.2e} of its scale (tolerance {TOLERANCE:g})")


def main(arguments):
    if len(arguments) == 3 and arguments[0] == "--compare":
        compare(read_checksum(arguments[1]), read_checksum(arguments[2]))
        return
    checksum = None
    if len(arguments) >= 2 and arguments[0] == "--checksum":
        checksum, arguments = arguments[1], arguments[2:]
    if len(arguments) != 2:
        raise SystemExit(__doc__.split("\n\n")[1])
    directory = arguments[0]
    if not arguments[1].isdigit():
        raise SystemExit(f"numpy_forward: N must be a positive token count, not '{arguments[1]}'")
    n = int(arguments[1])
    with open(os.path.join(directory, "config.json")) as f:
        config = json.load(f)
    weights = read_safetensors(os.path.join(directory, "model.safetensors"))
    V = weights["transformer.wte.weight"].shape[0]
    if not 1 <= n <= config["n_positions"]:
        raise SystemExit(f"numpy_forward: N = {n}, the model has positions for 1 .. {config['n_positions']}")
    tokens = (np.arange(n, dtype=np.int64) * TOKEN_STRIDE) % V
    start = time.perf_counter()
    logits = forward(weights, config, tokens)
    print(f"{time.perf_counter() - start:.4f}")
    if checksum:
        with open(checksum, "w") as f:
            f.write("\n".join(checksum_lines(logits)) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
