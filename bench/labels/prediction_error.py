#!/usr/bin/env python3
"""How far the scan's predicted attention is from what qkov detect measures, per model.

    prediction_error.py SCAN.json DETECT.json [SCAN.json DETECT.json ...]

SCAN.json from `qkov scan MODEL --json SCAN.json`, DETECT.json from `qkov detect MODEL --json
DETECT.json` on the same model. For every head with a prediction (heads[].mean_field) it compares
the predicted attention on the previous token, p(1), with the measured mean attention at offset 1,
and the predicted attention on BOS with the measured one, and prints the RMS and the largest
error over the heads."""
import json
import math
import sys


def errors(scan_path, detect_path):
    scan, detect = json.load(open(scan_path)), json.load(open(detect_path))
    measured = {(h["layer"], h["head"]): h for h in detect["heads"]}
    previous, bos = [], []
    for h in scan["heads"]:
        predicted = h.get("mean_field")
        if not predicted:
            continue
        m = measured[(h["layer"], h["head"])]
        previous.append(predicted["attention_by_offset"][1] - m["attention_by_offset"][1]["mean"])
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
    print(f"{scan_path}: {len(previous)} heads; p(1) {summary(previous)}; p(BOS) {summary(bos)}")
