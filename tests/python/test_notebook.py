"""The example notebook runs from start to end (jupyter nbconvert --execute) against stories260K."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import shared_dir, stories_hf


def test_the_example_notebook_runs(tmp_path):
    stories_hf()  # skips, with the reason, when the weights are absent
    pytest.importorskip("nbconvert", reason="jupyter-nbconvert is missing (scripts/install-deps.sh installs it)")
    pytest.importorskip("ipykernel", reason="python3-ipykernel is missing (scripts/install-deps.sh installs it)")
    pytest.importorskip("matplotlib", reason="python3-matplotlib is missing (scripts/install-deps.sh installs it)")
    pytest.importorskip("pandas", reason="python3-pandas is missing (scripts/install-deps.sh installs it)")
    notebook = Path(os.environ.get("QKOV_SOURCE_DIR", Path(__file__).parents[2])) / "examples" / "python" / "what_does_each_head_do.ipynb"
    environment = dict(os.environ, QKOV_SHARED_DIR=str(shared_dir().resolve()), MPLBACKEND="Agg")
    # The kernel must be this interpreter (the one the module is built for and that has NumPy).
    environment["PATH"] = str(Path(sys.executable).parent) + os.pathsep + environment.get("PATH", "")
    done = subprocess.run([sys.executable, "-m", "nbconvert", "--to", "notebook", "--execute", "--ExecutePreprocessor.timeout=600",
                           "--output-dir", str(tmp_path), str(notebook)], capture_output=True, text=True, env=environment)
    assert done.returncode == 0, done.stderr[-4000:]
    executed = (tmp_path / notebook.name).read_text()
    assert "strongest K-composition" in executed and "weight labels confirmed" in executed
