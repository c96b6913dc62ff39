"""What qkov does not model is refused from Python as from the tool (docs/unmodelled.md): a model
whose attention qkov's formula does not describe never reaches a scan that would certify with it."""
import json
import shutil
import struct

import pytest

import qkov
from conftest import fixture_model


def llama_with(tmp_path, config_changes=None, extra_tensor=None):
    """The llama fixture with config.json keys changed and, optionally, one more float32 tensor
    appended to its safetensors file (name, length)."""
    source = fixture_model("llama")
    config = json.loads((source / "config.json").read_text())
    config.update(config_changes or {})
    (tmp_path / "config.json").write_text(json.dumps(config))
    if extra_tensor is None:
        shutil.copy(source / "model.safetensors", tmp_path / "model.safetensors")
        return tmp_path
    raw = (source / "model.safetensors").read_bytes()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    name, length = extra_tensor
    header[name] = {"dtype": "F32", "shape": [length], "data_offsets": [len(data), len(data) + 4 * length]}
    text = json.dumps(header).encode()
    (tmp_path / "model.safetensors").write_bytes(struct.pack("<Q", len(text)) + text + data + struct.pack(f"<{length}f", *([1.0] * length)))
    return tmp_path


def test_qk_norm_tensors_are_refused_by_name(tmp_path):
    model = llama_with(tmp_path, extra_tensor=("model.layers.0.self_attn.q_norm.weight", 32))
    for call in (qkov.open_model, qkov.scan, qkov.detect):
        with pytest.raises(qkov.ModelFileError, match="q_norm.weight': not modelled .*QK-norm"):
            call(str(model))


def test_settings_that_change_the_scores_are_refused_by_name(tmp_path):
    cases = {"softcap": ({"attn_logit_softcapping": 50.0}, '"attn_logit_softcapping" is 50.0: it soft-caps'),
             "scale": ({"query_pre_attn_scalar": 36}, "query_pre_attn_scalar"),
             "gemma2": ({"model_type": "gemma2"}, 'model_type "gemma2" is not modelled'),
             "yarn": ({"rope_parameters": {"rope_type": "yarn", "factor": 4.0, "rope_theta": 10000.0}}, 'RoPE scaling "yarn" is not modelled')}
    for name, (changes, message) in cases.items():
        (tmp_path / name).mkdir()
        model = llama_with(tmp_path / name, changes)
        with pytest.raises(qkov.ModelFileError, match=message):
            qkov.open_model(str(model))
        with pytest.raises(qkov.ModelFileError, match=message):
            qkov.scan(str(model))


def test_a_sliding_window_shorter_than_the_sequences_is_refused(tmp_path):
    narrow = tmp_path / "narrow"
    narrow.mkdir()
    llama_with(narrow, {"model_type": "mistral", "sliding_window": 8})
    with pytest.raises(ValueError, match="proxy sequence has 51 positions, but layer 0 attends only to the latest 8"):
        qkov.scan(str(narrow))
    with pytest.raises(ValueError, match="attends only to the latest 8"):
        qkov.detect(str(narrow))
    # A window the sequences fit changes nothing.
    wide = tmp_path / "wide"
    wide.mkdir()
    llama_with(wide, {"model_type": "mistral", "sliding_window": 128})
    assert qkov.open_model(str(wide)).config["attention_windows"] == [128, 128]
    assert [h["labels"] for h in qkov.scan(str(wide)).document["heads"]] == [h["labels"] for h in qkov.scan(str(fixture_model("llama"))).document["heads"]]
