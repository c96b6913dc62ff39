#!/usr/bin/env python3
"""Every claim of docs/CLAIMS.md against its proof files in proofs/ and false twins in proofs/false/.

Lists each claim id with its proof files and twins, and fails when:
  - a claim whose checks include a compile-time proof (P symbolic, C certified, X exact instance)
    has no proof file proofs/<ID>_*.cpp (see X_CHECKED_OUTSIDE_PROOFS for the exact-instance
    checks kept elsewhere, each named there);
  - a claim with a proof file has no false twin proofs/false/<ID>_*.cpp: a proof whose statement
    no wrong variant is shown to break could be vacuous;
  - a proof file or twin names an id the catalogue lacks, or does not open by stating its claim
    ("// Claim <ID>..." for a proof, "// False twin of <ID>..." for a twin), as `qkov claims` reads them;
  - a proof file holds no static_assert that could fail: one outside comments and string literals
    whose condition is not a constant such as true or 1;
  - a twin does not pin its diagnostic for both compilers, or does not pin its own id
    ("<ID> false twin" in its static_assert's message and its expected g++ diagnostic; a twin
    refuted by a type error instead, as T5's shapes, pins the qkov entity it fails in), so that any
    other error could pass for a refutation.

usage: claims_coverage.py CLAIMS_MD PROOFS_DIR
"""
import re
import sys
from pathlib import Path

# Claims whose kind-X check is an exact computation outside proofs/ (a test case or an example
# named after the id, as docs/CLAIMS.md allows): not a proof file, and listed here so that the gap
# is visible. An entry whose claim gets a proof file fails the test until it is removed.
X_CHECKED_OUTSIDE_PROOFS = {
    "R7": "rank(W_Q) = rank(W_K) = 1 of the seed's head: tests/scan_label_tests.cpp, tests/scan_tests.cpp (run time)",
    "R14": "the OV bottleneck: examples/R14_copy_head.cpp (run time)",
    "B1": "the QK circuit as its SVD's channels: tests/scan_structure_tests.cpp (run time)",
    "B2": "bias absorption: tests/precision_tests.cpp (run time, kind H)",
}

CLAIM_ROW = re.compile(r"^\|\s*([A-Z][0-9]+)\s*\|(.*)\|\s*([^|]*)\|\s*$")
ID_PREFIX = re.compile(r"^([A-Z][0-9]+)_")


def catalogue(path):
    """{id: set of check kinds} from the catalogue's table rows."""
    claims = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        m = CLAIM_ROW.match(line)
        if m:
            claims[m.group(1)] = set(re.findall(r"\b([PXCHES])\b", m.group(3)))
    return claims


def code_only(text):
    """The text with comments and string or character literals blanked out."""
    return re.sub(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', " ", text, flags=re.S)


def assertions_that_could_fail(text):
    """The conditions of the static_asserts in code, without those that are a constant."""
    code = code_only(text)
    conditions = []
    for m in re.finditer(r"\bstatic_assert\s*\(", code):
        depth, i = 1, m.end()
        while i < len(code) and depth:
            depth += {"(": 1, ")": -1}.get(code[i], 0)
            i += 1
        condition = code[m.end():i - 1].split(",")[0].strip()
        if not re.fullmatch(r"\(*\s*(true|false|[0-9]+|[0-9]+[uUlL]*)\s*\)*", condition):
            conditions.append(condition)
    return conditions


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    claims = catalogue(sys.argv[1])
    proofs_dir = Path(sys.argv[2])
    errors = []
    if not claims:
        errors.append(f"{sys.argv[1]}: no claim rows found")
    proofs, twins = {}, {}
    for folder, found, opening in ((proofs_dir, proofs, r"// Claim {id}\b"), (proofs_dir / "false", twins, r"// False twin of {id}\b")):
        files = sorted(folder.glob("*.cpp"))
        if not files:
            errors.append(f"{folder}: no .cpp files")
        for f in files:
            m = ID_PREFIX.match(f.name)
            if not m:
                errors.append(f"{f}: its name does not start with a claim id")
                continue
            claim = m.group(1)
            found.setdefault(claim, []).append(f)
            if claim not in claims:
                errors.append(f"{f}: claim {claim} is not in the catalogue")
            text = f.read_text(encoding="utf-8")
            if not re.match(opening.format(id=claim), text):
                errors.append(f"{f}: the first line does not state its claim ('{opening.format(id=claim)[:-2]}...')")
            if folder == proofs_dir and not assertions_that_could_fail(text):
                errors.append(f"{f}: no static_assert that could fail (outside comments, with a condition that is not a constant)")
            if folder != proofs_dir:
                for compiler in ("gcc", "clang"):
                    pins = re.findall(rf"^// expect-error-{compiler}: (.+)$", text, re.M)
                    if not pins:
                        errors.append(f"{f}: no '// expect-error-{compiler}:' line")
                if "static_assert" in code_only(text):
                    if not re.search(rf"^// expect-error-gcc: .*\b{claim} false twin", text, re.M):
                        errors.append(f"{f}: its expected g++ diagnostic does not name '{claim} false twin'")
                    if not re.search(rf'static_assert\s*\(.*"{claim} false twin', text, re.S):
                        errors.append(f"{f}: no static_assert whose message says '{claim} false twin'")
                elif not re.search(r"^// expect-error-gcc: .*\bqkov::", text, re.M):  # a twin refuted by a type error (T5's shapes)
                    errors.append(f"{f}: no static_assert, and its expected g++ diagnostic names no qkov entity it fails in")

    print(f"{'claim':6} {'checks':8} proof files / false twins")
    for claim, kinds in claims.items():
        own, wrong = proofs.get(claim, []), twins.get(claim, [])
        listed = ", ".join(p.name for p in own) or "-"
        print(f"{claim:6} {''.join(sorted(kinds)):8} {listed} / {', '.join(p.name for p in wrong) or '-'}")
        compile_time = kinds & {"P", "C", "X"}
        if own and not wrong:
            errors.append(f"{claim}: proof files {listed} but no false twin in {proofs_dir / 'false'}")
        if wrong and not own:
            errors.append(f"{claim}: false twins but no proof file in {proofs_dir}")
        if compile_time and not own:
            if kinds & {"P", "C"} or claim not in X_CHECKED_OUTSIDE_PROOFS:
                errors.append(f"{claim}: checks {''.join(sorted(compile_time))} ask for a proof file {claim}_*.cpp in {proofs_dir}, there is none")
            else:
                print(f"       (X checked outside proofs/: {X_CHECKED_OUTSIDE_PROOFS[claim]})")
        if claim in X_CHECKED_OUTSIDE_PROOFS and own:
            errors.append(f"{claim}: has proof files now: remove it from X_CHECKED_OUTSIDE_PROOFS")
    for claim in X_CHECKED_OUTSIDE_PROOFS:
        if claim not in claims or "X" not in claims[claim]:
            errors.append(f"X_CHECKED_OUTSIDE_PROOFS names {claim}, which the catalogue does not list with an X check")

    for e in errors:
        print(f"ERROR: {e}")
    print(f"{len(claims)} claims, {sum(map(len, proofs.values()))} proof files, {sum(map(len, twins.values()))} false twins: "
          + ("FAILED" if errors else "every claim with a compile-time check has its proof files and twins"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
