"""Runs one pytest file for CTest: skipped (exit code 77) with the reason when pytest or NumPy is
missing, and a failure when the file collects no test (pytest's exit code 5), so a test that
silently stopped being collected cannot pass."""
import os
import sys

try:
    import numpy  # noqa: F401
    import pytest
except ImportError as e:
    print(f"SKIPPED: {e.name} is missing for {sys.executable} (scripts/install-deps.sh installs python3-pytest and python3-numpy)")
    sys.exit(77)

# pytest creates --basetemp itself but not its parent.
for argument in sys.argv[1:]:
    if argument.startswith("--basetemp="):
        os.makedirs(os.path.dirname(argument.split("=", 1)[1]), exist_ok=True)

code = pytest.main(["-q", "-rs", "-p", "no:cacheprovider", *sys.argv[1:]])
sys.exit(1 if code == pytest.ExitCode.NO_TESTS_COLLECTED else int(code))
