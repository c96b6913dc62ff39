"""qkov.forward against the independent float64 numpy forward pass of tests/forward_reference.py
(the reference tests/forward_tests.cpp holds the C++ pass to), and its patterns."""
import json

import numpy as np
import pytest

import qkov
from conftest import fixture_model, read_safetensors, reference, shared_or_skip


@pytest.mark.parametrize("name", ["gpt2", "gpt_neox", "llama"])
def test_logits_equal_the_independent_reference(name):
    path = fixture_model(name)
    config = json.loads((path / "config.json").read_text())
    want = getattr(reference, name)(read_safetensors(path / "model.safetensors"), config)
    model = qkov.open_model(str(path))
    for dtype, tolerance in (("float64", 1e-9), ("float32", 1e-5)):
        logits = qkov.forward(model, reference.TOKENS, dtype=dtype)
        assert logits.dtype == np.dtype(dtype) and logits.shape == (len(reference.TOKENS), model.d_vocab)
        assert np.abs(logits.astype(np.float64) - want).max() < tolerance, f"{name} in {dtype}"


def test_patterns_kept_and_streamed_are_the_same_causal_distributions():
    model = qkov.open_model(str(fixture_model("llama")))
    tokens = np.array(reference.TOKENS, dtype=np.int64)
    logits, patterns = qkov.forward(model, tokens, dtype="float64", patterns=True)
    n = len(tokens)
    assert patterns.shape == (model.n_layers, model.n_heads, n, n)
    np.testing.assert_allclose(patterns.sum(axis=-1), 1, rtol=0, atol=1e-12)  # row = query
    assert (patterns[..., np.triu_indices(n, 1)[0], np.triu_indices(n, 1)[1]] == 0).all()  # no key after its query
    seen = []
    streamed = qkov.forward(model, tokens, dtype="float64", on_pattern=lambda l, h, p: seen.append((l, h, p.copy())))
    np.testing.assert_array_equal(streamed, logits)
    assert [(l, h) for l, h, _ in seen] == [(l, h) for l in range(model.n_layers) for h in range(model.n_heads)]
    for l, h, p in seen:
        np.testing.assert_array_equal(p, patterns[l, h])


def test_an_exception_in_the_callback_reaches_the_caller():
    model = qkov.open_model(str(fixture_model("gpt2")))

    def fail(layer, head, pattern):
        raise KeyError(f"stop at {layer}.{head}")

    with pytest.raises(KeyError, match="stop at 0.0"):
        qkov.forward(model, [1, 2, 3], on_pattern=fail)


def test_bad_tokens_and_a_model_the_pass_refuses():
    model = qkov.open_model(str(fixture_model("gpt2")))
    with pytest.raises(IndexError, match="token 512 at position 1 is outside the vocabulary of 512"):
        qkov.forward(model, [1, 512])
    with pytest.raises(ValueError, match="token -1 at position 0 is not a token id"):
        qkov.forward(model, [-1])
    with pytest.raises(ValueError, match="one-dimensional"):
        qkov.forward(model, [[1, 2]])
    with pytest.raises(ValueError, match="at least one token"):
        qkov.forward(model, np.array([], dtype=np.int64))
    with pytest.raises(ValueError, match="129 tokens, but the model has learned positions for 128"):
        qkov.forward(model, np.zeros(129, dtype=np.int64))
    with pytest.raises(ValueError, match="dtype 'bfloat16'"):
        qkov.forward(model, [1], dtype="bfloat16")
    attention_only = shared_or_skip("real_models/gpt2-small-attention")
    with pytest.raises(qkov.ModelFileError, match="lacks wte.weight.*needed by the forward pass"):
        qkov.forward(str(attention_only), [1, 2])
