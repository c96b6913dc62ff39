"""A GPT-2-small-shaped attention model with embeddings, random weights, for the scan benchmark.

    make_model.py DIR [SEED]

Writes DIR/model.safetensors and DIR/config.json: 12 layers of 12 heads, D = 768, V = 50,257,
1,024 positions, float32, in GPT-2's names and Conv1D layout (wte, wpe, h.L.ln_1, h.L.attn.c_attn
[D, 3D], h.L.attn.c_proj [D, D]); every weight matrix N(0, 0.02^2) from numpy's PCG64 seeded with
SEED (default 0), biases 0 and layer-norm gains 1 as GPT-2 starts training; the embedding is tied
(no lm_head), so the copying score reads W_E^T W_E. No MLP: the scan reads attention only.
About 270 MB (wte is 154 MB of it). Tensors are generated and written one at a time.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from safetensors_writer import write_generated_model  # noqa: E402 (bench/, shared with bench/forward)

LAYERS, HEADS, WIDTH, VOCABULARY, POSITIONS = 12, 12, 768, 50257, 1024


def tensors():
    """(name, shape, kind) in file order; kind "normal", "ones" or "zeros"."""
    yield "wte.weight", (VOCABULARY, WIDTH), "normal"
    yield "wpe.weight", (POSITIONS, WIDTH), "normal"
    for layer in range(LAYERS):
        p = f"h.{layer}."
        yield p + "ln_1.weight", (WIDTH,), "ones"
        yield p + "ln_1.bias", (WIDTH,), "zeros"
        yield p + "attn.c_attn.weight", (WIDTH, 3 * WIDTH), "normal"
        yield p + "attn.c_attn.bias", (3 * WIDTH,), "zeros"
        yield p + "attn.c_proj.weight", (WIDTH, WIDTH), "normal"
        yield p + "attn.c_proj.bias", (WIDTH,), "zeros"


def main():
    config = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_embd": WIDTH, "n_head": HEADS, "n_layer": LAYERS,
              "n_positions": POSITIONS, "n_ctx": POSITIONS, "vocab_size": VOCABULARY, "layer_norm_epsilon": 1e-5, "tie_word_embeddings": True}
    write_generated_model(sys.argv[1:], __doc__.split("\n\n")[1], tensors, config)


if __name__ == "__main__":
    main()
