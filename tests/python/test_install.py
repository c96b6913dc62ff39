"""The installed module imports from outside the build tree: `cmake --install` of the component
python into a fresh prefix, then a new interpreter with only that prefix's site-packages added."""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest


def test_the_installed_package_imports_outside_the_build_tree():
    binary, site = os.environ.get("QKOV_BINARY_DIR"), os.environ.get("QKOV_PYTHON_INSTALL_DIR")
    if not binary or not site:
        pytest.skip("run by CTest, which names the build directory (QKOV_BINARY_DIR, QKOV_PYTHON_INSTALL_DIR)")
    # Not pytest's tmp_path: CTest puts that inside the build tree.
    with tempfile.TemporaryDirectory() as scratch:
        check_install(Path(binary), site, Path(scratch))


def check_install(binary, site, scratch):
    """Installs into scratch/prefix and imports from there, in a new interpreter whose directory is scratch."""
    assert binary not in scratch.parents
    prefix = scratch / "prefix"
    done = subprocess.run(["cmake", "--install", binary, "--component", "python", "--prefix", prefix], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    installed = prefix / site / "qkov"
    assert (installed / "__init__.py").exists() and list(installed.glob("_qkov*.so")), sorted(map(str, prefix.rglob("*")))
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    environment["PYTHONPATH"] = str(prefix / site)
    probe = ("import qkov, sys\n"
             "print(qkov.__file__)\n"
             "try:\n    qkov.open_model('no-such-model')\n"
             "except qkov.ModelFileError as e:\n    print('refused:', e)\n")
    run = subprocess.run([sys.executable, "-c", probe], cwd=scratch, env=environment, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(str(installed / "__init__.py")), run.stdout
    assert "refused: no-such-model: no such file or directory" in run.stdout
