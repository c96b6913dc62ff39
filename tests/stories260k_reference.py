#!/usr/bin/env python3
"""Independent float64 numpy reference for stories260K's attention heads.

Reads ../shared/real_models/llama2c-stories260K/hf (config.json and model.safetensors) with
tests/forward_reference.py's numpy + json reader and runs its Llama forward pass (the project's
independent reference, written from the Hugging Face LlamaForCausalLM definition: RMSNorm,
rotate_half RoPE over every dim of a head, GQA, SwiGLU; here with the tied unembedding), not
qkov's. On it, for every head, the TransformerLens previous-token and induction scores
(detect_head with error_measure 'mul': sum(A * P) / sum(A) over the head's whole causal pattern A) on:

  * qkov detect's default sequences: 10 draws of [BOS] + r + r, |r| = 50, seed 0. The draw is
    written here from its specification (detect/repeated_tokens.hpp: a partial Fisher-Yates
    shuffle of the ids other than BOS, driven by std::mt19937_64 with a rejection-sampled bounded
    integer, both as bench/labels/numpy_labels.py implements them; std::mt19937_64 is fixed by
    the C++ standard, and its 10000th output from the default seed is checked below);
  * tests/detect_tests.cpp's detection (|r| = 20, 4 samples, seed 11);
  * tests/forward_tests.cpp's hand-written sequence.

The forward pass is checked first against the text llama2.c's authors published for greedy
decoding of stories260K (doc/stories260K.md), decoded with tok512.bin read here too.

Run: tests/stories260k_reference.py [SHARED_DIR]   (default ../shared)
"""
import json
import os
import struct
import sys
from pathlib import Path

import numpy as np

here = Path(__file__).resolve().parent
sys.path.insert(0, str(here))
sys.path.insert(0, str(here.parent / "bench" / "labels"))
from forward_reference import llama, read_safetensors  # noqa: E402 (the project's independent Llama pass)
from numpy_labels import MersenneTwister64, uniform_below  # noqa: E402 (std::mt19937_64 and detect's bounded draw)

PUBLISHED_OPENING = ("Once upon a time, there was a little girl named Lily. She loved to play outside in the park. One day, she saw a big, "
                     "red ball. She wanted to play with it, but it was too high.")
# forward_tests.cpp's sequence: BOS, 20 tokens, the same 20 again.
HAND_WRITTEN = [300, 41, 77, 412, 150, 9, 260, 333, 98, 201, 57, 480, 122, 19, 365, 240, 88, 171, 450, 63]


def repeated_random_tokens(length, vocabulary, bos, rng):
    """[bos] + r + r, r the first `length` ids of a partial Fisher-Yates shuffle of the ids other than bos."""
    pool = [t for t in range(vocabulary) if t != bos]
    for i in range(length):
        j = i + uniform_below(rng, len(pool) - i)
        pool[i], pool[j] = pool[j], pool[i]
    return [bos] + pool[:length] + pool[:length]


def check_generator():
    # [rand.predef]: "the 10000th consecutive invocation of a default-constructed object of type
    # mt19937_64 shall produce the value 9981545732273789042".
    rng = MersenneTwister64(5489)
    for _ in range(9999):
        rng()
    assert rng() == 9981545732273789042, "the mt19937_64 implementation is wrong"


class Model:
    """hf/'s weights and config, run by forward_reference.llama (float64, written from LlamaForCausalLM)."""

    def __init__(self, folder):
        self.c = json.loads((folder / "config.json").read_text())
        self.w = read_safetensors(folder / "model.safetensors")
        assert self.c["model_type"] == "llama" and self.c["hidden_act"] == "silu" and self.c["tie_word_embeddings"]
        assert self.c.get("rope_scaling") is None and "lm_head.weight" not in self.w

    def run(self, tokens):
        """Logits (n x V) and every layer's attention patterns (heads x n x n, row = query)."""
        patterns = []
        logits = llama(self.w, self.c, tokens, lambda layer, a: patterns.append(a))
        return logits, patterns


def read_tokenizer(path, vocabulary):
    """llama2.c's tok512.bin: int32 max_token_length, then per token a float32 score, an int32 length and its bytes."""
    raw = Path(path).read_bytes()
    at, pieces = 4, []
    for _ in range(vocabulary):
        length = struct.unpack_from("<i", raw, at + 4)[0]
        pieces.append(raw[at + 8:at + 8 + length])
        at += 8 + length
    return pieces


def decode(pieces, tokens):
    """As llama2.c's run.c: a leading space after BOS dropped, <0xHH> pieces as raw bytes."""
    out = b""
    for previous, t in zip(tokens, tokens[1:]):
        piece = pieces[t]
        if previous == 1 and piece.startswith(b" "):
            piece = piece[1:]
        if len(piece) == 6 and piece.startswith(b"<0x") and piece.endswith(b">"):
            piece = bytes([int(piece[3:5], 16)])
        out += piece
    return out.decode("utf-8", "replace")


def check_forward_pass(model, shared):
    tokens = [1]
    for _ in range(80):  # greedy, as forward_tests.cpp's greedy_story
        logits, _ = model.run(tokens)
        tokens.append(int(np.argmax(logits[-1])))
    text = decode(read_tokenizer(shared / "real_models/llama2c-stories260K/tok512.bin", model.c["vocab_size"]), tokens)
    assert text.startswith(PUBLISHED_OPENING), f"the numpy pass does not decode the published text:\n{text}"


def tl_scores(pattern, tokens):
    """TransformerLens 'mul' previous-token and induction scores of one n x n pattern."""
    n = len(tokens)
    previous = np.zeros((n, n))
    previous[np.arange(1, n), np.arange(n - 1)] = 1
    induction = np.zeros((n, n))
    for i in range(n):
        for j in range(i):
            if tokens[j] == tokens[i] and j + 1 <= i:
                induction[i, j + 1] = 1
    total = pattern.sum()
    return (pattern * previous).sum() / total, (pattern * induction).sum() / total


def detection(model, length, samples, seed, bos=1):
    """Per head (layer, head): the previous-token and induction scores of each of the samples."""
    rng = MersenneTwister64(seed)
    scores = {}
    for _ in range(samples):
        tokens = repeated_random_tokens(length, model.c["vocab_size"], bos, rng)
        _, patterns = model.run(tokens)
        for l, layer in enumerate(patterns):
            for h, a in enumerate(layer):
                scores.setdefault((l, h), []).append(tl_scores(a, tokens))
    return scores


def report_detection(title, scores, length):
    n = 2 * length + 1
    threshold = 0.5 * (n - 1) / n
    print(f"## {title}: previous-token threshold {threshold:.6f} (0.5 x the attainable (n - 1) / n)")
    print("head  previous_token mean  sample std (ddof 1)  induction mean")
    reaching = []
    for (l, h), values in sorted(scores.items()):
        previous = np.array([v[0] for v in values])
        induction = np.array([v[1] for v in values])
        spread = previous.std(ddof=1) if len(values) > 1 else 0.0
        print(f"{l}.{h}   {previous.mean():.6f}            {spread:.6f}             {induction.mean():.6f}")
        if previous.mean() >= threshold:
            reaching.append(f"{l}.{h}")
    print(f"heads whose mean previous-token score reaches the threshold: {len(reaching)}: {' '.join(reaching)}")
    print("the means as C++ rows, one per layer (previous-token, induction):")
    layers = sorted({l for l, _ in scores})
    for l in layers:
        heads = [np.mean(np.array(scores[(l, h)]), axis=0) for h in sorted(h for k, h in scores if k == l)]
        print("    {" + ", ".join(f"{{{float(p)!r}, {float(i)!r}}}" for p, i in heads) + "},")
    print()


def main():
    shared = Path(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("QKOV_SHARED_DIR", "../shared"))
    check_generator()
    model = Model(shared / "real_models/llama2c-stories260K/hf")
    check_forward_pass(model, shared)
    print("the numpy pass decodes llama2.c's published opening; mt19937_64 gives the standard's 10000th value\n")

    report_detection("qkov detect's default sequences (|r| = 50, 10 samples, seed 0, BOS 1)", detection(model, 50, 10, 0), 50)
    report_detection("detect_tests.cpp's detection (|r| = 20, 4 samples, seed 11, BOS 1)", detection(model, 20, 4, 11), 20)

    tokens = [1] + HAND_WRITTEN + HAND_WRITTEN
    _, patterns = model.run(tokens)
    print("## forward_tests.cpp's hand-written sequence: per head (previous-token, induction), as C++ rows, one per layer")
    for layer in patterns:
        print("    {" + ", ".join(f"{{{float(p)!r}, {float(i)!r}}}" for p, i in (tl_scores(a, tokens) for a in layer)) + "},")


if __name__ == "__main__":
    main()
