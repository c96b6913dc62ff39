"""qkov from Python: model files, the scan of a model's weights, detection from its behaviour, the
forward pass, the RoPE precision audit and the high-precision validation, each calling qkov's C++
library (the extension module qkov._qkov).

Conventions (docs/python.md): every weight array is in TransformerLens' row convention
(q = x W_Q + b_Q; W_Q [n_heads, d_model, d_head], W_O [n_heads, d_head, d_model]); attention
patterns have row = query, column = key; per-head arrays are [n_layers, n_heads]; composition
arrays are [source layer, source head, target layer, target head] like TransformerLens'
all_composition_scores. Errors: qkov.ModelFileError for a model file qkov cannot read or run,
ValueError for an option or input it cannot take, IndexError for an index outside the model.
"""
import json
import numbers
import os

from ._qkov import Model, ModelFileError, audit_rope, open_model, validate
from ._qkov import _detect, _prepare_shards, _scan
from ._qkov import forward as _forward

__all__ = ["Model", "ModelFileError", "Scan", "Detection", "TextBehaviour", "open_model", "scan", "prepare_shards", "detect", "forward", "audit_rope", "validate", "read_composition"]

BEHAVIOURS = ("previous_token", "duplicate_token", "induction")


def _table(rows):
    """A pandas DataFrame of the rows when pandas is importable, else the list of dicts itself;
    layer and head first (the document's objects list their keys alphabetically)."""
    try:
        import pandas
    except ImportError:
        return rows
    table = pandas.DataFrame(rows)
    first = [c for c in ("layer", "head") if c in table.columns]
    return table[first + [c for c in table.columns if c not in first]]


def _kinds(rows, prefix=""):
    """name -> "dict", "objects", "numbers" or "strings" for every dict and list at any depth of
    the rows (dotted names). A list is judged on its non-null elements in every row: any object
    makes it "objects", else any number "numbers", else "strings" (a list empty in every row too)."""
    kinds = {}
    rank = {"strings": 0, "numbers": 1, "objects": 2}
    for row in rows:
        for key, value in row.items():
            name = prefix + key
            if isinstance(value, dict):
                kinds[name] = "dict"
                for inner, kind in _kinds([value], name + ".").items():
                    if kind == "dict" or rank.get(kind, -1) > rank.get(kinds.get(inner), -1):
                        kinds[inner] = kind
            elif isinstance(value, list):
                items = [x for x in value if x is not None]
                kind = "objects" if any(isinstance(x, dict) for x in items) else "numbers" if any(not isinstance(x, str) for x in items) else \
                    "numbers" if len(items) < len(value) else "strings"
                if rank[kind] > rank.get(kinds.get(name), -1):
                    kinds[name] = kind
    return kinds


def _as_list(value):
    """A list field's value as a list: None as none, a lone value as one."""
    return [] if value is None else value if isinstance(value, list) else [value]


def _flatten(row, kinds, labelled, prefix, flat, values, objects):
    """One row split into flat columns (flat: dotted name -> scalar), numeric lists (values: name
    -> list) and lists of objects (objects: name -> list). In `flat` a list of strings is one
    space-separated string, an [a, b] "_interval" its ".low" and ".high", a list of objects whose
    every item has a label (labelled) their labels; a dict absent from this row adds nothing."""
    for key, value in row.items():
        name = prefix + key
        kind = kinds.get(name)
        if kind == "dict":
            if isinstance(value, dict):
                _flatten(value, kinds, labelled, name + ".", flat, values, objects)
        elif kind == "objects":
            objects[name] = [x for x in _as_list(value) if isinstance(x, dict)]
            if name in labelled:
                flat[name] = " ".join(x["label"] for x in objects[name])
        elif kind == "numbers":
            values[name] = _as_list(value)
            if name.endswith("_interval"):
                flat[name + ".low"], flat[name + ".high"] = values[name] if len(values[name]) == 2 else (None, None)
        elif kind == "strings":
            flat[name] = " ".join(str(x) for x in _as_list(value))
        else:
            flat[name] = value


def _labelled(rows, kinds):
    """The lists of objects whose every item, in every row, has a label (and that hold any)."""
    seen, unlabelled = set(), set()

    def walk(value, prefix):
        for key, inner in value.items():
            name = prefix + key
            if kinds.get(name) == "dict" and isinstance(inner, dict):
                walk(inner, name + ".")
            elif kinds.get(name) == "objects":
                for item in _as_list(inner):
                    seen.add(name)
                    if not isinstance(item, dict) or "label" not in item:
                        unlabelled.add(name)

    for row in rows:
        walk(row, "")
    return seen - unlabelled


def _object_rows(objects, at, name, items):
    """Rows of the list of objects `name` (one per item, `at` naming the owner: layer, head and
    the indices of the lists around it) into objects[name]; a list of objects inside an item goes
    to objects[name + "." + its key] the same way. An item's field named as an owner's column is
    kept as name.field."""
    table = objects.setdefault(name, [])
    kinds = _kinds(items)
    index = "item" if "item" not in at else f"item{len([k for k in at if k.startswith('item')]) + 1}"
    for i, item in enumerate(items):
        cells, inner_values, inner_objects = {}, {}, {}
        _flatten(item, kinds, set(), "", cells, inner_values, inner_objects)
        for inner, numbers_ in inner_values.items():
            if not inner.endswith("_interval"):
                cells.update({f"{inner}.{j}": v for j, v in enumerate(numbers_)})
        owner = {**at, index: i}
        table.append({**owner, **{(f"{name}.{k}" if k in owner else k): v for k, v in cells.items()}})
        for inner, inner_items in inner_objects.items():
            _object_rows(objects, owner, f"{name}.{inner}", inner_items)


class _FlatHeads:
    """A document's head objects as flat tables: `heads` (scalars under dotted names), `values`
    (every list of numbers, long: layer, head, name, index, value) and `objects` (per list of
    objects, one row per item), so that no cell of any of them holds a list or a dict. Which is
    which is judged by name over every head: a list empty in one head is empty there, not absent."""

    def __init__(self, rows):
        kinds = _kinds(rows)
        labelled = _labelled(rows, kinds)
        self.heads, self.values = [], []
        self.objects = {name: [] for name, kind in kinds.items() if kind == "objects"}
        for row in rows:
            flat, values, objects = {}, {}, {}
            _flatten(row, kinds, labelled, "", flat, values, objects)
            self.heads.append(flat)
            at = {"layer": row.get("layer"), "head": row.get("head")}
            for name, numbers_ in values.items():
                self.values += [{**at, "name": name, "index": i, "value": v} for i, v in enumerate(numbers_)]
            for name, items in objects.items():
                _object_rows(self.objects, at, name, items)


class _HeadTables:
    """A document's heads as flat tables (_FlatHeads), for a scan and a detection alike; the class
    names its head objects with _heads_rows()."""

    def _flat(self):
        if getattr(self, "_flat_heads", None) is None:
            self._flat_heads = _FlatHeads(self._heads_rows())
        return self._flat_heads

    @property
    def heads(self):
        """One row per head, flat: every number and string of the document's head object under its
        dotted name (evidence.rope.slow_share, token_copying.top1_share, ...), lists of labels as
        space-separated labels, an interval as its .low and .high; the lists of numbers are in
        head_values, the lists of objects in head_objects(name)."""
        return _table(self._flat().heads)

    @property
    def head_values(self):
        """Every list of numbers of every head, long: layer, head, name (qk_singular_values,
        mean_field.attention_by_offset, ...), index, value."""
        return _table(self._flat().values)

    def head_objects(self, name):
        """A list of objects of every head, one row per item: layer, head, item, then the item's
        fields (flat). name: "undecided" (label, reason), "evidence.rope.pairs",
        "attention_by_offset", ... (head_object_names lists those the document holds)."""
        objects = self._flat().objects
        if name not in objects:
            raise ValueError(f"qkov: no list of objects {name!r} in the heads; they are {sorted(objects)}")
        return _table(objects[name])

    @property
    def head_object_names(self):
        return sorted(self._flat().objects)


def _layer_range(layers):
    """None, one layer, an inclusive (first, last) pair or a range of step 1, as (first, last)."""
    if layers is None:
        return None, None
    if isinstance(layers, range):
        if layers.step != 1 or len(layers) == 0:
            raise ValueError(f"qkov: layers {layers!r}: a range must have step 1 and hold a layer")
        layers = (layers.start, layers.stop - 1)
    if isinstance(layers, numbers.Integral) and not isinstance(layers, bool):
        layers = (layers, layers)
    if (not isinstance(layers, (tuple, list)) or len(layers) != 2
            or not all(isinstance(x, numbers.Integral) and not isinstance(x, bool) for x in layers)):
        raise ValueError(f"qkov: layers {layers!r}: expected None, a layer, an inclusive (first, last) pair or a range")
    first, last = int(layers[0]), int(layers[1])
    if first < 0 or last < first:
        raise ValueError(f"qkov: layers {first}-{last}: expected 0 <= first <= last (0-based, inclusive)")
    return first, last


# The largest integer an option takes: the C++ side reads 64-bit integers, and a larger Python int
# would otherwise raise pybind11's TypeError where the documented error is ValueError.
_LARGEST = 2**63 - 1


def _positive(name, value):
    if value is None:
        return None
    if not isinstance(value, numbers.Integral) or isinstance(value, bool):
        raise ValueError(f"qkov: {name} {value!r}: expected an integer")
    if value < 1 or value > _LARGEST:
        raise ValueError(f"qkov: {name} {value}: expected an integer in 1..{_LARGEST}")
    return int(value)


def _path(name, value):
    """A file or directory argument as text: str, bytes or os.PathLike (bytes decoded as the file
    system does, never written as their repr); anything else is a ValueError naming the argument."""
    if not isinstance(value, (str, bytes, os.PathLike)):
        raise ValueError(f"qkov: {name} {value!r}: expected a path (str, bytes or os.PathLike)")
    text = os.fsdecode(os.fspath(value))
    if not text:
        raise ValueError(f"qkov: {name}: the path is empty")
    return text


class _Document:
    """What a scan and a detection share: the native result, its model, and its JSON document
    (written by the library, the same text the command-line tool writes), parsed once on demand."""

    def __init__(self, native):
        self._native = native
        self._document = None

    @property
    def model(self):
        return self._native.model

    def to_json(self):
        return self._native.to_json()

    @property
    def document(self):
        """The document as Python objects (json.loads of to_json())."""
        if self._document is None:
            self._document = json.loads(self.to_json())
        return self._document


class Scan(_Document, _HeadTables):
    """The scan of a model's weights (`qkov scan`), float64.

    heads            one row per scanned head, flat (a pandas DataFrame when pandas is importable, else a
                     list of dicts): every metric and evidence under its dotted name, labels as text
    head_values      every list of numbers of the heads (singular values, offset profiles), long
    head_objects(n)  a list of objects of the heads ("undecided" with reasons, "evidence.rope.pairs"), long
    composition(k)   ndarray [n_layers, n_heads, n_layers, n_heads] of the Q-, K- or V-composition
                     score (k = "q", "k" or "v") indexed [source layer, source head, target layer,
                     target head], NaN where a pair cannot compose (target not in a later scanned
                     layer), as TransformerLens' all_composition_scores
    t3(s, t)         the T3 singular values of source head s = (layer, head) into target t
    circuits         one row per circuit a head is labelled by (docs/SCAN-LABELS.md, "Circuits")
    facts            the stated facts about the claims (claim, statement, passed, detail)
    to_json(tensors) the document `qkov scan PATH --json FILE` writes, the same text when `tensors`
                     is the name of FILE's companion (default "scan.tensors.safetensors", for FILE
                     scan.json): the pairs' numbers are tensors in that file, not in the JSON
    save(json)       writes the document and its pairs' tensors beside it, as `qkov scan --json`
                     does; returns the tensors' file name (read them with qkov.read_composition)
    figures(dir)     writes the scan's PNG figures; returns [{file, caption}]
    """

    def to_json(self, tensors="scan.tensors.safetensors"):
        return self._native.to_json(str(tensors))

    def save(self, json_path):
        return self._native.save(_path("json_path", json_path))

    def _heads_rows(self):
        return self.document["heads"]

    @property
    def scanned_layers(self):
        """(first, last), inclusive."""
        return self._native.scanned_layers

    @property
    def input(self):
        """The input the labels predict behaviour on: "random tokens", "own text" (calibrate="self"),
        "file PATH" or "given sequences"; qkov.detect(..., scan=this) judges them on it."""
        return self._native.input

    @property
    def circuits(self):
        """One row per circuit a head is labelled by (duplicate_token, induction, repeat_shift_<s>):
        the head, the label, the shift, what its query and key read (offset and partner heads, as
        "layer.head" text), the diagonal test's top-1 share with its 95 % interval, the boost in
        nats, what it writes and whether that is the next token of a repeat. Flat columns (a pandas
        DataFrame when pandas is importable, else a list of dicts)."""
        def partners(side):
            return " ".join(f"{p['head'][0]}.{p['head'][1]}" for p in side["partners"])
        rows = []
        for c in self.document["circuits"]:
            circuit, writes = c["circuit"], c["writes"]
            rows.append({"layer": c["head"][0], "head": c["head"][1], "label": c["label"], "shift": circuit["shift"],
                         "query_offset": circuit["query"]["offset"], "query_partners": partners(circuit["query"]),
                         "key_offset": circuit["key"]["offset"], "key_partners": partners(circuit["key"]),
                         "top1_share": circuit["top1_share"], "top1_low": circuit["top1_interval"][0], "top1_high": circuit["top1_interval"][1],
                         "boost": circuit["boost"],
                         "writes_offset": writes["value"]["offset"] if writes else None,
                         "writes_partners": partners(writes["value"]) if writes else "",
                         "writes_top1_share": writes["top1_share"] if writes else None,
                         "predicts_next_token": c["predicts_next_token"]})
        return _table(rows)

    def composition(self, kind):
        """ndarray [n_layers, n_heads, n_layers, n_heads] of the "q", "k" or "v" composition score,
        indexed [source layer, source head, target layer, target head] (TransformerLens'
        all_composition_scores), NaN where the pair cannot compose."""
        return self._native.composition(kind)

    def t3(self, source, target):
        """The T3 singular values (descending) of source head (layer, head) into target head (layer, head)."""
        return self._native.t3(tuple(source), tuple(target))

    @property
    def facts(self):
        return self._native.facts

    def figures(self, directory):
        return self._native.figures(_path("directory", directory))

    def __repr__(self):
        first, last = self.scanned_layers
        return f"<qkov.Scan of {self.model.path}: layers {first}-{last}>"


def _non_negative(name, value):
    if not isinstance(value, numbers.Integral) or isinstance(value, bool) or value < 0 or value > _LARGEST:
        raise ValueError(f"qkov: {name} {value!r}: expected a non-negative integer of at most {_LARGEST}")
    return int(value)


def scan(path_or_model, layers=None, threads=None, context=None, calibrate=None, calibrate_samples=None, calibrate_length=None,
         calibrate_seed=None, shared=None, precision="float32"):
    """Scans a model's weights (`qkov scan`): per-head metrics, labels, composition. Releases the GIL.

    path_or_model      a qkov.Model or a path open_model accepts
    layers             None (all), a layer, an inclusive (first, last) pair or a range: their heads and every
                       composition pair whose later head is in them (a shard; qkov merge-scans joins shards)
    threads            BLAS threads for this call (1..cores), the caller's count restored afterwards
    context            offsets 0..context of the RoPE offset profile (default: the model's context, at most 2^20)
    calibrate          where mu_l and the tokens' content come from, and so which input the labels predict
                       behaviour on (`qkov scan --calibrate`): None or "random" (the vocabulary in a seeded
                       random context), "self" (text the model writes itself from BOS at temperature 1), a path
                       to a file of token ids (one sequence per line), or a list of token-id sequences
    calibrate_samples  with calibrate="self": how many sequences (default 20)
    calibrate_length   with calibrate="self": tokens written after BOS per sequence (default 100)
    calibrate_seed     with calibrate="self": the sampler's seed (default 1; detect(text="self") uses its seed, 0)
    shared             a directory prepare_shards wrote for these options (`qkov scan --shared`): the shard reads
                       what the forward pass gives its layers, the circuit writes at its first and W_E^T W_U
                       there instead of computing them; the same scan to the bit
    precision          "float32" (default): the per-token copying's and the composition's bulk products in
                       float32, every decision within float32's rounding bound recomputed in float64, so the
                       labels, copying shares and circuits are the float64 scan's, each composition score and
                       partner's share within its bound (the scores' largest: document["composition"]
                       ["largest_bound"]); "float64": every product in float64
                       (`qkov scan --precision`)
    """
    first, last = _layer_range(layers)
    return Scan(_scan(path_or_model, first, last, _positive("threads", threads), _positive("context", context), calibrate,
                      _positive("calibrate_samples", calibrate_samples), _positive("calibrate_length", calibrate_length),
                      None if calibrate_seed is None else _non_negative("calibrate_seed", calibrate_seed), shared,
                      precision))


def prepare_shards(path_or_model, shards, directory, threads=None, context=None, calibrate=None, calibrate_samples=None,
                   calibrate_length=None, calibrate_seed=None):
    """Computes once what the shards of one scan share (`qkov scan --prepare-shards`) and writes it into
    `directory`: what the forward pass gives every layer, the circuit writes at each shard's first
    layer and W_E^T W_U. `shards` is a list of what
    scan's `layers` takes (a layer, a (first, last) pair, a range); the other arguments are scan's and
    must be those the shards are scanned with. Each shard then runs scan(..., layers=s, shared=directory).
    Releases the GIL."""
    starts = []
    for s in shards:
        first, _ = _layer_range(s)
        if first is None:
            raise ValueError("qkov: shards: each shard is a layer, a (first, last) pair or a range, not None")
        starts.append(first)
    _prepare_shards(path_or_model, starts, directory, _positive("threads", threads), _positive("context", context), calibrate,
                    _positive("calibrate_samples", calibrate_samples), _positive("calibrate_length", calibrate_length),
                    None if calibrate_seed is None else _non_negative("calibrate_seed", calibrate_seed))


class _Behaviours(_HeadTables):
    """The per-head accessors a detection's random tokens and its text share: each reads the native
    detection on the random tokens (_on_text False) or on the text (True)."""

    _on_text = False

    def score(self, behaviour):
        """ndarray [n_layers, n_heads]: each head's measure of the behaviour, the mean over the
        samples, NaN where a head has none. behaviour: any of `behaviours` (every one the detection
        measures and shows() decides): TransformerLens' "previous_token", "duplicate_token" and
        "induction" scores ("mul"), "sink", "offset_<k>", "repeat_shift_<s>", "positional", "copy", ..."""
        return self._native.score(behaviour, self._on_text)

    def spread(self, behaviour):
        """ndarray [n_layers, n_heads]: the sample standard deviation behind score(behaviour), NaN
        where there is none."""
        return self._native.spread(behaviour, self._on_text)

    @property
    def previous_token(self):
        return self.score("previous_token")

    @property
    def duplicate_token(self):
        return self.score("duplicate_token")

    @property
    def induction(self):
        return self.score("induction")

    def bos(self):
        return self._native.bos(self._on_text)

    def shows(self, behaviour):
        return self._native.shows(behaviour, self._on_text)

    @property
    def behaviours(self):
        return self._native.behaviours


class TextBehaviour(_Behaviours):
    """The same heads on text, beside the random tokens (Detection.text): the same accessors as a
    Detection, for the text.

    input                "own text", "file PATH" or "given sequences"
    tokens               every sequence measured, as lists of token ids ([BOS] first)
    score(b), spread(b), bos(), shows(b), behaviours, heads   as Detection's, on the text
    """

    _on_text = True

    def __init__(self, detection):
        self._detection, self._native = detection, detection._native

    @property
    def input(self):
        return self._native.text_input

    @property
    def tokens(self):
        return self._detection.document["text"]["tokens"]

    def _heads_rows(self):
        return self._detection.document["text"]["heads"]

    def __repr__(self):
        return f"<qkov.TextBehaviour on {self.input}: {len(self.tokens)} sequences>"


class Detection(_Document, _Behaviours):
    """Every head's behaviour from the model's forward pass on repeated random sequences (`qkov detect`),
    and with text= the same heads on text beside them.

    score(b), spread(b)  ndarray [n_layers, n_heads]: the mean and the sample standard deviation over the
                         samples of behaviour b's measure, b any of `behaviours` (TransformerLens' three
                         scores "previous_token", "duplicate_token", "induction", and every other rule)
    previous_token, duplicate_token, induction   the means, as properties
    bos()                ndarray [n_layers, n_heads]: the mean attention on BOS
    shows(b)             bool ndarray [n_layers, n_heads]: the heads that show behaviour b (behaviours lists them)
    heads                one row per head, flat (DataFrame or list of dicts): the document's "heads", every
                         number under its dotted name; head_values and head_objects(n) hold their lists
    comparison           the weights-against-behaviour comparison with the scan given (dict), or None; its
                         "input" is the input whose behaviour judged the labels (the one the scan predicts)
    text                 the same heads on text (a TextBehaviour), or None without text=
    to_json()            the document `qkov detect PATH --json` writes, the same text
    figures(dir)         writes the detection's PNG figures; returns [{file, caption}]
    markdown(figures)    the report `qkov detect --markdown` writes, as text
    """

    def _heads_rows(self):
        return self.document["heads"]

    @property
    def comparison(self):
        return self.document["comparison"]

    @property
    def text(self):
        return None if self._native.text_input is None else TextBehaviour(self)

    def figures(self, directory):
        return self._native.figures(_path("directory", directory))

    def markdown(self, figures=None):
        """The report `qkov detect --markdown` writes, as text (the library writes both). With
        `figures` a directory, the figures are written there and linked by that path: give it
        relative to where the text goes."""
        return self._native.markdown(None if figures is None else _path("figures", figures))

    def __repr__(self):
        return f"<qkov.Detection of {self.model.path}>"


def detect(path_or_model, length=50, samples=10, seed=0, scan=None, dtype="float32", bos=None, threads=None, text=None, text_length=None):
    """Detects what each head does from the model's forward pass (`qkov detect`). Releases the GIL.

    Sequences [BOS] + r + r of `length` distinct random tokens, `samples` of them, from `seed`.
    scan: a qkov.Scan of the same model, or the path of a `qkov scan --json` document, to set the
    weight labels beside the behaviour on the input the scan predicts (the comparison); ValueError
    when it is of another model, or predicts own text and text is not "self".
    threads: BLAS threads for this call (1..cores), the caller's count restored afterwards.
    text: also measure every head on text (`qkov detect --text`), in Detection.text: "self" (`samples`
    sequences the model writes from BOS at temperature 1, seeded with `seed`, each `text_length`
    tokens after BOS, default 100), a path to a file of token ids (one sequence per line), or a list
    of token-id sequences (BOS put first where one lacks it).
    """
    length, samples = _positive("length", length), _positive("samples", samples)
    text_length = _positive("text_length", text_length)
    seed = _non_negative("seed", seed)
    if bos is not None and (not isinstance(bos, numbers.Integral) or isinstance(bos, bool) or bos < 0):
        raise ValueError(f"qkov: bos {bos!r}: expected a token id")
    scan_file = scan_object = None
    scan_name = ""
    if isinstance(scan, Scan):  # compared in memory: its document is never written
        scan_object, scan_name = scan._native, f"qkov.scan of {scan.model.path}"
    elif scan is not None:
        scan_file = _path("scan", scan)
    return Detection(_detect(path_or_model, length, samples, seed, bos, dtype, scan_file, scan_object, scan_name,
                             _positive("threads", threads), text, text_length))


def forward(model, tokens, dtype="float32", patterns=False, on_pattern=None):
    """The model's forward pass: logits [n, d_vocab] (row = position) in dtype "float32" or "float64".

    model       a qkov.Model or a path open_model accepts
    patterns    True: return (logits, patterns [n_layers, n_heads, n, n]), row = query, column = key
    on_pattern  a callable (layer, head, pattern [n, n]) that sees each pattern as it streams past
    Releases the GIL except while on_pattern runs.
    """
    if not isinstance(model, Model):
        model = open_model(model)
    return _forward(model, tokens, dtype, bool(patterns), on_pattern)


def read_composition(json_path):
    """The composition tensors a scan document names (`qkov scan --json FILE` writes FILE's pairs
    beside it, FILE.tensors.safetensors), as a dict of NumPy arrays: q_composition, k_composition,
    v_composition [L, H, L, H] and t3_singular_values [L, H, L, H, S], NaN where the document holds
    no pair. The file is read only when its SHA-256 is the one the document names. Any safetensors
    reader (safetensors.numpy.load_file, torch) reads the same file; this one needs NumPy only."""
    import hashlib
    import numpy as np

    json_path = _path("json_path", json_path)
    with open(json_path, encoding="utf-8") as f:
        composition = json.load(f).get("composition")
    if not isinstance(composition, dict) or not isinstance(composition.get("tensors"), str):
        raise ValueError(f"qkov: {json_path}: no composition tensors named (a qkov.scan/4 document names them)")
    name = composition["tensors"]
    if os.path.basename(name) != name or name in ("", ".", ".."):
        raise ValueError(f"qkov: {json_path}: composition.tensors {name!r} is not a file beside the document")
    path = os.path.join(os.path.dirname(json_path), name)
    if os.path.islink(path) or not os.path.isfile(path):
        raise ValueError(f"qkov: {path}: not a regular file (the composition tensors {json_path} names)")
    with open(path, "rb") as f:
        data = bytearray(f.read())  # writable: the arrays are views of it, not read-only copies
    if hashlib.sha256(data).hexdigest() != composition.get("sha256"):
        raise ValueError(f"qkov: {path}: its SHA-256 is not the one {json_path} names: not the file scanned with it")
    length = int.from_bytes(data[:8], "little")
    header = json.loads(bytes(data[8:8 + length]))
    start = 8 + length
    out = {}
    for key, entry in header.items():
        if key == "__metadata__":
            continue
        if entry["dtype"] != "F64":
            raise ValueError(f"qkov: {path}: {key} is {entry['dtype']}, not F64")
        begin, end = entry["data_offsets"]
        out[key] = np.frombuffer(data, dtype="<f8", count=(end - begin) // 8, offset=start + begin).reshape(entry["shape"])
    return out
