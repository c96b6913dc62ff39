"""The weight metrics of `qkov scan` on a GPT-2 safetensors file, vectorised with numpy, float64.

    numpy_scan.py FILE.safetensors CHECKSUM.json     scan; prints the seconds spent after the imports
    numpy_scan.py --compare QKOV.json CHECKSUM.json  qkov's `scan --json` output against that checksum

Reads the file's bytes (json header, np.frombuffer, GPT-2's Conv1D layout: c_attn [D, 3D] with
columns [q | k | v], c_proj [D, D] with rows by head) and config.json beside it. Per layer, batched
over its heads with np.linalg (column convention of qkov: W_q, W_k, W_v are d x D, W_o is D x d):
  - R of the thin QRs of W_q^T, W_k^T, W_v^T and W_o (mode 'r': only R is needed below);
  - rank and condition number of W_q, W_k from the singular values of R (numpy's default rank
    tolerance max(D, d) * eps * sigma_max; the condition number only at full rank);
  - QK and OV singular values from the d x d cores R_q R_k^T and R_o R_v^T, whose Frobenius
    norms are the circuits' norms;
  - ||W_o W_v - I||_F from ||OV||_F^2 - 2 trace(W_v W_o) + D;
  - with a token embedding: G = W_E^T W_U once (W_E^T W_E when tied), then the eigenvalues of
    the d x d cyclic product W_v G W_o, score Re(sum lambda) / sum |lambda|;
  - for every head pair in different layers, one product per layer pair of the later layer's
    stack [R_k W_q; R_q W_k; W_v] (3Hd x D) with the earlier layer's W_o side by side (D x Hd);
    its d x d blocks times R_v^T of the source are the Q and K cores, R_o of the target times
    the V block's core is the V core (TransformerLens' scores, composition.hpp); the V blocks
    W_v W_o themselves give claim T3's singular values.
What is not computed here: the reconstruction residuals, the labels and their structure tests,
the stated facts and the JSON report; qkov's side does strictly more work.

The checksum is a set of weighted sums (weight 1 + position mod 7, so that values swapped between
heads change it) of every rank, condition number, spectrum, distance, copying score, composition
score and T3 spectrum; --compare computes the same sums from qkov's JSON and fails unless each
agrees to 1e-9 relative to the weighted sum of its absolute values.
"""
import json
import os
import struct
import sys
import time

import numpy as np

TOLERANCE = 1e-9


def weighted(x):
    """(sum w x, sum w |x|) over the finite entries of x, w = 1 + flat position mod 7."""
    x = np.asarray(x, dtype=np.float64).ravel()
    w = 1.0 + np.arange(x.size) % 7
    keep = np.isfinite(x)
    return float(np.sum(w[keep] * x[keep])), float(np.sum(w[keep] * np.abs(x[keep])))


def checksum(a):
    """The sums compared between numpy and qkov, from arrays indexed [layer, head, ...] (heads) and
    [source layer, source head, target layer, target head, ...] (composition, NaN where none)."""
    out = {"ranks": int(np.sum(a["rank_q"]) + np.sum(a["rank_k"]))}
    for name in ("cond_q", "cond_k", "qk_singular_values", "ov_singular_values", "ov_identity_distance", "copying_score", "q", "k", "v",
                 "t3_singular_values"):
        out[name] = weighted(a[name])
    return out


def empty_arrays(L, H, d):
    heads = {n: np.full((L, H), np.nan) for n in ("cond_q", "cond_k", "ov_identity_distance", "copying_score")}
    heads.update({n: np.zeros((L, H), dtype=np.int64) for n in ("rank_q", "rank_k")})
    heads.update({n: np.full((L, H, d), np.nan) for n in ("qk_singular_values", "ov_singular_values")})
    heads.update({n: np.full((L, H, L, H), np.nan) for n in ("q", "k", "v")})
    heads["t3_singular_values"] = np.full((L, H, L, H, d), np.nan)
    return heads


def ratio(norms, a, b):
    """||W_A W_B||_F / (||W_A||_F ||W_B||_F), 0 where either norm is 0 (as composition.hpp)."""
    denominator = a * b
    return np.where(denominator == 0, 0.0, norms / np.where(denominator == 0, 1.0, denominator))


def open_gpt2(path):
    """(header, tensor, config) of a GPT-2 safetensors file: tensor(name) is the named tensor as
    float64, with or without the "transformer." prefix; config is config.json beside the file."""
    with open(path, "rb") as f:
        data = f.read()
    (header_length,) = struct.unpack_from("<Q", data, 0)
    header = json.loads(data[8:8 + header_length])
    base = 8 + header_length
    dtypes = {"F32": "<f4", "F64": "<f8", "F16": "<f2"}

    def tensor(name):
        entry = header.get(name) or header.get("transformer." + name)
        if entry is None:
            raise SystemExit(f"numpy_scan: {path} has no tensor {name} (a GPT-2 layout file is expected)")
        begin, _ = entry["data_offsets"]
        array = np.frombuffer(data, dtype=dtypes[entry["dtype"]], count=int(np.prod(entry["shape"])), offset=base + begin)
        return array.reshape(entry["shape"]).astype(np.float64)

    config = json.load(open(path.rsplit("/", 1)[0] + "/config.json"))
    if config.get("model_type") != "gpt2":
        raise SystemExit(f"numpy_scan: config.json says model_type {config.get('model_type')!r}, only gpt2 is read here")
    return header, tensor, config


def scan(path):
    header, tensor, config = open_gpt2(path)
    D, H, L = config["n_embd"], config["n_head"], config["n_layer"]
    d = D // H
    a = empty_arrays(L, H, d)
    tokens = None
    if "wte.weight" in header or "transformer.wte.weight" in header:
        embedding = tensor("wte.weight")
        if "lm_head.weight" in header:
            tokens = embedding.T @ tensor("lm_head.weight")
        elif config.get("tie_word_embeddings", True):
            tokens = embedding.T @ embedding
        del embedding
    eps = np.finfo(np.float64).eps
    earlier = []  # per scanned layer: (layer, W_o side by side D x Hd, R_v (H, d, d), ||OV||_F (H,))
    for layer in range(L):
        qkv = tensor(f"h.{layer}.attn.c_attn.weight")
        proj = tensor(f"h.{layer}.attn.c_proj.weight")
        # (H, D, d) stacks of W_q^T, W_k^T, W_v^T and W_o.
        wq_t, wk_t, wv_t = (np.ascontiguousarray(qkv[:, m * D:(m + 1) * D].reshape(D, H, d).transpose(1, 0, 2)) for m in range(3))
        w_o = np.ascontiguousarray(proj.reshape(H, d, D).transpose(0, 2, 1))
        r = np.linalg.qr(np.concatenate([wq_t, wk_t, wv_t, w_o]), mode="r")
        r_q, r_k, r_v, r_o = r[:H], r[H:2 * H], r[2 * H:3 * H], r[3 * H:]
        sq = np.linalg.svd(r_q, compute_uv=False)
        sk = np.linalg.svd(r_k, compute_uv=False)
        for s, rank, cond in ((sq, "rank_q", "cond_q"), (sk, "rank_k", "cond_k")):
            a[rank][layer] = np.sum(s > max(D, d) * eps * s[:, :1], axis=1)
            a[cond][layer] = np.where(a[rank][layer] == d, s[:, 0] / s[:, -1], np.nan)
        qk_core = r_q @ r_k.transpose(0, 2, 1)
        ov_core = r_o @ r_v.transpose(0, 2, 1)
        a["qk_singular_values"][layer] = np.linalg.svd(qk_core, compute_uv=False)
        a["ov_singular_values"][layer] = np.linalg.svd(ov_core, compute_uv=False)
        qk_norm = np.sqrt(np.einsum("hij,hij->h", qk_core, qk_core))
        ov_norm = np.sqrt(np.einsum("hij,hij->h", ov_core, ov_core))
        trace = np.einsum("hij,hij->h", wv_t, w_o)  # trace(W_v W_o)
        a["ov_identity_distance"][layer] = np.sqrt(np.maximum(0.0, ov_norm ** 2 - 2 * trace + D))
        if tokens is not None:
            cyclic = wv_t.transpose(0, 2, 1) @ tokens @ w_o
            lam = np.linalg.eigvals(cyclic)
            magnitude = np.sum(np.abs(lam), axis=1)
            a["copying_score"][layer] = np.where(magnitude == 0, np.nan, np.sum(lam.real, axis=1) / np.where(magnitude == 0, 1.0, magnitude))
        reads = np.concatenate([r_k @ wq_t.transpose(0, 2, 1), r_q @ wk_t.transpose(0, 2, 1), wv_t.transpose(0, 2, 1)]).reshape(3 * H * d, D)
        for source_layer, writes, source_r_v, source_ov in earlier:
            blocks = (reads @ writes).reshape(3, H, d, H, d).transpose(0, 1, 3, 2, 4)  # [mode, target, source]
            cores = blocks @ source_r_v.transpose(0, 2, 1)
            frobenius = lambda m: np.sqrt(np.einsum("tsij,tsij->ts", m, m))
            a["q"][source_layer, :, layer, :] = ratio(frobenius(cores[0]), qk_norm[:, None], source_ov[None, :]).T
            a["k"][source_layer, :, layer, :] = ratio(frobenius(cores[1]), qk_norm[:, None], source_ov[None, :]).T
            a["v"][source_layer, :, layer, :] = ratio(frobenius(r_o[:, None] @ cores[2]), ov_norm[:, None], source_ov[None, :]).T
            a["t3_singular_values"][source_layer, :, layer, :] = np.linalg.svd(blocks[2], compute_uv=False).transpose(1, 0, 2)
        earlier.append((layer, w_o.transpose(1, 0, 2).reshape(D, H * d), r_v, ov_norm))
    return checksum(a)


def from_qkov_json(path):
    """The same arrays from `qkov scan --json` output."""
    j = json.load(open(path))
    m = j["model"]
    L, H, d = m["layers"], m["heads"], m["head_dim"]
    a = empty_arrays(L, H, d)
    for h in j["heads"]:
        at = (h["layer"], h["head"])
        for name in ("rank_q", "rank_k", "qk_singular_values", "ov_singular_values", "ov_identity_distance"):
            a[name][at] = h[name]
        for name in ("cond_q", "cond_k", "copying_score"):
            a[name][at] = np.nan if h[name] is None else h[name]
    # The pairs' numbers are tensors in the safetensors file the document names, beside it.
    tensors = os.path.join(os.path.dirname(path), j["composition"]["tensors"])
    with open(tensors, "rb") as f:
        data = f.read()
    length = int.from_bytes(data[:8], "little")
    for key, entry in json.loads(data[8:8 + length]).items():
        begin, end = entry["data_offsets"]
        values = np.frombuffer(data, "<f8", (end - begin) // 8, 8 + length + begin).reshape(entry["shape"])
        a[key.removesuffix("_composition")] = values
    return checksum(a)


def compare(qkov_json, numpy_checksum):
    q, n = from_qkov_json(qkov_json), json.load(open(numpy_checksum))
    failed = []
    for name in n:
        if name == "ranks":
            ok = q[name] == n[name]
            print(f"  {name}: qkov {q[name]} numpy {n[name]}")
        else:
            (qs, qa), (ns, na) = q[name], n[name]
            difference = abs(qs - ns)
            ok = difference <= TOLERANCE * max(qa, na) and (qa == 0) == (na == 0)
            relative = difference / max(qa, na) if max(qa, na) else 0.0
            print(f"  {name}: qkov {qs:.17g} numpy {ns:.17g} (relative {relative:.2g})")
        if not ok:
            failed.append(name)
    if failed:
        raise SystemExit(f"numpy_scan: qkov and numpy differ beyond {TOLERANCE:g} relative in: {', '.join(failed)}")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--compare":
        compare(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3:
        start = time.perf_counter()
        result = scan(sys.argv[1])
        seconds = time.perf_counter() - start
        with open(sys.argv[2], "w") as f:
            json.dump(result, f)
        print(f"{seconds:.6f}")
    else:
        raise SystemExit(__doc__.split("\n\n")[1])
