"""A GPT-2-small-shaped language model with random weights, for the forward-pass benchmark.

    make_model.py DIR [SEED]

Writes DIR/model.safetensors and DIR/config.json: 12 layers of 12 heads, D = 768, MLP width
3,072, V = 50,257, 1,024 learned positions, LayerNorm, gelu_new, tied embedding (no lm_head),
float32, in the names and Conv1D layouts ([in, out]) of Hugging Face's GPT2LMHeadModel
(transformer.wte, transformer.wpe, transformer.h.L.{ln_1, attn.c_attn, attn.c_proj, ln_2,
mlp.c_fc, mlp.c_proj}, transformer.ln_f), as ../shared/fixtures/models/gpt2 has them.
Weights and biases are N(0, 0.02^2) (numpy's PCG64 seeded with SEED, default 0, drawn in file
order): small enough that the softmaxes are not degenerate; the biases are random rather than 0
so that a pass which dropped one would not agree with the reference. Layer-norm gains are 1.
About 500 MB; tensors are generated and written one at a time.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from safetensors_writer import write_generated_model  # noqa: E402 (bench/, shared with bench/scan)

LAYERS, HEADS, WIDTH, MLP_WIDTH, VOCABULARY, POSITIONS = 12, 12, 768, 3072, 50257, 1024


def tensors():
    """(name, shape, kind) in file order; kind as safetensors_writer.initial_weights reads it."""
    yield "transformer.wte.weight", (VOCABULARY, WIDTH), "normal"
    yield "transformer.wpe.weight", (POSITIONS, WIDTH), "normal"
    for layer in range(LAYERS):
        p = f"transformer.h.{layer}."
        yield p + "ln_1.weight", (WIDTH,), "ones"
        yield p + "ln_1.bias", (WIDTH,), "normal"
        yield p + "attn.c_attn.weight", (WIDTH, 3 * WIDTH), "normal"
        yield p + "attn.c_attn.bias", (3 * WIDTH,), "normal"
        yield p + "attn.c_proj.weight", (WIDTH, WIDTH), "normal"
        yield p + "attn.c_proj.bias", (WIDTH,), "normal"
        yield p + "ln_2.weight", (WIDTH,), "ones"
        yield p + "ln_2.bias", (WIDTH,), "normal"
        yield p + "mlp.c_fc.weight", (WIDTH, MLP_WIDTH), "normal"
        yield p + "mlp.c_fc.bias", (MLP_WIDTH,), "normal"
        yield p + "mlp.c_proj.weight", (MLP_WIDTH, WIDTH), "normal"
        yield p + "mlp.c_proj.bias", (WIDTH,), "normal"
    yield "transformer.ln_f.weight", (WIDTH,), "ones"
    yield "transformer.ln_f.bias", (WIDTH,), "normal"


def main():
    config = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "activation_function": "gelu_new", "n_embd": WIDTH,
              "n_head": HEADS, "n_layer": LAYERS, "n_inner": MLP_WIDTH, "n_positions": POSITIONS, "n_ctx": POSITIONS,
              "vocab_size": VOCABULARY, "layer_norm_epsilon": 1e-5, "tie_word_embeddings": True, "dtype": "float32"}
    write_generated_model(sys.argv[1:], __doc__.split("\n\n")[1], tensors, config)


if __name__ == "__main__":
    main()
