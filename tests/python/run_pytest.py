"""Runs one pytest file for CTest: skipped (exit code 77) with the reason when pytest or NumPy is
missing, and a failure when the file collects no test (pytest's exit code 5), so a test that
silently stopped being collected cannot pass. A run in which some test was skipped (model files
absent, a module missing) and none failed also ends with 77, the reasons printed, so CTest reports
the file as skipped instead of counting what did not run as passed."""
import os
import sys

try:
    import numpy  # noqa: F401
    import pytest
except ImportError as e:
    print(f"SKIPPED: {e.name} is missing for {sys.executable} (scripts/install-deps.sh installs python3-pytest and python3-numpy)")
    sys.exit(77)


class SkipsSeen:
    """A pytest plugin that keeps every skip's test id and reason."""

    def __init__(self):
        self.skipped = []

    def pytest_runtest_logreport(self, report):
        if report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
            self.skipped.append(f"{report.nodeid}: {reason}")


# pytest creates --basetemp itself but not its parent.
for argument in sys.argv[1:]:
    if argument.startswith("--basetemp="):
        os.makedirs(os.path.dirname(argument.split("=", 1)[1]), exist_ok=True)

skips = SkipsSeen()
code = pytest.main(["-q", "-rs", "-p", "no:cacheprovider", *sys.argv[1:]], plugins=[skips])
if code == pytest.ExitCode.NO_TESTS_COLLECTED:
    sys.exit(1)
if code == pytest.ExitCode.OK and skips.skipped:
    for skip in skips.skipped:
        print(f"SKIPPED: {skip}")
    sys.exit(77)
sys.exit(int(code))
