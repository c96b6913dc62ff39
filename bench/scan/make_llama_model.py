"""A Llama-3-8B-shaped model with random weights, in bfloat16, for the scan's scale benchmark.

    make_llama_model.py DIR [SEED]      (LAYERS=N in the environment: N layers instead of 32;
                                         SHAPE=small: the same layout at a quarter of the width, below)

Writes DIR/model.safetensors and DIR/config.json in Hugging Face Llama names: D = 4,096, 32 query
heads and 8 key-value heads of d = 128 (GQA), an MLP of width 14,336 (SwiGLU), V = 128,256, an
untied lm_head, RoPE with theta = 500,000, a context of 8,192. Every weight matrix is N(0, 0.02^2)
from numpy's PCG64 seeded with SEED (default 0), the RMSNorm gains 1. Tensors are generated and
written a block of rows at a time, so the generator holds about 64 MB whatever the model's size:
2.1 GB for the embedding and lm_head together, plus 436 MB per layer (14.0 GB at 32 layers).

SHAPE=small is the same layout (GQA of 4 query heads per key-value head, d = 128, a SwiGLU MLP of
about 4 D, an untied lm_head) at a quarter of the width: D = 1,024, 8 query and 2 key-value heads, an
MLP of 4,096, V = 32,000, BOS 1; 1.2 GB at 32 layers, for benchmarks that run the whole 32-layer
scan several times (bench/scan/shards.sh).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from safetensors_writer import write_generated_model  # noqa: E402 (bench/, shared with the other generators)

SHAPES = {"8b": (4096, 32, 8, 128, 14336, 128256, 8192, 128000), "small": (1024, 8, 2, 128, 4096, 32000, 8192, 1)}
SHAPE = os.environ.get("SHAPE", "8b")
if SHAPE not in SHAPES:
    raise SystemExit(f"make_llama_model.py: SHAPE={SHAPE}: expected one of {', '.join(SHAPES)}")
WIDTH, HEADS, KV_HEADS, HEAD_DIM, MLP_WIDTH, VOCABULARY, CONTEXT, BOS = SHAPES[SHAPE]


def layer_count():
    text = os.environ.get("LAYERS", "32")
    if not text.isdigit() or not 1 <= int(text) <= 32:
        raise SystemExit(f"make_llama_model.py: LAYERS={text}: a whole number of layers from 1 to 32")
    return int(text)


def tensors(layers):
    """(name, shape, kind) in file order; kind as safetensors_writer.initial_weights reads it."""
    yield "model.embed_tokens.weight", (VOCABULARY, WIDTH), "normal"
    for layer in range(layers):
        p = f"model.layers.{layer}."
        yield p + "input_layernorm.weight", (WIDTH,), "ones"
        yield p + "self_attn.q_proj.weight", (HEADS * HEAD_DIM, WIDTH), "normal"
        yield p + "self_attn.k_proj.weight", (KV_HEADS * HEAD_DIM, WIDTH), "normal"
        yield p + "self_attn.v_proj.weight", (KV_HEADS * HEAD_DIM, WIDTH), "normal"
        yield p + "self_attn.o_proj.weight", (WIDTH, HEADS * HEAD_DIM), "normal"
        yield p + "post_attention_layernorm.weight", (WIDTH,), "ones"
        yield p + "mlp.gate_proj.weight", (MLP_WIDTH, WIDTH), "normal"
        yield p + "mlp.up_proj.weight", (MLP_WIDTH, WIDTH), "normal"
        yield p + "mlp.down_proj.weight", (WIDTH, MLP_WIDTH), "normal"
    yield "model.norm.weight", (WIDTH,), "ones"
    yield "lm_head.weight", (VOCABULARY, WIDTH), "normal"


def main():
    layers = layer_count()
    config = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": WIDTH, "intermediate_size": MLP_WIDTH,
              "num_attention_heads": HEADS, "num_key_value_heads": KV_HEADS, "head_dim": HEAD_DIM, "num_hidden_layers": layers,
              "vocab_size": VOCABULARY, "max_position_embeddings": CONTEXT, "rms_norm_eps": 1e-5, "rope_theta": 500000.0,
              "hidden_act": "silu", "tie_word_embeddings": False, "bos_token_id": BOS, "eos_token_id": BOS + 1, "torch_dtype": "bfloat16"}
    write_generated_model(sys.argv[1:], __doc__.split("\n\n")[1], lambda: tensors(layers), config, dtype="BF16")


if __name__ == "__main__":
    main()
