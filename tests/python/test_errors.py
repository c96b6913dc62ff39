"""Bad input raises a named Python exception with qkov's message, and never takes the interpreter
down: a missing file, a pickle, a NaN weight, a layer outside the model."""
import json
import os
import shutil
import struct

import pytest

import qkov
from conftest import fixture_model


def test_a_missing_file(tmp_path):
    with pytest.raises(qkov.ModelFileError, match="no-such-model: no such file or directory"):
        qkov.open_model(tmp_path / "no-such-model")
    with pytest.raises(qkov.ModelFileError, match="no such file or directory"):
        qkov.scan(str(tmp_path / "no-such-model"))


def test_pickles_are_refused(tmp_path):
    shutil.copy(fixture_model("gpt2") / "config.json", tmp_path / "config.json")
    # A PyTorch checkpoint: a zip archive (its first bytes are the local file header's signature).
    (tmp_path / "pytorch_model.bin").write_bytes(b"PK\x03\x04" + bytes(60))
    with pytest.raises(qkov.ModelFileError, match="pickle"):
        qkov.open_model(tmp_path)
    with pytest.raises(qkov.ModelFileError, match="pickle"):
        qkov.open_model(tmp_path / "pytorch_model.bin")


def nan_model(tmp_path):
    """The GPT-2 fixture with one weight of layer 0's c_attn set to NaN."""
    source = fixture_model("gpt2")
    shutil.copy(source / "config.json", tmp_path / "config.json")
    raw = bytearray((source / "model.safetensors").read_bytes())
    n = struct.unpack("<Q", raw[:8])[0]
    entry = json.loads(raw[8:8 + n])["transformer.h.0.attn.c_attn.weight"]
    assert entry["dtype"] == "F32"
    offset = 8 + n + entry["data_offsets"][0] + 4 * 5  # row 0, column 5: W_Q of head 0
    raw[offset:offset + 4] = struct.pack("<f", float("nan"))
    (tmp_path / "model.safetensors").write_bytes(bytes(raw))
    return tmp_path


def test_a_nan_weight_raises_wherever_it_is_read(tmp_path):
    model = qkov.open_model(nan_model(tmp_path))  # layers are read (and checked) when asked for
    with pytest.raises(qkov.ModelFileError, match="h.0.attn.c_attn.weight.*NaN"):
        model.W_Q(0)
    model.W_Q(1)  # the other layer is clean
    with pytest.raises(qkov.ModelFileError, match="NaN"):
        qkov.scan(model)
    with pytest.raises(qkov.ModelFileError, match="NaN"):
        qkov.forward(model, [1, 2, 3])
    with pytest.raises(qkov.ModelFileError, match="NaN"):
        qkov.detect(model, samples=1, length=5)


def test_a_layer_outside_the_model():
    model = qkov.open_model(fixture_model("gpt2"))
    for read in (model.W_Q, model.W_K, model.W_V, model.W_O, model.b_Q, model.b_O):
        with pytest.raises(IndexError, match="layer 2 of a model with 2"):
            read(2)
    with pytest.raises(TypeError):
        model.W_Q(-1)  # not an index at all


def test_the_model_file_error_is_its_own_type():
    assert issubclass(qkov.ModelFileError, Exception)
    assert not issubclass(qkov.ModelFileError, ValueError)  # a bad file is not a bad option


def test_arguments_outside_what_the_library_takes_are_value_errors(tmp_path):
    """Integers past 64 bits, paths given as bytes or as something else, a directory of token ids:
    each a ValueError naming the argument (never pybind11's TypeError, never a file named b'...')."""
    path = str(fixture_model("llama"))
    with pytest.raises(ValueError, match=r"threads 1180591620717411303424: expected an integer in 1\.\."):
        qkov.scan(path, threads=2**70)
    with pytest.raises(ValueError, match=r"calibrate_seed 1180591620717411303424: expected a non-negative integer of at most"):
        qkov.scan(path, calibrate="self", calibrate_seed=2**70)
    with pytest.raises(ValueError, match="scan 3.5: expected a path"):
        qkov.detect(path, samples=1, length=4, scan=3.5)
    with pytest.raises(ValueError, match="not a regular file \\(a directory\\): token ids are read from a file"):
        qkov.scan(path, calibrate=str(tmp_path))
    # bytes paths are paths: the figures go into the directory named, not into "b'figs'".
    written = qkov.scan(path, layers=0).figures(os.fsencode(str(tmp_path / "figs")))
    assert len(written) > 0
    assert (tmp_path / "figs").is_dir()
    assert not any("b'" in p.name for p in tmp_path.iterdir())
