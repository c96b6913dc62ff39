#!/usr/bin/env python3
"""Lists the tests CTest skipped, with their reasons, from the JUnit files of scripts/test.sh's ctest
runs (ctest --output-junit), and fails when QKOV_REQUIRE_ALL_TESTS=1 and any test was skipped.

A test that cannot run (model files absent, python3-jsonschema or the Python module missing) is
reported by CTest as skipped, which CTest does not count as a failure: on a machine without the
shared directory the suite still passes and this says what did not run. CI sets
QKOV_REQUIRE_ALL_TESTS=1, where a skip means a test CI is meant to run did not run.

usage: report_skipped.py JUNIT_FILE...   (exit 0, or 1 when required tests were skipped or a file is unreadable)
"""
import os
import sys
import xml.etree.ElementTree as ElementTree


def skipped_tests(path):
    """(test name, reason) of every skipped test case of one JUnit file."""
    out = []
    for case in ElementTree.parse(path).getroot().iter("testcase"):
        skip = case.find("skipped")
        if skip is None and case.get("status") != "notrun":
            continue
        text = case.findtext("system-out") or ""
        reasons = [line.strip() for line in text.splitlines() if "SKIPPED" in line]
        if not reasons:  # no line says why: the test's last words, or CTest's own
            reasons = [line.strip() for line in text.splitlines() if line.strip()][-2:] or [skip.get("message", "") if skip is not None else ""]
        out.append((case.get("name"), reasons))
    return out


def main():
    files = sys.argv[1:]
    if not files:
        print("report_skipped.py: no JUnit file given", file=sys.stderr)
        return 1
    skipped = []
    for path in files:
        try:
            skipped += skipped_tests(path)
        except (OSError, ElementTree.ParseError) as e:
            print(f"report_skipped.py: cannot read {path}: {e}", file=sys.stderr)
            return 1
    required = os.environ.get("QKOV_REQUIRE_ALL_TESTS") == "1"
    if not skipped:
        print("skipped tests: none")
        return 0
    print(f"skipped tests: {len(skipped)} (reported by CTest as skipped, not passed)")
    for name, reasons in skipped:
        print(f"  {name}")
        for reason in reasons[:3]:  # a suite may name many absent files: the first and the count
            print(f"      {reason}")
        if len(reasons) > 3:
            print(f"      ... {len(reasons) - 3} more lines")
    if required:
        print(f"FAILED: QKOV_REQUIRE_ALL_TESTS=1 and {len(skipped)} tests were skipped: every test must run here "
              "(the shared directory ../shared, python3-jsonschema and the Python module are needed)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
