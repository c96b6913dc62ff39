#!/usr/bin/env python3
"""How much of a head's previous-token score comes from the correlation between a query and its
previous key, which the scan's prediction (independent content per position) leaves out.

    adjacent_content.py MODEL_DIR LAYER.HEAD [SEQUENCES [LENGTH]]

MODEL_DIR holds a Llama checkpoint in Hugging Face's layout (config.json, model.safetensors in
float32: RMSNorm, rotate_half RoPE, grouped-query attention, SwiGLU), such as
../shared/real_models/llama2c-stories260K/hf. For SEQUENCES (default 100) seeded random sequences
[BOS] + LENGTH (default 50) tokens it runs an independent float64 NumPy forward pass and prints the
head's previous-token score (mean attention on key m - 1 over queries m = 1 .. LENGTH, BOS being
query 1's previous key) three ways: with the real keys; with every key but BOS and the query's own
taken from another random sequence at the same positions; and the same with the previous key
kept real (what the scan's prediction draws). The first difference is what the correlation between
adjacent positions (earlier heads copying m - 1 into m) adds to the score; the third column says
how much of it the previous key alone carries.
"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "forward"))
from numpy_forward import read_safetensors  # noqa: E402 (bench/forward, shared)


def main(arguments):
    if len(arguments) < 2:
        sys.exit(__doc__)
    model_dir, (layer, head) = arguments[0], map(int, arguments[1].split("."))
    sequences = int(arguments[2]) if len(arguments) > 2 else 100
    length = int(arguments[3]) if len(arguments) > 3 else 50
    config = json.load(open(os.path.join(model_dir, "config.json")))
    w = {k: v.astype(np.float64) for k, v in read_safetensors(os.path.join(model_dir, "model.safetensors")).items()}
    D, H = config["hidden_size"], config["num_attention_heads"]
    G, d = config.get("num_key_value_heads", H), D // H
    eps, theta = config["rms_norm_eps"], config.get("rope_theta", 10000.0)
    inverse = theta ** -(np.arange(0, d, 2) / d)

    def rms(x, g):
        return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * g

    def rotate(x, positions):  # rotate_half, x [T, heads, d]
        angle = positions[:, None] * inverse[None, :]
        c, s = np.concatenate([np.cos(angle)] * 2, -1)[:, None], np.concatenate([np.sin(angle)] * 2, -1)[:, None]
        return x * c + np.concatenate([-x[..., d // 2:], x[..., : d // 2]], -1) * s

    def softmax_causal(s):
        s = s + np.triu(np.full(s.shape[-2:], -np.inf), 1)
        a = np.exp(s - s.max(-1, keepdims=True))
        return a / a.sum(-1, keepdims=True)

    def normed_input(tokens, at_layer):  # the attention input of layer `at_layer`
        x, T = w["model.embed_tokens.weight"][tokens], len(tokens)
        positions = np.arange(T, dtype=np.float64)
        for l in range(at_layer + 1):
            p = f"model.layers.{l}."
            h = rms(x, w[p + "input_layernorm.weight"])
            if l == at_layer:
                return h
            q = rotate((h @ w[p + "self_attn.q_proj.weight"].T).reshape(T, H, d), positions)
            k = np.repeat(rotate((h @ w[p + "self_attn.k_proj.weight"].T).reshape(T, G, d), positions), H // G, 1)
            v = np.repeat((h @ w[p + "self_attn.v_proj.weight"].T).reshape(T, G, d), H // G, 1)
            a = softmax_causal(np.einsum("mhd,nhd->hmn", q, k) / np.sqrt(d))
            x = x + np.einsum("hmn,nhd->mhd", a, v).reshape(T, D) @ w[p + "self_attn.o_proj.weight"].T
            h = rms(x, w[p + "post_attention_layernorm.weight"])
            gate, up = h @ w[p + "mlp.gate_proj.weight"].T, h @ w[p + "mlp.up_proj.weight"].T
            x = x + (gate / (1 + np.exp(-gate)) * up) @ w[p + "mlp.down_proj.weight"].T
        raise AssertionError("unreachable")

    p = f"model.layers.{layer}."
    w_q = w[p + "self_attn.q_proj.weight"][head * d:(head + 1) * d]
    group = head // (H // G)
    w_k = w[p + "self_attn.k_proj.weight"][group * d:(group + 1) * d]
    positions = np.arange(length + 1, dtype=np.float64)
    bos = config.get("bos_token_id", 1)
    rng = np.random.default_rng(2)
    real, shuffled, previous_kept = [], [], []
    for _ in range(sequences):
        first = normed_input(np.concatenate([[bos], rng.integers(0, config["vocab_size"], length)]), layer)
        other = normed_input(np.concatenate([[bos], rng.integers(0, config["vocab_size"], length)]), layer)
        q = rotate((first @ w_q.T)[:, None], positions)[:, 0]
        k = rotate((first @ w_k.T)[:, None], positions)[:, 0]
        k_other = rotate((other @ w_k.T)[:, None], positions)[:, 0]
        k_other[0] = k[0]  # BOS is one fixed token
        scores = q @ k.T / np.sqrt(d)
        mixed = q @ k_other.T / np.sqrt(d)
        np.fill_diagonal(mixed, np.diag(scores))  # the query's own token is its key at offset 0
        kept = mixed.copy()
        queries = np.arange(1, length + 1)
        kept[queries, queries - 1] = scores[queries, queries - 1]  # the previous key: the query's real predecessor
        for s, out in ((scores, real), (mixed, shuffled), (kept, previous_kept)):
            a = softmax_causal(s)
            out.append(np.mean([a[m, m - 1] for m in range(1, length + 1)]))
    error = [np.std(x) / np.sqrt(sequences) for x in (real, shuffled, previous_kept)]
    print(f"{layer}.{head}: previous-token score over {sequences} sequences of {length} tokens: "
          f"{np.mean(real):.4f} with the real keys, {np.mean(shuffled):.4f} with keys from other sequences, "
          f"{np.mean(previous_kept):.4f} with those but the previous key real "
          f"(standard errors {error[0]:.4f}, {error[1]:.4f}, {error[2]:.4f})")


if __name__ == "__main__":
    main(sys.argv[1:])
