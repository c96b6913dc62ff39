"""qkov.audit_rope and qkov.validate against `qkov audit-rope --json` and `qkov validate --json`."""
import json

import numpy as np
import pytest

import qkov
from conftest import run_cli


def test_the_audit_is_the_clis(tmp_path):
    run_cli("audit-rope", "--d", "64", "--dtype", "fp32,bf16", "--max-pos", "1000", "--figure", "", "--json", tmp_path / "audit.json")
    want = json.loads((tmp_path / "audit.json").read_text())
    got = qkov.audit_rope(d=64, dtypes=["fp32", "bf16"], max_position=1000)
    assert got["reference_smallest_gap"] == want["reference_smallest_gap"]
    assert [line["label"] for line in got["lines"]] == [line["label"] for line in want["lines"]]
    assert len(got["lines"]) >= 2  # fp32 and bf16 at least: the loop below compares them, not none
    for line, reference in zip(got["lines"], want["lines"]):
        assert (line["recipe"], line["scanned_to"], line["breakdown_query"]) == (
            reference["recipe"], reference["scanned_to"], reference["previous_token_head_first_failure"])
        assert len(line["buckets"]) == len(reference["buckets"]) > 0
        for bucket, expected in zip(line["buckets"], reference["buckets"]):
            assert (bucket["first"], bucket["last"], bucket["positions"]) == (expected["first"], expected["last"], expected["sampled"])
            for key in ("angle_abs", "angle_rel", "cos_sin_abs", "cos_sin_rel", "score_abs", "score_rel"):
                assert bucket[key] == expected[key], key  # fp32 and bf16 errors are finite at these positions
        np.testing.assert_array_equal(line["curve"], np.array(reference["cos_sin_abs_by_position"], dtype=float))


def test_an_audit_setting_it_cannot_honour_is_named():
    with pytest.raises(ValueError, match="max_position must be in 1..100000000"):
        qkov.audit_rope(max_position=0)
    with pytest.raises(ValueError, match="'fp8': expected fp32, bf16 or fp16"):
        qkov.audit_rope(dtypes=["fp8"])
    with pytest.raises(ValueError, match="d = 96"):
        qkov.audit_rope(d=96, max_position=10)
    with pytest.raises(ValueError, match="dtypes is empty: name at least one of fp32, bf16, fp16"):
        qkov.audit_rope(dtypes=[])


def test_validate_is_the_clis(tmp_path):
    # Every row but T2's, which forms two 768 x 768 products at 50 digits (7 of a quick run's 11 s);
    # the report's tests run it through the tool.
    claims = ["R1", "R2", "R4", "R5", "B2", "B3"]
    run_cli("validate", "--quick", "--digits", "50", "--claims", ",".join(claims), "--json", tmp_path / "validate.json")
    want = json.loads((tmp_path / "validate.json").read_text())["rows"]
    got = qkov.validate(digits=50, quick=True, claims=claims)
    assert [(r["claim"], r["size"], r["digits"]) for r in got] == [(r["claim"], r["size"], r["digits"]) for r in want]
    assert [r["claim"] for r in got] == claims  # the rows compared below are the rows asked for
    for row, reference in zip(got, want):
        assert row["within_bound"] and row["max_residual"] == reference["max_residual"] and row["bound"] == reference["bound"]
    with pytest.raises(ValueError, match="only 50 and 100 are built in"):
        qkov.validate(digits=64)
    # The CLI's range of --max-position, not a run that never ends.
    with pytest.raises(ValueError, match=r"max_position 4611686018427387904 is out of range, expected an integer in 64\.\.100000000"):
        qkov.validate(max_position=2**62)
    with pytest.raises(ValueError, match="max_position 1 is out of range"):
        qkov.validate(max_position=1)
    with pytest.raises(ValueError, match="the validation has no row for claim 'R3': it validates R1, R2, R4, R5, T2, B2, B3"):
        qkov.validate(claims=["R1", "R3"])
    with pytest.raises(ValueError, match="claims is empty"):
        qkov.validate(claims=[])
