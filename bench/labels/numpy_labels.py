"""The two expensive parts of `qkov scan`'s labels, in vectorised numpy float64, on the same model file.

    numpy_labels.py MODEL_DIR OUT_JSON
    numpy_labels.py --compare QKOV_SCAN_JSON NUMPY_JSON

Reads MODEL_DIR/model.safetensors and config.json (a GPT-2 model as bench/forward/make_model.py
writes it: LayerNorm, gelu_new, learned positions, Conv1D [in, out] weights, tied embedding) and
computes what include/qkov/scan/proxy_pass.hpp and token_copying.hpp compute, in float64 as qkov
does (its forward::decoder<double>), with the blocks of bench/forward/numpy_forward.py:
  (a) the forward passes: the proxy pass on [BOS] + mean token embedding x N (N = 50, + learned
      positions; without a bos_token_id the mean embedding at position 0 too), keeping each
      layer's normed attention input; then each read token's effective embedding at every layer:
      the tokens read (all of V when V <= 4,096, else every ceil(V / 4,096)-th) in the seeded
      order qkov uses (std::mt19937_64 seeded 0, detect::uniform_below's Fisher-Yates shuffle), as
      [BOS] + chunks of N tokens;
  (b) per head the per-token copying: rows = (X_l W_v^T + b_v) (W_U diag(g_f) C W_o)^T, T x V in
      blocks of 512 tokens, C the final LayerNorm's centring; per token whether it is the top-1
      of its own row, in its top 5, in its bottom 10, and the margin (own - best other) / std(row);
      the shares and the median margin per head.
All heads of a layer share one product for W_U diag(g_f) C W_o (V x D) and one for the values.
Prints "own forward copy": the seconds after reading the file, those in (a) and those in (b).
OUT_JSON holds the per-head results. --compare checks qkov's scan JSON (heads[].token_copying)
against them: the same token count, every share within 1/T, the median margins within 1e-6 of
their scale, and fails otherwise.
"""
import json
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "forward"))
from numpy_forward import read_safetensors, residual_stream  # noqa: E402 (bench/forward, shared)

POSITIONS = 50       # label_thresholds::queries: the proxy sequence's length past BOS, and the chunk length
TOKEN_LIMIT = 4096   # label_thresholds::copy_tokens
BLOCK_TOKENS = 512   # copying_per_token's block of rows
SEED = 0             # effective_embeddings' default seed
MASK64 = (1 << 64) - 1


class MersenneTwister64:
    """std::mt19937_64: the generator whose draws order the tokens in qkov."""

    def __init__(self, seed):
        self.state = [seed & MASK64]
        for i in range(1, 312):
            previous = self.state[-1]
            self.state.append((6364136223846793005 * (previous ^ (previous >> 62)) + i) & MASK64)
        self.index = 312

    def _twist(self):
        s = self.state
        for i in range(312):
            y = (s[i] & 0xFFFFFFFF80000000) | (s[(i + 1) % 312] & 0x7FFFFFFF)
            s[i] = s[(i + 156) % 312] ^ (y >> 1) ^ (0xB5026F5AA96619E9 if y & 1 else 0)
        self.index = 0

    def __call__(self):
        if self.index >= 312:
            self._twist()
        y = self.state[self.index]
        self.index += 1
        y ^= (y >> 29) & 0x5555555555555555
        y ^= (y << 17) & 0x71D67FFFEDA60000
        y ^= (y << 37) & 0xFFF7EEE000000000
        return y ^ (y >> 43)


def uniform_below(rng, bound):
    """detect::uniform_below: rejection to a multiple of bound, then the remainder."""
    limit = MASK64 - MASK64 % bound
    while True:
        x = rng()
        if x < limit:
            return x % bound


def shuffled_order(count, seed):
    order = list(range(count))
    rng = MersenneTwister64(seed)
    for i in range(count - 1):
        j = i + uniform_below(rng, count - i)
        order[i], order[j] = order[j], order[i]
    return np.array(order, dtype=np.int64)


def proxy_pass(w, config, mean_embedding, bos):
    """Each layer's normed input on [BOS] + mean embedding x N (+ positions), and its mean over rows 1 .. N."""
    n = min(POSITIONS, w["transformer.wpe.weight"].shape[0] - 1)
    x = np.tile(mean_embedding, (n + 1, 1))
    if bos is not None:
        x[0] = w["transformer.wte.weight"][bos]
    x += w["transformer.wpe.weight"][:n + 1]
    layers = [None] * config["n_layer"]

    def keep(layer, h):
        layers[layer] = (h, h[1:].mean(axis=0))

    residual_stream(w, config, x, keep)
    return layers, n


def effective_embeddings(w, config, bos, tokens, context):
    """effective[l][i]: token tokens[i]'s normed input at layer l, read in qkov's seeded random order."""
    T, D = len(tokens), config["n_embd"]
    effective = [np.empty((T, D)) for _ in range(config["n_layer"])]
    order = shuffled_order(T, SEED)
    lead = [] if bos is None else [bos]
    for first in range(0, T, context):
        rows = order[first:first + context]
        sequence = np.array(lead + list(tokens[rows]), dtype=np.int64)
        x = w["transformer.wte.weight"][sequence] + w["transformer.wpe.weight"][:len(sequence)]

        def keep(layer, h):
            effective[layer][rows] = h[len(lead):]

        residual_stream(w, config, x, keep)
    return effective


def copying(w, config, tokens, effective):
    """Per head (layer-major): T, the top-1, top-5 and bottom-10 shares and the median margin."""
    wte = w["transformer.wte.weight"]
    V, D, H = wte.shape[0], config["n_embd"], config["n_head"]
    d = D // H
    readout = wte * w["transformer.ln_f.weight"]  # W_U diag(g_f), V x D
    T = len(tokens)
    heads = []
    for layer in range(config["n_layer"]):
        p = f"transformer.h.{layer}."
        # Conv1D: z @ c_proj, so head h's W_o (D x d) is c_proj[h d:(h + 1) d].T; C centres each of its columns over D.
        c_proj = w[p + "attn.c_proj.weight"]
        out = readout @ (c_proj - c_proj.mean(axis=1, keepdims=True)).T  # V x (H d): head h's W_U diag(g_f) C W_o in columns h d ..
        values = effective[layer] @ w[p + "attn.c_attn.weight"][:, 2 * D:] + w[p + "attn.c_attn.bias"][2 * D:]  # T x (H d)
        for head in range(H):
            out_h = np.ascontiguousarray(out[:, head * d:(head + 1) * d])
            values_h = values[:, head * d:(head + 1) * d]
            top1 = top5 = bottom10 = 0
            margins = []
            for first in range(0, T, BLOCK_TOKENS):
                logits = values_h[first:first + BLOCK_TOKENS] @ out_h.T  # n x V
                n = logits.shape[0]
                own_tokens = tokens[first:first + n]
                own = logits[np.arange(n), own_tokens]
                above = (logits >= own[:, None]).sum(axis=1) - 1  # other tokens at or above t's own logit
                is_top1 = above == 0
                top1 += int(is_top1.sum())
                top5 += int((above < 5).sum())
                bottom10 += int((V - 1 - above < 10).sum())  # the others below t: V - 1 - above
                best_other = logits.max(axis=1)
                if is_top1.any():  # t is the maximum: the best other is the second largest
                    rows = np.flatnonzero(is_top1)
                    others = logits[rows]
                    others[np.arange(len(rows)), own_tokens[rows]] = -np.inf
                    best_other[rows] = others.max(axis=1)
                spread = logits.std(axis=1)
                margins.append(np.where(spread > 0, (own - best_other) / np.where(spread > 0, spread, 1), 0.0))
            margins = np.sort(np.concatenate(margins))
            heads.append({"layer": layer, "head": head, "tokens": T, "top1_share": top1 / T, "top5_share": top5 / T,
                          "bottom10_share": bottom10 / T, "median_margin": float(margins[T // 2])})
    return heads


def compare(qkov_path, numpy_path):
    with open(qkov_path) as f:
        document = json.load(f)
    qkov = {(h["layer"], h["head"]): h["token_copying"] for h in document["heads"]}
    # qkov's float32 products (its default) decide every share as float64 does, but its median
    # margins are the float32 rows': they agree to about 1e-6, not to float64's rounding.
    margin_tolerance = 1e-4 if document["thresholds"].get("precision") == "float32" else 1e-6
    with open(numpy_path) as f:
        ours = json.load(f)["heads"]
    failures, worst, worst_margin, exact = [], 0.0, 0.0, 0
    for h in ours:
        name = f"{h['layer']}.{h['head']}"
        theirs = qkov.get((h["layer"], h["head"]))
        if not theirs:
            failures.append(f"{name}: no token_copying in qkov's JSON")
            continue
        if theirs["tokens"] != h["tokens"]:
            failures.append(f"{name}: qkov read {theirs['tokens']} tokens, numpy {h['tokens']}")
            continue
        T = h["tokens"]
        differences = [abs(theirs[k] - h[k]) * T for k in ("top1_share", "top5_share", "bottom10_share")]
        exact += all(x == 0 for x in differences)
        worst = max(worst, *differences)
        if max(differences) > 1 + 1e-9:
            failures.append(f"{name}: shares qkov {[theirs[k] for k in ('top1_share', 'top5_share', 'bottom10_share')]}, "
                            f"numpy {[h[k] for k in ('top1_share', 'top5_share', 'bottom10_share')]}")
        margin = abs(theirs["median_margin"] - h["median_margin"]) / max(1.0, abs(h["median_margin"]))
        worst_margin = max(worst_margin, margin)
        if margin > margin_tolerance:
            failures.append(f"{name}: median margin qkov {theirs['median_margin']}, numpy {h['median_margin']}")
    if len(qkov) != len(ours):
        failures.append(f"qkov has {len(qkov)} heads, numpy {len(ours)}")
    if failures:
        raise SystemExit("numpy_labels: qkov and numpy disagree:\n  " + "\n  ".join(failures))
    print(f"agree: {len(ours)} heads, T = {ours[0]['tokens']} tokens each; {exact} heads with all three shares equal, "
          f"largest share difference {worst:.0f}/T; median margins within {worst_margin:.1e}")


def main(arguments):
    if len(arguments) == 3 and arguments[0] == "--compare":
        compare(arguments[1], arguments[2])
        return
    if len(arguments) != 2:
        raise SystemExit(__doc__.split("\n\n")[1])
    directory, out_path = arguments
    with open(os.path.join(directory, "config.json")) as f:
        config = json.load(f)
    # float64 throughout, as qkov's scan computes (forward::decoder<double>, double read-out).
    w = {name: tensor.astype(np.float64) for name, tensor in read_safetensors(os.path.join(directory, "model.safetensors")).items()}
    start = time.perf_counter()
    wte = w["transformer.wte.weight"]
    V = wte.shape[0]
    bos = config.get("bos_token_id")
    _, positions = proxy_pass(w, config, wte.mean(axis=0), bos)
    stride = 1 if V <= TOKEN_LIMIT else -(-V // TOKEN_LIMIT)
    tokens = np.arange(0, V, stride, dtype=np.int64)
    effective = effective_embeddings(w, config, bos, tokens, positions)
    forward_done = time.perf_counter()
    heads = copying(w, config, tokens, effective)
    end = time.perf_counter()
    with open(out_path, "w") as f:
        json.dump({"model": directory, "vocabulary": V, "tokens": len(tokens), "heads": heads}, f, indent=1)
    print(f"{end - start:.3f} {forward_done - start:.3f} {end - forward_done:.3f}")


if __name__ == "__main__":
    main(sys.argv[1:])
