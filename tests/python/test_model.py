"""qkov.Model's weights against the safetensors file read directly with numpy, in TransformerLens'
layout: GPT-2's Conv1D (stored [in, out]: W_Q is a column block), GPT-NeoX's fused rows per head,
Llama's nn.Linear rows with GQA's key/value heads; and its config against `qkov inspect --json`."""
import json

import numpy as np
import pytest

import qkov
from conftest import fixture_model, read_safetensors, run_cli, stories_hf, tensor


def expected_layer(w, family, layer, D, H, Hkv, d):
    """W_Q, W_K, W_V, W_O, b_Q, b_K, b_V, b_O of one layer from the file, in TransformerLens' layout."""
    heads, kv = range(H), range(Hkv)
    if family == "gpt2":
        p = f"h.{layer}.attn."
        qkv, bias, proj = tensor(w, p + "c_attn.weight"), tensor(w, p + "c_attn.bias"), tensor(w, p + "c_proj.weight")
        block = lambda part, h: qkv[:, part * D + h * d:part * D + (h + 1) * d]  # Conv1D: x W, columns [q | k | v]
        bias_of = lambda part, h: bias[part * D + h * d:part * D + (h + 1) * d]
        return ([block(0, h) for h in heads], [block(1, h) for h in heads], [block(2, h) for h in heads],
                [proj[h * d:(h + 1) * d, :] for h in heads],
                [bias_of(0, h) for h in heads], [bias_of(1, h) for h in heads], [bias_of(2, h) for h in heads],
                tensor(w, p + "c_proj.bias"))
    if family == "gpt_neox":
        p = f"layers.{layer}.attention."
        qkv, bias, dense = tensor(w, p + "query_key_value.weight"), tensor(w, p + "query_key_value.bias"), tensor(w, p + "dense.weight")
        rows = lambda part, h: slice(3 * h * d + part * d, 3 * h * d + (part + 1) * d)  # [head][q, k, v][d]
        return ([qkv[rows(0, h)].T for h in heads], [qkv[rows(1, h)].T for h in heads], [qkv[rows(2, h)].T for h in heads],
                [dense[:, h * d:(h + 1) * d].T for h in heads],
                [bias[rows(0, h)] for h in heads], [bias[rows(1, h)] for h in heads], [bias[rows(2, h)] for h in heads],
                tensor(w, p + "dense.bias"))
    p = f"layers.{layer}.self_attn."
    q, k, v, o = (tensor(w, p + f"{n}_proj.weight") for n in "qkvo")
    return ([q[h * d:(h + 1) * d].T for h in heads], [k[j * d:(j + 1) * d].T for j in kv], [v[j * d:(j + 1) * d].T for j in kv],
            [o[:, h * d:(h + 1) * d].T for h in heads], None, None, None, None)


MODELS = ["gpt2", "gpt_neox", "llama", "llama_bf16"]


def open_case(name):
    path = stories_hf() if name == "stories260K" else fixture_model(name)
    return qkov.open_model(path), read_safetensors(next(path.glob("*.safetensors"))), json.loads((path / "config.json").read_text())


@pytest.mark.parametrize("name", MODELS + ["stories260K"])
def test_weights_are_the_files_slices_in_transformer_lens_layout(name):
    model, w, _ = open_case(name)
    family = model.config["family"]
    D, H, Hkv, d = model.d_model, model.n_heads, model.n_kv_heads, model.d_head
    assert model.n_layers > 0
    for layer in range(model.n_layers):
        want = expected_layer(w, family, layer, D, H, Hkv, d)
        assert len(want) == 8  # zip below pairs all eight weights, none dropped
        got = (model.W_Q(layer), model.W_K(layer), model.W_V(layer), model.W_O(layer),
               model.b_Q(layer), model.b_K(layer), model.b_V(layer), model.b_O(layer))
        shapes = [(H, D, d), (Hkv, D, d), (Hkv, D, d), (H, d, D), (H, d), (Hkv, d), (Hkv, d), (D,)]
        for what, g, e, shape in zip(["W_Q", "W_K", "W_V", "W_O", "b_Q", "b_K", "b_V", "b_O"], got, want, shapes):
            if e is None:
                assert g is None, f"{name} layer {layer}: {what} should be None (no bias in the file)"
                continue
            assert g.shape == shape, f"{name} layer {layer}: {what} has shape {g.shape}"
            assert g.dtype == np.float64
            np.testing.assert_array_equal(g, np.stack(e) if isinstance(e, list) else e, err_msg=f"{name} layer {layer}: {what}")


@pytest.mark.parametrize("name", MODELS + ["stories260K"])
def test_embeddings_in_transformer_lens_layout(name):
    model, w, config = open_case(name)
    embedding = tensor(w, "wte.weight", "embed_in.weight", "embed_tokens.weight")
    np.testing.assert_array_equal(model.W_E, embedding)
    assert model.W_E.shape == (model.d_vocab, model.d_model)
    try:
        unembedding = tensor(w, "lm_head.weight", "embed_out.weight")
    except KeyError:
        unembedding = embedding  # tied
    np.testing.assert_array_equal(model.W_U, unembedding.T)  # logits = x W_U
    if model.config["family"] == "gpt2":
        np.testing.assert_array_equal(model.W_pos, tensor(w, "wpe.weight"))
        assert model.W_pos.shape == (config["n_positions"], model.d_model)
    else:
        assert model.W_pos is None


def test_gqa_maps_each_query_head_to_its_key_value_head():
    model, w, _ = open_case("llama")
    assert (model.n_heads, model.n_kv_heads) == (4, 2)
    assert [model.kv_head_of(h) for h in range(4)] == [0, 0, 1, 1]
    d = model.d_head
    k = tensor(w, "layers.1.self_attn.k_proj.weight")
    # Query head 3 reads kv head 1: rows d..2d of k_proj.
    np.testing.assert_array_equal(model.W_K(1)[model.kv_head_of(3)], k[d:2 * d].T)
    with pytest.raises(IndexError, match="head 4 of a model with 4 heads"):
        model.kv_head_of(4)


@pytest.mark.parametrize("name", MODELS)
def test_config_is_the_summary_qkov_inspect_writes(name, tmp_path):
    model, _, _ = open_case(name)
    run_cli("inspect", model.path, "--json", tmp_path / "inspect.json")
    inspected = json.loads((tmp_path / "inspect.json").read_text())
    del inspected["per_layer"], inspected["schema"]  # the per-layer norms read every layer; not part of .config
    assert model.config == inspected
    c = model.config
    assert (model.n_layers, model.n_heads, model.n_kv_heads, model.d_model, model.d_head, model.d_vocab) == (
        c["layers"], c["heads"], c["kv_heads"], c["hidden_size"], c["head_dim"], c["vocab_size"])
    assert model.rope == c["rope"]
    assert (model.rope is None) == (name == "gpt2")
