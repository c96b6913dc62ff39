"""What the Python tests share: where the model files and the qkov tool are, a direct reader of
safetensors files (forward_reference.py's: numpy + json, independent of qkov), and the CLI run as a subprocess."""
import importlib.util
import os
import subprocess
from pathlib import Path

import pytest


def shared_dir():
    """QKOV_SHARED_DIR when set, else the directory CMake's QKOV_SHARED_DIR named (as the C++ tests)."""
    return Path(os.environ.get("QKOV_SHARED_DIR") or os.environ.get("QKOV_SHARED_DIR_DEFAULT") or "../shared")


def shared_or_skip(relative):
    path = shared_dir() / relative
    if not path.exists():
        pytest.skip(f"{path} is absent (set QKOV_SHARED_DIR to the shared directory)")
    return path


def fixture_model(name):
    return shared_or_skip(f"fixtures/models/{name}")


def stories_hf():
    return shared_or_skip("real_models/llama2c-stories260K/hf")


def cli_or_skip():
    cli = os.environ.get("QKOV_CLI")
    if not cli or not Path(cli).exists():
        pytest.skip("the qkov tool is not built (QKOV_BUILD_APPS=OFF): nothing to compare with")
    return cli


def run_cli(*args):
    """Runs `qkov ARGS...`; fails the test with its stderr when it fails."""
    done = subprocess.run([cli_or_skip(), *map(str, args)], capture_output=True, text=True)
    assert done.returncode == 0, f"qkov {' '.join(map(str, args))} failed:\n{done.stderr}"
    return done


# The independent numpy forward pass the C++ forward test holds qkov to; its safetensors reader
# (numpy + json only) is the one these tests read files with.
_spec = importlib.util.spec_from_file_location(
    "forward_reference", Path(os.environ.get("QKOV_SOURCE_DIR", Path(__file__).parents[2])) / "tests" / "forward_reference.py")
reference = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(reference)
read_safetensors = reference.read_safetensors


def tensor(tensors, *names):
    """The first of `names` found, with or without a family's prefix."""
    for name in names:
        for prefix in ("", "transformer.", "gpt_neox.", "model."):
            if prefix + name in tensors:
                return tensors[prefix + name]
    raise KeyError(f"none of {names} in the file")
