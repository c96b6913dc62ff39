"""qkov.detect(..., text=...) and qkov.scan(..., calibrate="self") against the command-line tool: the
same documents byte for byte, the text's per-head arrays equal to its entries, the scores on the
model's own text recomputed by tests/own_text_reference.py's independent NumPy pass from the token
ids the document holds, a scan on own text judged on own text only, and the options refused by name."""
import importlib.util
import json
import os
from pathlib import Path

import numpy as np
import pytest

import qkov
from conftest import fixture_model, run_cli, stories_hf

SETTINGS = ["--samples", "2", "--length", "10"]

_spec = importlib.util.spec_from_file_location(
    "own_text_reference", Path(os.environ.get("QKOV_SOURCE_DIR", Path(__file__).parents[2])) / "tests" / "own_text_reference.py")
own_text_reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(own_text_reference)


def test_detect_text_self_is_the_documents_bytes_and_its_arrays(tmp_path):
    path = str(stories_hf())
    run_cli("detect", path, *SETTINGS, "--text", "self", "--text-length", "30", "--json", tmp_path / "detect.json")
    detection = qkov.detect(path, samples=2, length=10, text="self", text_length=30)
    assert detection.to_json() == (tmp_path / "detect.json").read_text()
    text = detection.text
    assert isinstance(text, qkov.TextBehaviour)
    assert text.input == "own text"
    document = detection.document["text"]
    assert text.tokens == document["tokens"]
    assert len(text.tokens) == 2 and all(len(t) == 31 and t[0] == 1 for t in text.tokens)
    model = detection.model
    for behaviour in qkov.BEHAVIOURS:
        scores, spreads = text.score(behaviour), text.spread(behaviour)
        assert scores.shape == spreads.shape == (model.n_layers, model.n_heads)
        for h in document["heads"]:
            assert scores[h["layer"], h["head"]] == h[behaviour]
            assert spreads[h["layer"], h["head"]] == h["spread"][behaviour]
    np.testing.assert_array_equal(text.previous_token, text.score("previous_token"))
    for h in document["heads"]:
        assert text.bos()[h["layer"], h["head"]] == h["bos"]["mean"]
        for rule in text.behaviours:
            assert text.shows(rule)[h["layer"], h["head"]] == (rule in h["shows"])
    # The random tokens are still what the detection's own accessors give.
    assert not np.array_equal(detection.previous_token, text.previous_token)
    assert qkov.detect(path, samples=2, length=10).text is None


def test_own_text_scores_agree_with_an_independent_numpy_pass():
    path = fixture_model("llama")
    detection = qkov.detect(str(path), samples=2, length=10, dtype="float64", text="self", text_length=24)
    document = detection.document
    model = own_text_reference.Model(str(path))
    layers, heads = document["model"]["layers"], document["model"]["heads"]
    unembeddings = [[model.head_unembedding(l, h) for h in range(heads)] for l in range(layers)]
    runs = [own_text_reference.scores(model, t, unembeddings) for t in detection.text.tokens]
    for entry in document["text"]["heads"]:
        mine = [r[(entry["layer"], entry["head"])] for r in runs]
        assert entry["previous_token"] == pytest.approx(np.mean([r["previous_token"] for r in mine]), abs=1e-10)
        assert entry["bos"]["mean"] == pytest.approx(np.mean([r["bos"] for r in mine]), abs=1e-10)
        for k in range(9):
            assert entry["attention_by_offset"][k]["mean"] == pytest.approx(np.mean([r["by_offset"][k] for r in mine]), abs=1e-10)


def test_text_from_a_file_and_from_python_lists(tmp_path):
    path = str(fixture_model("llama"))
    ids = [[5, 6, 7, 8, 9, 10, 11, 12, 5, 6], [1, 20, 21, 22, 20, 21, 22, 20, 21, 22, 23]]
    given = qkov.detect(path, samples=2, length=10, text=ids)
    assert given.text.input == "given sequences"
    assert given.text.tokens == [[1] + ids[0], ids[1]]  # BOS put first where a sequence lacks it
    file = tmp_path / "ids.txt"
    file.write_text("\n".join(" ".join(map(str, s)) for s in ids) + "\n")
    from_file = qkov.detect(path, samples=2, length=10, text=file)
    assert from_file.text.input == f"file {file}"
    np.testing.assert_array_equal(from_file.text.previous_token, given.text.previous_token)
    run_cli("detect", path, *SETTINGS, "--text", file, "--json", tmp_path / "detect.json")
    assert qkov.detect(path, samples=2, length=10, text=str(file)).to_json() == (tmp_path / "detect.json").read_text()


def test_scan_calibrated_on_own_text_is_the_documents_bytes(tmp_path):
    path = str(stories_hf())
    run_cli("scan", path, "--calibrate", "self", "--calibrate-samples", "4", "--calibrate-length", "30", "--json", tmp_path / "scan.json")
    scan = qkov.scan(path, calibrate="self", calibrate_samples=4, calibrate_length=30)
    assert scan.input == "own text"
    assert scan.to_json() == (tmp_path / "scan.json").read_text()
    assert json.loads(scan.to_json())["input"] == "own text"
    assert qkov.scan(path).input == "random tokens"
    assert qkov.scan(path, calibrate=[[1, 5, 6, 7, 8]]).input == "given sequences"


def test_a_scan_on_own_text_is_judged_on_own_text_only(tmp_path):
    path = str(stories_hf())
    scan = qkov.scan(path, calibrate="self", calibrate_samples=4, calibrate_length=30)
    with pytest.raises(ValueError, match="predicts behaviour on the model's own text"):
        qkov.detect(path, samples=2, length=10, scan=scan)
    judged = qkov.detect(path, samples=2, length=10, scan=scan, text="self", text_length=30)
    assert judged.comparison["input"] == "own text"
    assert judged.comparison["heads_compared"] == 40
    on_random = qkov.detect(path, samples=2, length=10, scan=qkov.scan(path), text="self", text_length=30)
    assert on_random.comparison["input"] == "random tokens"
    figures = judged.figures(tmp_path / "figures")
    files = {f["file"] for f in figures}
    assert "text_vs_random_previous_token.png" in files and "text_prediction_previous_token.png" in files
    for f in figures:
        assert (tmp_path / "figures" / f["file"]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f["file"]
    file_scan = tmp_path / "file-scan.json"
    file_scan.write_text(qkov.scan(path, calibrate=[[1, 5, 6, 7, 8, 9, 10, 11, 12]]).to_json())
    with pytest.warns(UserWarning, match="calibrated on given sequences, the detection's text is file"):
        ids = tmp_path / "ids.txt"
        ids.write_text("1 5 6 7 8 9 10 11 12\n")
        qkov.detect(path, samples=2, length=10, scan=str(file_scan), text=ids)


def test_bad_text_options_raise_value_error():
    path = str(fixture_model("llama"))
    with pytest.raises(ValueError, match="text_length sets the length of the model's own text"):
        qkov.detect(path, samples=2, length=10, text_length=30)
    with pytest.raises(ValueError, match="text_length 7: expected 8"):
        qkov.detect(path, samples=2, length=10, text="self", text_length=7)
    with pytest.raises(ValueError, match="text_length 500 makes sequences of 501 tokens"):
        qkov.detect(path, samples=2, length=10, text="self", text_length=500)
    with pytest.raises(ValueError, match="text_length 0: expected an integer in 1.."):
        qkov.detect(path, text="self", text_length=0)
    with pytest.raises(ValueError, match="text: expected None"):
        qkov.detect(path, samples=2, length=10, text=[["a"]])
    with pytest.raises(ValueError, match="sequence 1 has 3 tokens with BOS"):
        qkov.detect(path, samples=2, length=10, text=[[5, 6]])
    with pytest.raises(ValueError, match="this detection measured no text"):
        qkov.detect(path, samples=2, length=10)._native.score("previous_token", True)
    with pytest.raises(ValueError, match="they need calibrate=\"self\""):
        qkov.scan(path, calibrate_samples=3)
    with pytest.raises(ValueError, match="more than the 4096 positions"):
        qkov.scan(path, calibrate="self", calibrate_samples=100)
    with pytest.raises(ValueError, match="calibrate_seed -1: expected a non-negative integer"):
        qkov.scan(path, calibrate="self", calibrate_seed=-1)
