"""qkov.scan against `qkov scan --json` on the same model: the same document byte for byte, and the
arrays and tables the module derives from the scan agree with that document's entries."""
import json
import threading
import time

import numpy as np
import pytest

import qkov
from conftest import fixture_model, run_cli, stories_hf


def model_path(name):
    return stories_hf() if name == "stories260K" else fixture_model(name)


@pytest.fixture(scope="module")
def scans(tmp_path_factory):
    """name -> (qkov.Scan, the CLI's document text, its path), computed once per model."""
    cache = {}

    def get(name):
        if name not in cache:
            path = model_path(name)
            out = tmp_path_factory.mktemp(name) / "scan.json"
            run_cli("scan", path, "--json", out)
            cache[name] = (qkov.scan(str(path)), out.read_text(), out)
        return cache[name]

    return get


@pytest.mark.parametrize("name", ["gpt2", "gpt_neox", "llama", "stories260K"])
def test_to_json_is_the_documents_bytes(scans, name):
    scan, cli_text, _ = scans(name)
    assert scan.to_json() == cli_text
    # Another name for the pairs' file changes that name only (its checksum is kept from the first call).
    renamed = json.loads(scan.to_json(tensors="other.tensors.safetensors"))
    assert renamed["composition"] == dict(json.loads(cli_text)["composition"], tensors="other.tensors.safetensors")
    assert scan.to_json() == cli_text


def test_save_writes_the_clis_files(scans, tmp_path):
    scan, cli_text, cli_json = scans("gpt2")
    assert scan.save(tmp_path / "shard.json") == "shard.tensors.safetensors"
    assert (tmp_path / "shard.tensors.safetensors").read_bytes() == (cli_json.parent / "scan.tensors.safetensors").read_bytes()
    assert json.loads((tmp_path / "shard.json").read_text())["composition"]["tensors"] == "shard.tensors.safetensors"
    assert (tmp_path / "shard.json").read_text() == scan.to_json(tensors="shard.tensors.safetensors")


def test_a_layer_range_as_the_clis(tmp_path):
    path = fixture_model("llama")
    run_cli("scan", path, "--layers", "1", "--json", tmp_path / "scan.json")
    scan = qkov.scan(qkov.open_model(str(path)), layers=1)
    assert scan.scanned_layers == (1, 1)
    assert scan.to_json() == (tmp_path / "scan.json").read_text()
    # A shard of layer 1 holds the pairs whose later head is in it: from layer 0 into layer 1 only.
    q = scan.composition("q")
    assert not np.isnan(q[0, :, 1, :]).any()
    q[0, :, 1, :] = np.nan
    assert np.isnan(q).all()



def test_a_context_as_the_clis(tmp_path):
    path = str(fixture_model("llama"))
    run_cli("scan", path, "--context", "64", "--threads", "1", "--json", tmp_path / "scan.json")
    scan = qkov.scan(path, context=64, threads=1)
    assert scan.document["thresholds"]["context"] == 64
    assert scan.to_json() == (tmp_path / "scan.json").read_text()


@pytest.mark.parametrize("name", ["gpt2", "stories260K"])
def test_composition_arrays_are_the_documents_tensors(scans, name):
    """The arrays in memory equal the tensors the CLI wrote beside its document, read back by
    qkov.read_composition (which checks the file's SHA-256 against the document's), NaN and all."""
    scan, _, cli_json = scans(name)
    written = qkov.read_composition(cli_json)
    model = scan.model
    pairs = json.loads(cli_json.read_text())["composition"]["pairs"]
    for kind in "qkv":
        array = scan.composition(kind)
        assert array.shape == (model.n_layers, model.n_heads, model.n_layers, model.n_heads)
        np.testing.assert_array_equal(array, written[f"{kind}_composition"])
        assert (~np.isnan(array)).sum() == pairs > 0
    t3 = written["t3_singular_values"]
    assert t3.shape == (*written["q_composition"].shape, model.d_head)
    for index in zip(*np.nonzero(~np.isnan(written["q_composition"]))):
        np.testing.assert_array_equal(scan.t3(index[:2], index[2:]), t3[index])
    with pytest.raises(ValueError, match="no composition pair 1.0 -> 0.0"):
        scan.t3((1, 0), (0, 0))
    with pytest.raises(ValueError, match="composition kind 'x'"):
        scan.composition("x")


def test_read_composition_refuses_a_file_not_named(scans, tmp_path):
    _, cli_text, cli_json = scans("gpt2")
    document = json.loads(cli_text)
    tensors = (cli_json.parent / "scan.tensors.safetensors").read_bytes()
    (tmp_path / "scan.tensors.safetensors").write_bytes(tensors[:-8] + bytes(8))  # the last value changed
    (tmp_path / "scan.json").write_text(cli_text)
    with pytest.raises(ValueError, match="its SHA-256 is not the one"):
        qkov.read_composition(tmp_path / "scan.json")
    document["composition"]["tensors"] = "../scan.tensors.safetensors"
    (tmp_path / "scan.json").write_text(json.dumps(document))
    with pytest.raises(ValueError, match="is not a file beside the document"):
        qkov.read_composition(tmp_path / "scan.json")


def leaves(value, prefix=""):
    """(dotted name, value) of every number, string, bool and null of a head object, outside lists."""
    for key, inner in value.items():
        if isinstance(inner, dict):
            yield from leaves(inner, prefix + key + ".")
        elif not isinstance(inner, list):
            yield prefix + key, inner


def test_heads_are_flat_and_hold_the_document(scans, tmp_path):
    scan, cli_text, _ = scans("stories260K")
    document = json.loads(cli_text)
    pd = pytest.importorskip("pandas")
    heads = scan.heads
    assert isinstance(heads, pd.DataFrame) and list(heads.columns[:2]) == ["layer", "head"]
    assert not heads.map(lambda v: isinstance(v, (list, dict, tuple))).any().any() if hasattr(heads, "map") else \
        not heads.applymap(lambda v: isinstance(v, (list, dict, tuple))).any().any()
    assert len(heads) == len(document["heads"]) == scan.model.n_layers * scan.model.n_heads
    by_head = heads.set_index(["layer", "head"])
    values = scan.head_values.set_index(["layer", "head", "name"]).sort_index()
    undecided = scan.head_objects("undecided")
    list_names = set(scan.head_values["name"]) | set(scan.head_object_names)
    checked = 0
    for want in reversed(document["heads"]):  # matched by (layer, head), never by position
        row = by_head.loc[(want["layer"], want["head"])]
        assert row["labels"] == " ".join(want["labels"]) and row["certified"] == " ".join(want["certified"])
        assert row["undecided"] == " ".join(u["label"] for u in want["undecided"])
        for name, value in leaves(want):
            if name in ("layer", "head"):
                continue
            if value is None and name not in row.index:  # a list in other heads: none here
                assert name in list_names, name
                continue
            cell = row[name]
            if value is None:
                assert cell is None or pd.isna(cell), name
            else:
                assert cell == value, name
                checked += 1
        for name in ("qk_singular_values", "ov_singular_values"):
            assert list(values.loc[(want["layer"], want["head"], name)]["value"]) == want[name]
        reasons = undecided[(undecided["layer"] == want["layer"]) & (undecided["head"] == want["head"])]
        assert list(reasons["reason"]) == [u["reason"] for u in want["undecided"]]
    assert checked > 40 * 20
    assert "evidence.rope.pairs" in scan.head_object_names
    with pytest.raises(ValueError, match="no list of objects 'nothing'"):
        scan.head_objects("nothing")


def test_facts_and_figures(scans, tmp_path):
    scan, cli_text, _ = scans("stories260K")
    document = json.loads(cli_text)
    assert scan.facts == document["facts"]
    figures = scan.figures(tmp_path / "figures")
    assert figures, "the scan wrote no figure"
    for f in figures:
        assert (tmp_path / "figures" / f["file"]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", f["file"]


def test_a_calibration_as_the_clis(tmp_path):
    """calibrate= takes the CLI's file of token ids, or the same sequences as lists, and gives the
    CLI's document (the lists' evidence names them instead of the file)."""
    path = str(fixture_model("llama"))
    ids = tmp_path / "ids.txt"
    ids.write_text("# two sequences\n5 17 23 99 4\n6 7 8 9 10 11\n")
    run_cli("scan", path, "--calibrate", ids, "--json", tmp_path / "scan.json")
    from_file = qkov.scan(path, calibrate=ids)
    assert from_file.to_json() == (tmp_path / "scan.json").read_text()
    from_lists = qkov.scan(path, calibrate=[[5, 17, 23, 99, 4], [6, 7, 8, 9, 10, 11]])
    assert "11 positions" in from_lists.document["proxy"]["input"]
    assert len(from_file.document["heads"]) == len(from_lists.document["heads"]) > 0  # zip below pairs every head
    for a, b in zip(from_file.document["heads"], from_lists.document["heads"]):
        assert a["mean_field"] == b["mean_field"]
    assert from_lists.document["heads"] != qkov.scan(path).document["heads"]
    with pytest.raises(ValueError, match="calibration sequence 1: token id 512 is not below the vocabulary size 512"):
        qkov.scan(path, calibrate=[[1, 2], [512]])
    with pytest.raises(ValueError, match="calibration sequence 0: empty"):
        qkov.scan(path, calibrate=[[]])
    ids.write_text("1 2 x\n")
    with pytest.raises(ValueError, match="line 1: 'x' is not a digit"):
        qkov.scan(path, calibrate=ids)


def test_options_out_of_range_raise_value_error():
    path = str(fixture_model("gpt2"))
    with pytest.raises(ValueError, match="layers 0-5 are not within 0-1"):
        qkov.scan(path, layers=(0, 5))
    with pytest.raises(ValueError, match="layers"):
        qkov.scan(path, layers=(1, 0))
    with pytest.raises(ValueError, match="threads 0"):
        qkov.scan(path, threads=0)
    with pytest.raises(ValueError, match="threads: 100000 is out of range"):
        qkov.scan(path, threads=100000)
    with pytest.raises(ValueError, match="context 0"):
        qkov.scan(path, context=0)
    with pytest.raises(ValueError, match="precision: 'float16' is not"):
        qkov.scan(path, precision="float16")


def test_precision_as_the_clis_and_the_float64_shares(tmp_path):
    # float32 products (the default) decide every share as float64 does; the document says which ran.
    path = str(stories_hf())
    run_cli("scan", path, "--precision", "float64", "--threads", "1", "--json", tmp_path / "scan.json")
    exact = qkov.scan(path, precision="float64", threads=1)
    assert exact.to_json() == (tmp_path / "scan.json").read_text()
    fast = qkov.scan(path, threads=1)
    assert (fast.document["thresholds"]["precision"], exact.document["thresholds"]["precision"]) == ("float32", "float64")
    shares = ("top1_share", "top5_share", "bottom10_share", "top1_interval", "bottom10_interval")
    for a, b in zip(fast.document["heads"], exact.document["heads"]):
        assert a["labels"] == b["labels"]
        assert {k: a["token_copying"][k] for k in shares} == {k: b["token_copying"][k] for k in shares}
    # The circuits' decisions are float64's; the partners' shares come from float32 composition
    # scores, each within its bound (the document's largest), and differ in their last digits.
    def shares_apart(a, b):
        if isinstance(a, dict):
            gap = abs(a.pop("share") - b.pop("share")) if "share" in a else 0.0
            return max([gap] + [shares_apart(a[k], b[k]) for k in a])
        if isinstance(a, list):
            return max([0.0] + [shares_apart(x, y) for x, y in zip(a, b, strict=True)])
        return 0.0

    fast_circuits, exact_circuits = fast.document["circuits"], exact.document["circuits"]
    assert shares_apart(fast_circuits, exact_circuits) <= 1e-6  # a validation tolerance
    assert fast_circuits == exact_circuits
    bound = fast.document["composition"]["largest_bound"]
    assert 0 < bound < 1e-3 and exact.document["composition"]["largest_bound"] == 0
    for kind in ("q", "k", "v"):
        a, b = fast.composition(kind), exact.composition(kind)
        present = ~np.isnan(b)
        assert (np.isnan(a) == ~present).all() and np.abs(a[present] - b[present]).max() <= bound
    assert sum(h["token_copying"]["recomputed_in_float64"] for h in fast.document["heads"]) > 0


def test_a_scan_in_a_thread_leaves_the_main_thread_running():
    """The scan releases the GIL: while it runs in another thread, this thread keeps taking turns.
    Were the GIL held through the C++ call, this thread would stand still from the scan's start to
    its end: the longest pause between its turns (and the scan's ends) would be the whole scan."""
    model = qkov.open_model(str(stories_hf()))
    done = {}

    def work():
        done["start"] = time.perf_counter()
        done["scan"] = qkov.scan(model)
        done["end"] = time.perf_counter()

    thread = threading.Thread(target=work)
    ticks = []
    thread.start()
    while thread.is_alive():
        ticks.append(time.perf_counter())
        sum(range(2000))  # pure-Python work, which needs the GIL
    thread.join()
    assert "scan" in done, "the scan in the thread failed"
    start, end = done["start"], done["end"]
    seconds = end - start
    assert seconds > 0.2, f"the scan took {seconds:.3f} s, too short to tell"
    during = [start] + [t for t in ticks if start < t < end] + [end]
    longest = float(np.diff(during).max())
    assert longest < seconds / 2, (
        f"the main thread ran {len(during) - 2} times during a {seconds:.2f} s scan, longest pause {longest:.2f} s")


def test_flat_tables_of_uneven_heads():
    """The flattening judges each field by name over every head: a dict absent from one head, a
    list empty in one, numbers with a null, objects inside objects, an item's field named as its
    owner's column."""
    rows = [
        {"layer": 0, "head": 0, "labels": ["a"], "evidence": {"x": 1.0, "profile": [0.5, None]}, "undecided": [{"label": "b", "reason": "r"}],
         "circuits": {"candidates": [{"head": 7, "partners": [{"head": [0, 1], "share": 0.25}]}]}, "empty": []},
        {"layer": 0, "head": 1, "labels": [], "evidence": None, "undecided": [], "circuits": None, "empty": []},
    ]
    flat = qkov._FlatHeads(rows)
    assert flat.heads[0] == {"layer": 0, "head": 0, "labels": "a", "evidence.x": 1.0, "undecided": "b", "empty": ""}
    assert flat.heads[1] == {"layer": 0, "head": 1, "labels": "", "undecided": "", "empty": ""}
    assert flat.values == [{"layer": 0, "head": 0, "name": "evidence.profile", "index": 0, "value": 0.5},
                           {"layer": 0, "head": 0, "name": "evidence.profile", "index": 1, "value": None}]
    assert flat.objects["undecided"] == [{"layer": 0, "head": 0, "item": 0, "label": "b", "reason": "r"}]
    assert flat.objects["circuits.candidates"] == [{"layer": 0, "head": 0, "item": 0, "circuits.candidates.head": 7}]
    assert flat.objects["circuits.candidates.partners"] == [{"layer": 0, "head": 0, "item": 0, "item2": 0, "head.0": 0, "head.1": 1, "share": 0.25}]


def test_shards_share_what_prepare_shards_wrote(tmp_path):
    """qkov.prepare_shards writes what `qkov scan --prepare-shards` writes: a shard reading it, from
    Python or from the tool, is the shard scanned on its own, and a shard not prepared is refused."""
    path = stories_hf()
    shared = tmp_path / "shared"
    qkov.prepare_shards(str(path), [(0, 1), 2, range(3, 5)], shared)
    own = qkov.scan(str(path), layers=(3, 4))
    assert qkov.scan(str(path), layers=(3, 4), shared=shared).to_json("t") == own.to_json("t")
    run_cli("scan", path, "--layers", "3-4", "--shared", shared, "--json", tmp_path / "cli.json")
    assert (tmp_path / "cli.json").read_text() == own.to_json("cli.tensors.safetensors")
    with pytest.raises(RuntimeError, match="holds no circuit writes for a shard starting at layer 1 \\(prepared: 2, 3;"):
        qkov.scan(str(path), layers=(1, 4), shared=shared)
    with pytest.raises(ValueError, match="not None"):
        qkov.prepare_shards(str(path), [None], shared)
