#!/usr/bin/env python3
"""How far the scan's predicted attention is from what qkov detect measures, per model.

    prediction_error.py SCAN.json DETECT.json [SCAN.json DETECT.json ...]

SCAN.json from `qkov scan MODEL --json SCAN.json`, DETECT.json from `qkov detect MODEL --json
DETECT.json` on the same model. For every head with a prediction (heads[].mean_field) it compares
the predicted previous-token score (mean attention on key i - 1 over every query) with the measured
one (TransformerLens' score divided by what is attainable, (n - 1) / n, to be the same mean), and
the predicted attention on BOS with the measured one, and prints the RMS and the largest error
over the heads. A scan whose labels predict text (its "input", e.g. `qkov scan --calibrate self`)
is compared with the detection's text (`qkov detect --text self`), as `qkov detect --scan` pairs them."""
import json
import math
import sys


def errors(scan_path, detect_path):
    scan, detect = json.load(open(scan_path)), json.load(open(detect_path))
    behaviour = detect["detection"]
    if scan.get("input", "random tokens") != "random tokens":
        behaviour = detect.get("text")
        if not behaviour:
            sys.exit(f"{scan_path} predicts {scan['input']}, but {detect_path} measured no text (qkov detect --text)")
    heads = behaviour["heads"] if behaviour is not detect["detection"] else detect["heads"]
    measured = {(h["layer"], h["head"]): h for h in heads}
    attainable = behaviour["attainable"]["previous_token"]
    previous, bos = [], []
    for h in scan["heads"]:
        predicted = h.get("mean_field")
        if not predicted:
            continue
        m = measured[(h["layer"], h["head"])]
        previous.append(predicted["previous_token"] - m["previous_token"] / attainable)
        bos.append(predicted["bos"] - m["bos"]["mean"])
    return previous, bos


def summary(values):
    if not values:
        return "no heads"
    return "RMS %.3f, largest %.3f" % (math.sqrt(sum(v * v for v in values) / len(values)), max(abs(v) for v in values))


if len(sys.argv) < 3 or len(sys.argv) % 2 != 1:
    sys.exit(__doc__)
for scan_path, detect_path in zip(sys.argv[1::2], sys.argv[2::2]):
    previous, bos = errors(scan_path, detect_path)
    print(f"{scan_path}: {len(previous)} heads; previous-token score {summary(previous)}; p(BOS) {summary(bos)}")
