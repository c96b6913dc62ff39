"""qkov.detect against `qkov detect --json` on the same model and settings: the same document byte
for byte, with and without a scan to compare with, and the per-head arrays equal its entries."""
import json

import numpy as np
import pytest

import qkov
from conftest import fixture_model, run_cli, stories_hf

SETTINGS = ["--samples", "2", "--length", "20"]


@pytest.mark.parametrize("name,dtype", [("gpt2", "float32"), ("llama", "float64"), ("stories260K", "float32")])
def test_to_json_is_the_documents_bytes(name, dtype, tmp_path):
    path = str(stories_hf() if name == "stories260K" else fixture_model(name))
    run_cli("detect", path, *SETTINGS, "--dtype", dtype, "--json", tmp_path / "detect.json")
    detection = qkov.detect(path, samples=2, length=20, dtype=dtype)
    cli_text = (tmp_path / "detect.json").read_text()
    assert detection.to_json() == cli_text
    document = json.loads(cli_text)
    model = detection.model
    assert len(document["heads"]) == model.n_layers * model.n_heads > 0  # the loops below see every head, not none
    assert len(qkov.BEHAVIOURS) > 0 and len(detection.behaviours) > 0
    for behaviour in qkov.BEHAVIOURS:
        scores, spreads = detection.score(behaviour), detection.spread(behaviour)
        assert scores.shape == spreads.shape == (model.n_layers, model.n_heads)
        for h in document["heads"]:
            assert scores[h["layer"], h["head"]] == h[behaviour]
            assert spreads[h["layer"], h["head"]] == h["spread"][behaviour]
    np.testing.assert_array_equal(detection.previous_token, detection.score("previous_token"))
    for h in document["heads"]:
        assert detection.bos()[h["layer"], h["head"]] == h["bos"]["mean"]
        for rule in detection.behaviours:
            assert detection.shows(rule)[h["layer"], h["head"]] == (rule in h["shows"])
    assert detection.comparison is None
    # score() and spread() take every behaviour shows() decides, each the measure the document holds.
    measured = {"sink": lambda h: h["bos"]["mean"], "copy": lambda h: h["copying"]["top1_share"]}
    for b in detection.behaviours:
        if b.startswith("offset_"):
            measured[b] = lambda h, k=int(b[7:]): h["attention_by_offset"][k]["mean"]
        elif b.startswith("repeat_shift_"):
            measured[b] = lambda h, s=b[13:]: h["repeat_attention_by_shift"][s]["mean"]
    assert {"sink", "offset_0", "repeat_shift_2", "positional"} <= set(detection.behaviours)
    for b in detection.behaviours:
        scores = detection.score(b)
        assert scores.shape == detection.spread(b).shape == detection.shows(b).shape == (model.n_layers, model.n_heads)
        for h in document["heads"]:
            if b in measured and (b != "copy" or (h["copying"] and h["copying"]["queries"] > 0)):
                assert scores[h["layer"], h["head"]] == measured[b](h), b
    with pytest.raises(ValueError, match="no behaviour named 'nothing'; this detection measures previous_token"):
        detection.score("nothing")
    # The heads as flat tables, matched to the document by (layer, head).
    pytest.importorskip("pandas")
    heads = detection.heads.set_index(["layer", "head"])
    cells = heads.map if hasattr(heads, "map") else heads.applymap
    assert not cells(lambda v: isinstance(v, (list, dict, tuple))).any().any()
    offsets = detection.head_objects("attention_by_offset")
    for h in document["heads"]:
        row = heads.loc[(h["layer"], h["head"])]
        assert row["previous_token"] == h["previous_token"] and row["spread.induction"] == h["spread"]["induction"]
        assert row["shows"] == " ".join(h["shows"])
        mine = offsets[(offsets["layer"] == h["layer"]) & (offsets["head"] == h["head"])]
        assert list(mine["mean"]) == [x["mean"] for x in h["attention_by_offset"]]


def test_the_comparison_with_a_scan_file_and_with_a_scan_object(tmp_path, monkeypatch):
    path = str(stories_hf())
    scan_file = tmp_path / "scan.json"
    run_cli("scan", path, "--json", scan_file)
    run_cli("detect", path, *SETTINGS, "--scan", scan_file, "--json", tmp_path / "detect.json")
    by_file = qkov.detect(path, samples=2, length=20, scan=str(scan_file))
    assert by_file.to_json() == (tmp_path / "detect.json").read_text()
    scan = qkov.scan(path)

    def written(self):
        raise AssertionError("detect wrote the scan's document")

    monkeypatch.setattr(qkov.Scan, "to_json", written)  # a Scan is compared in memory
    by_object = qkov.detect(qkov.open_model(path), samples=2, length=20, scan=scan)
    compared = by_object.comparison
    assert compared["scan"] == f"qkov.scan of {path}"
    want = by_file.comparison
    assert compared["verdicts"] == want["verdicts"] and compared["total"] == want["total"]
    assert want["heads_compared"] > 0


def test_figures(tmp_path):
    detection = qkov.detect(str(fixture_model("llama")), samples=2, length=20, threads=1)
    figures = detection.figures(tmp_path / "figures")
    assert len(figures) >= 3
    for f in figures:
        assert (tmp_path / "figures" / f["file"]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f["file"]


def test_bad_options_and_a_scan_of_another_model_raise_value_error(tmp_path):
    llama, gpt2 = str(fixture_model("llama")), str(fixture_model("gpt2"))
    with pytest.raises(ValueError, match="dtype 'float16'"):
        qkov.detect(llama, dtype="float16")
    with pytest.raises(ValueError, match="length 0"):
        qkov.detect(llama, length=0)
    with pytest.raises(ValueError, match="threads: 100000 is out of range"):
        qkov.detect(llama, samples=1, threads=100000)
    with pytest.raises(ValueError, match="201 tokens, but the model has learned positions for 128"):
        qkov.detect(gpt2, length=100, samples=1)
    with pytest.raises(ValueError, match="600 distinct random tokens, but the vocabulary has 511 besides BOS"):
        qkov.detect(llama, length=600, samples=1)
    with pytest.raises(ValueError, match="the scan is of another model"):
        qkov.detect(llama, samples=1, scan=qkov.scan(gpt2))
    (tmp_path / "not.json").write_text("{")
    with pytest.raises(ValueError, match="not valid JSON"):
        qkov.detect(llama, samples=1, scan=tmp_path / "not.json")


def test_the_markdown_is_the_clis(tmp_path):
    """Detection.markdown() is the report `qkov detect --markdown` writes (one writer, the
    library's), with a scan's comparison; with figures it links each figure it wrote."""
    path = str(stories_hf())
    run_cli("scan", path, "--json", tmp_path / "scan.json")
    run_cli("detect", path, *SETTINGS, "--scan", tmp_path / "scan.json", "--markdown", tmp_path / "detect.md")
    detection = qkov.detect(path, samples=2, length=20, scan=str(tmp_path / "scan.json"))
    assert detection.markdown() == (tmp_path / "detect.md").read_text()
    assert "## Weights against behaviour" in detection.markdown()
    linked = detection.markdown(figures=tmp_path / "figures")
    written = sorted(p.name for p in (tmp_path / "figures").iterdir())
    assert written and all(f"]({tmp_path / 'figures'}/{name})" in linked for name in written)
