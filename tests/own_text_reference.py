#!/usr/bin/env python3
"""Recomputes, from the token ids a `qkov detect --text --json` document holds, every head's scores
on that text with an independent float64 NumPy forward pass, and compares them with the document.

The pass is written from the Hugging Face model definitions (GPT2LMHeadModel, GPTNeoXForCausalLM,
LlamaForCausalLM and SmolLM3's no_rope_layers), like tests/forward_reference.py, whose safetensors
reader, norms, RoPE and GELUs it reuses; nothing here reads qkov's code. The scores are written from
their definitions in docs/DETECT.md: TransformerLens' 'mul' templates (previous token, repeat
attention at shifts -1..2: duplicate token is 0, induction 1), attention to BOS over the first half
of the queries, 1..(n-1)/2 (text), attention by offset 0..8 over queries i >= 8, and copying: at each query whose
most-attended key j (the first largest) is not position 0, the head's logits W_U diag(g_f) [C] W_o,h z_i
rank t_j first (top-1, ties against) or among the 10 lowest. Means and sample standard deviations
over the sequences, and the thresholds from the text's attainable scores (the share of queries
with a target), must agree with the document.

Run: tests/own_text_reference.py DOCUMENT MODEL_DIR [TOLERANCE]; exits 1 naming every difference.
"""
import importlib.util
import json
import os
import sys

import numpy as np

_spec = importlib.util.spec_from_file_location("forward_reference", os.path.join(os.path.dirname(os.path.abspath(__file__)), "forward_reference.py"))
ref = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(ref)

LARGEST_OFFSET = 8
SHIFTS = [-1, 0, 1, 2]
BOTTOM = 10


def softmax_causal(s):
    n = s.shape[-1]
    s = np.where(np.tril(np.ones((n, n), dtype=bool)), s, -np.inf)
    s = np.exp(s - s.max(-1, keepdims=True))
    return s / s.sum(-1, keepdims=True)


class Model:
    """Reads config.json and model.safetensors; run(tokens) gives per layer the patterns (H x n x n)
    and the values each query head reads (H x n x d); head_unembedding(l, h) is V x d."""

    def __init__(self, directory):
        self.c = json.load(open(os.path.join(directory, "config.json")))
        self.w = ref.read_safetensors(os.path.join(directory, "model.safetensors"))
        arch = self.c["architectures"][0]
        self.family = "gpt2" if arch.startswith("GPT2") else "neox" if arch.startswith("GPTNeoX") else "llama"

    def rope(self):
        c = self.c
        params = c.get("rope_parameters") or {}
        base = params.get("rope_theta", c.get("rope_theta", c.get("rotary_emb_base", 10000.0)))
        fraction = params.get("partial_rotary_factor", c.get("rotary_pct", 1.0))
        return base, fraction

    def run(self, tokens):
        return getattr(self, self.family)(np.asarray(tokens))

    def gpt2(self, t):
        c, w = self.c, self.w
        D, H = c["n_embd"], c["n_head"]
        d, eps, n = D // H, c["layer_norm_epsilon"], len(t)
        x = w["transformer.wte.weight"][t] + w["transformer.wpe.weight"][:n]
        out = []
        for l in range(c["n_layer"]):
            p = f"transformer.h.{l}."
            h = ref.layer_norm(x, w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
            qkv = h @ w[p + "attn.c_attn.weight"] + w[p + "attn.c_attn.bias"]
            q, k, v = (qkv[:, i * D:(i + 1) * D].reshape(n, H, d).transpose(1, 0, 2) for i in range(3))
            a = softmax_causal(q @ k.transpose(0, 2, 1) / np.sqrt(d))
            out.append((a, v))
            x = x + (a @ v).transpose(1, 0, 2).reshape(n, D) @ w[p + "attn.c_proj.weight"] + w[p + "attn.c_proj.bias"]
            h = ref.layer_norm(x, w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
            x = x + ref.gelu_tanh(h @ w[p + "mlp.c_fc.weight"] + w[p + "mlp.c_fc.bias"]) @ w[p + "mlp.c_proj.weight"] + w[p + "mlp.c_proj.bias"]
        return out

    def neox(self, t):
        c, w = self.c, self.w
        D, H = c["hidden_size"], c["num_attention_heads"]
        d, eps, n = D // H, c["layer_norm_eps"], len(t)
        base, fraction = self.rope()
        rot = int(d * fraction)
        x = w["gpt_neox.embed_in.weight"][t]
        out = []
        for l in range(c["num_hidden_layers"]):
            p = f"gpt_neox.layers.{l}."
            h = ref.layer_norm(x, w[p + "input_layernorm.weight"], w[p + "input_layernorm.bias"], eps)
            qkv = (h @ w[p + "attention.query_key_value.weight"].T + w[p + "attention.query_key_value.bias"]).reshape(n, H, 3, d).transpose(2, 1, 0, 3)
            q, k, v = ref.rotate_half_rope(qkv[0], rot, base), ref.rotate_half_rope(qkv[1], rot, base), qkv[2]
            a = softmax_causal(q @ k.transpose(0, 2, 1) / np.sqrt(d))
            out.append((a, v))
            attn = (a @ v).transpose(1, 0, 2).reshape(n, D) @ w[p + "attention.dense.weight"].T + w[p + "attention.dense.bias"]
            h2 = ref.layer_norm(x, w[p + "post_attention_layernorm.weight"], w[p + "post_attention_layernorm.bias"], eps)
            m = ref.gelu_erf(h2 @ w[p + "mlp.dense_h_to_4h.weight"].T + w[p + "mlp.dense_h_to_4h.bias"]) @ w[p + "mlp.dense_4h_to_h.weight"].T
            m = m + w[p + "mlp.dense_4h_to_h.bias"]
            assert c.get("use_parallel_residual", True)
            x = x + attn + m
        return out

    def llama(self, t):
        c, w = self.c, self.w
        D, H, K = c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"]
        d = c.get("head_dim", D // H)
        eps, n = c["rms_norm_eps"], len(t)
        base, _ = self.rope()
        no_rope = c.get("no_rope_layers")  # SmolLM3: 1 where a layer rotates, 0 where it does not
        x = w["model.embed_tokens.weight"][t]
        out = []
        for l in range(c["num_hidden_layers"]):
            p = f"model.layers.{l}."
            h = ref.rms_norm(x, w[p + "input_layernorm.weight"], eps)
            q = (h @ w[p + "self_attn.q_proj.weight"].T).reshape(n, H, d).transpose(1, 0, 2)
            k = (h @ w[p + "self_attn.k_proj.weight"].T).reshape(n, K, d).transpose(1, 0, 2)
            v = (h @ w[p + "self_attn.v_proj.weight"].T).reshape(n, K, d).transpose(1, 0, 2)
            if no_rope is None or no_rope[l]:
                q, k = ref.rotate_half_rope(q, d, base), ref.rotate_half_rope(k, d, base)
            k, v = np.repeat(k, H // K, axis=0), np.repeat(v, H // K, axis=0)
            a = softmax_causal(q @ k.transpose(0, 2, 1) / np.sqrt(d))
            out.append((a, v))
            x = x + (a @ v).transpose(1, 0, 2).reshape(n, H * d) @ w[p + "self_attn.o_proj.weight"].T
            h = ref.rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
            g, u = h @ w[p + "mlp.gate_proj.weight"].T, h @ w[p + "mlp.up_proj.weight"].T
            x = x + (g / (1 + np.exp(-g)) * u) @ w[p + "mlp.down_proj.weight"].T
        return out

    def head_unembedding(self, l, h):
        """W_U diag(g_f) [C] W_o[:, h d .. h d + d): the head's output read straight into logits."""
        c, w = self.c, self.w
        if self.family == "gpt2":
            D, H = c["n_embd"], c["n_head"]
            w_o = w[f"transformer.h.{l}.attn.c_proj.weight"].T  # Conv1D [in, out]: W_o is its transpose
            g, U, centre = w["transformer.ln_f.weight"], w["transformer.wte.weight"], True
        elif self.family == "neox":
            D, H = c["hidden_size"], c["num_attention_heads"]
            w_o = w[f"gpt_neox.layers.{l}.attention.dense.weight"]
            g, U, centre = w["gpt_neox.final_layer_norm.weight"], w["embed_out.weight"], True
        else:
            D, H = c["hidden_size"], c["num_attention_heads"]
            w_o = w[f"model.layers.{l}.self_attn.o_proj.weight"]
            g, centre = w["model.norm.weight"], False
            U = w.get("lm_head.weight", w["model.embed_tokens.weight"])
        d = w_o.shape[1] // H
        block = w_o[:, h * d:(h + 1) * d]
        if centre:
            block = block - block.mean(0, keepdims=True)
        return U @ (g[:, None] * block)


def scores(model, tokens, unembeddings):
    """Per (layer, head): the scores of one sequence, and its copying counts."""
    n = len(tokens)
    earlier = {}  # position -> earlier positions of the same token
    seen = {}
    for i, tok in enumerate(tokens):
        earlier[i] = list(seen.get(tok, []))
        seen.setdefault(tok, []).append(i)
    out = {}
    for l, (patterns, values) in enumerate(model.run(tokens)):
        for h in range(patterns.shape[0]):
            a = patterns[h]
            total = a.sum()
            s = {"previous_token": sum(a[i, i - 1] for i in range(1, n)) / total}
            s["bos"] = a[1:(n - 1) // 2 + 1, 0].mean()
            s["by_offset"] = [np.mean([a[i, i - k] for i in range(LARGEST_OFFSET, n)]) for k in range(LARGEST_OFFSET + 1)]
            s["by_shift"] = [sum(a[i, e + sh] for i in range(n) for e in earlier[i] if 0 <= e + sh <= i) / total for sh in SHIFTS]
            logits = (a @ values[h]) @ unembeddings[l][h].T
            queries = top1 = bottom = 0
            for i in range(n):
                j = int(np.argmax(a[i, :i + 1]))
                if j == 0:
                    continue
                t = tokens[j]
                others = np.delete(logits[i], t)
                queries += 1
                top1 += int(not np.any(others >= logits[i, t]))
                bottom += int(np.count_nonzero(others <= logits[i, t]) < BOTTOM)
            s["copying"] = (queries, top1, bottom)
            out[(l, h)] = s
    return out


def attainable(sequences):
    """(n - 1) / n and, per shift, the share of queries with a target, averaged over the sequences."""
    previous, by_shift = [], {sh: [] for sh in SHIFTS}
    for t in sequences:
        n = len(t)
        previous.append((n - 1) / n)
        for sh in SHIFTS:
            with_target = sum(1 for i in range(n) if any(t[e] == t[i] and 0 <= e + sh <= i for e in range(i)))
            by_shift[sh].append(with_target / n)
    return np.mean(previous), {sh: np.mean(v) for sh, v in by_shift.items()}


def main():
    document_path, model_dir = sys.argv[1], sys.argv[2]
    tolerance = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-9
    document = json.load(open(document_path))
    text = document["text"]
    sequences = text["tokens"]
    model = Model(model_dir)
    layers, heads = document["model"]["layers"], document["model"]["heads"]
    unembeddings = [[model.head_unembedding(l, h) for h in range(heads)] for l in range(layers)]
    per_sequence = [scores(model, t, unembeddings) for t in sequences]
    problems = []

    def check(what, got, want):
        if not abs(got - want) <= tolerance:
            problems.append(f"{what}: the document says {got!r}, the reference {want!r}")

    def statistics(values):
        values = np.asarray(values, dtype=float)
        return values.mean(), (values.std(ddof=1) if len(values) > 1 else 0.0)

    for entry in text["heads"]:
        l, h = entry["layer"], entry["head"]
        name = f"head {l}.{h}"
        runs = [s[(l, h)] for s in per_sequence]
        mean, spread = statistics([r["previous_token"] for r in runs])
        check(name + " previous_token", entry["previous_token"], mean)
        check(name + " previous_token spread", entry["spread"]["previous_token"], spread)
        for behaviour, shift in (("duplicate_token", 0), ("induction", 1)):
            mean, spread = statistics([r["by_shift"][SHIFTS.index(shift)] for r in runs])
            check(name + " " + behaviour, entry[behaviour], mean)
            check(name + " " + behaviour + " spread", entry["spread"][behaviour], spread)
        for m, sh in enumerate(SHIFTS):
            mean, spread = statistics([r["by_shift"][m] for r in runs])
            check(f"{name} repeat attention at shift {sh}", entry["repeat_attention_by_shift"][str(sh)]["mean"], mean)
            check(f"{name} repeat attention at shift {sh} spread", entry["repeat_attention_by_shift"][str(sh)]["spread"], spread)
        mean, spread = statistics([r["bos"] for r in runs])
        check(name + " bos", entry["bos"]["mean"], mean)
        check(name + " bos spread", entry["bos"]["spread"], spread)
        for k in range(LARGEST_OFFSET + 1):
            mean, spread = statistics([r["by_offset"][k] for r in runs])
            check(f"{name} offset {k}", entry["attention_by_offset"][k]["mean"], mean)
            check(f"{name} offset {k} spread", entry["attention_by_offset"][k]["spread"], spread)
        counts = tuple(sum(r["copying"][i] for r in runs) for i in range(3))
        copying = entry["copying"]
        if copying is None or (copying["queries"], copying["top1"], copying["bottom10"]) != counts:
            problems.append(f"{name} copying: the document says {copying}, the reference (queries, top1, bottom10) = {counts}")

    fraction = text["behaviour_fraction"]
    previous, by_shift = attainable(sequences)
    check("threshold previous_token", text["thresholds"]["previous_token"], fraction * previous)
    check("threshold duplicate_token", text["thresholds"]["duplicate_token"], fraction * by_shift[0])
    check("threshold induction", text["thresholds"]["induction"], fraction * by_shift[1])
    if len(text["heads"]) != layers * heads:
        problems.append(f"the document has {len(text['heads'])} heads on text, the model {layers * heads}")

    for p in problems:
        print("DIFFERENT:", p)
    lengths = sorted({len(t) for t in sequences})
    print(f"{document_path}: {len(text['heads'])} heads on {len(sequences)} sequences of {lengths} tokens ({text['input']}): "
          f"{'every score agrees with the reference' if not problems else f'{len(problems)} differences'} (tolerance {tolerance:g})")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
