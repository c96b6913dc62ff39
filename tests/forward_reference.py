#!/usr/bin/env python3
"""Independent float64 numpy forward pass of the fixture models, for tests/forward_tests.cpp.

Written from the Hugging Face model definitions (GPT2LMHeadModel, GPTNeoXForCausalLM,
LlamaForCausalLM), not from qkov: it reads model.safetensors itself, runs the full stack on the
token sequence below and prints, for each model, the logits the test compares with (every 97th
vocabulary entry at positions 0, 7 and 15). Run: tests/forward_reference.py SHARED_DIR
"""
import json
import struct
import sys

import numpy as np

TOKENS = [5, 9, 100, 7, 7, 511, 0, 42, 300, 5, 9, 100, 17, 250, 1, 64]
POSITIONS = [0, 7, 15]
COLUMNS = list(range(0, 512, 97))


def read_safetensors(path):
    """Every tensor of a .safetensors file as float64 arrays, read with numpy and json only."""
    with open(path, "rb") as f:
        raw = f.read()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        begin, end = t["data_offsets"]
        chunk = data[begin:end]
        if t["dtype"] == "BF16":  # the upper half of a float32
            values = (np.frombuffer(chunk, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            values = np.frombuffer(chunk, dtype={"F32": "<f4", "F64": "<f8", "F16": "<f2"}[t["dtype"]])
        out[name] = values.astype(np.float64).reshape(t["shape"])
    return out


def layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def rms_norm(x, w, eps):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w


def attend(q, k, v, d, on_pattern=None):
    """q, k, v: heads x n x d (k, v already repeated for GQA); causal softmax attention.
    on_pattern, when given, sees the heads x n x n pattern (row = query)."""
    n = q.shape[1]
    s = q @ k.transpose(0, 2, 1) / np.sqrt(d)
    s = np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf)
    s = np.exp(s - s.max(-1, keepdims=True))
    p = s / s.sum(-1, keepdims=True)
    if on_pattern is not None:
        on_pattern(p)
    return p @ v


def rotate_half_rope(x, rot, base):
    """x: heads x n x d; rotate the first rot dims with pairs (i, i + rot/2)."""
    n = x.shape[1]
    inv = base ** (-np.arange(0, rot, 2) / rot)
    ang = np.arange(n)[:, None] * inv[None, :]
    cos = np.concatenate([np.cos(ang)] * 2, -1)
    sin = np.concatenate([np.sin(ang)] * 2, -1)
    r, rest = x[..., :rot], x[..., rot:]
    half = rot // 2
    rotated = np.concatenate([-r[..., half:], r[..., :half]], -1)
    return np.concatenate([r * cos + rotated * sin, rest], -1)


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def gelu_erf(x):
    from math import erf
    return 0.5 * x * (1 + np.vectorize(erf)(x / np.sqrt(2)))


def gpt2(w, c):
    D, H = c["n_embd"], c["n_head"]
    d = D // H
    eps = c["layer_norm_epsilon"]
    n = len(TOKENS)
    x = w["transformer.wte.weight"][TOKENS] + w["transformer.wpe.weight"][:n]
    for l in range(c["n_layer"]):
        p = f"transformer.h.{l}."
        h = layer_norm(x, w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
        qkv = h @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]
        q, k, v = (qkv[:, i * D:(i + 1) * D].reshape(n, H, d).transpose(1, 0, 2) for i in range(3))
        z = attend(q, k, v, d).transpose(1, 0, 2).reshape(n, D)
        x = x + z @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
        h = layer_norm(x, w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
        h = gelu_tanh(h @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"])
        x = x + h @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
    x = layer_norm(x, w["transformer.ln_f.weight"], w["transformer.ln_f.bias"], eps)
    return x @ w["transformer.wte.weight"].T


def gpt_neox(w, c):
    D, H = c["hidden_size"], c["num_attention_heads"]
    d = D // H
    eps = c["layer_norm_eps"]
    rp = c["rope_parameters"]
    rot = int(d * rp["partial_rotary_factor"])
    n = len(TOKENS)
    x = w["gpt_neox.embed_in.weight"][TOKENS]
    for l in range(c["num_hidden_layers"]):
        p = f"gpt_neox.layers.{l}."
        h = layer_norm(x, w[p + "input_layernorm.weight"], w[p + "input_layernorm.bias"], eps)
        qkv = h @ w[p + "attention.query_key_value.weight"].T + w[p + "attention.query_key_value.bias"]
        qkv = qkv.reshape(n, H, 3, d).transpose(2, 1, 0, 3)
        q, k, v = (rotate_half_rope(qkv[0], rot, rp["rope_theta"]), rotate_half_rope(qkv[1], rot, rp["rope_theta"]), qkv[2])
        z = attend(q, k, v, d).transpose(1, 0, 2).reshape(n, D)
        a = z @ w[p + "attention.dense.weight"].T + w[p + "attention.dense.bias"]
        h2 = layer_norm(x, w[p + "post_attention_layernorm.weight"], w[p + "post_attention_layernorm.bias"], eps)
        m = gelu_erf(h2 @ w[p + "mlp.dense_h_to_4h.weight"].T + w[p + "mlp.dense_h_to_4h.bias"])
        m = m @ w[p + "mlp.dense_4h_to_h.weight"].T + w[p + "mlp.dense_4h_to_h.bias"]
        assert c["use_parallel_residual"]
        x = x + a + m
    x = layer_norm(x, w["gpt_neox.final_layer_norm.weight"], w["gpt_neox.final_layer_norm.bias"], eps)
    return x @ w["embed_out.weight"].T


def llama(w, c, tokens=TOKENS, on_pattern=None):
    """Logits of LlamaForCausalLM on tokens; on_pattern(layer, heads x n x n pattern) when given.
    rope_theta under rope_parameters (newer transformers) or at the top (older ones); a tied
    unembedding (no lm_head.weight) is the embedding."""
    D, H, K, d = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
    eps = c["rms_norm_eps"]
    base = c.get("rope_parameters", c)["rope_theta"]
    n = len(tokens)
    x = w["model.embed_tokens.weight"][tokens]
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        h = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = (h @ w[p + "self_attn.q_proj.weight"].T).reshape(n, H, d).transpose(1, 0, 2)
        k = (h @ w[p + "self_attn.k_proj.weight"].T).reshape(n, K, d).transpose(1, 0, 2)
        v = (h @ w[p + "self_attn.v_proj.weight"].T).reshape(n, K, d).transpose(1, 0, 2)
        q, k = rotate_half_rope(q, d, base), rotate_half_rope(k, d, base)
        k, v = np.repeat(k, H // K, axis=0), np.repeat(v, H // K, axis=0)
        z = attend(q, k, v, d, None if on_pattern is None else lambda a, l=l: on_pattern(l, a)).transpose(1, 0, 2).reshape(n, H * d)
        x = x + z @ w[p + "self_attn.o_proj.weight"].T
        h = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        g = h @ w[p + "mlp.gate_proj.weight"].T
        u = h @ w[p + "mlp.up_proj.weight"].T
        x = x + (g / (1 + np.exp(-g)) * u) @ w[p + "mlp.down_proj.weight"].T
    x = rms_norm(x, w["model.norm.weight"], eps)
    return x @ w.get("lm_head.weight", w["model.embed_tokens.weight"]).T


def main():
    shared = sys.argv[1]
    for name, run in (("gpt2", gpt2), ("gpt_neox", gpt_neox), ("llama", llama)):
        folder = f"{shared}/fixtures/models/{name}"
        with open(f"{folder}/config.json") as f:
            config = json.load(f)
        logits = run(read_safetensors(f"{folder}/model.safetensors"), config)
        rows = ",\n".join("        {" + ", ".join(repr(float(logits[t, j])) for j in COLUMNS) + "}" for t in POSITIONS)
        print(f'    {{"{name}", {{\n{rows}}}}},')


if __name__ == "__main__":
    main()
