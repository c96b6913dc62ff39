"""What the Python tests share: where the model files and the qkov tool are, a direct reader of
safetensors files (numpy + json, independent of qkov), and the CLI run as a subprocess."""
import json
import os
import struct
import subprocess
from pathlib import Path

import numpy as np
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


def read_safetensors(path):
    """Every tensor of a .safetensors file as float64 numpy arrays, read with numpy and json only."""
    raw = Path(path).read_bytes()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    data = raw[8 + n:]
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        begin, end = t["data_offsets"]
        chunk = data[begin:end]
        if t["dtype"] == "BF16":  # the upper half of a float32
            values = (np.frombuffer(chunk, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
        else:
            values = np.frombuffer(chunk, dtype={"F32": "<f4", "F64": "<f8", "F16": "<f2"}[t["dtype"]])
        out[name] = values.astype(np.float64).reshape(t["shape"])
    return out


def tensor(tensors, *names):
    """The first of `names` found, with or without a family's prefix."""
    for name in names:
        for prefix in ("", "transformer.", "gpt_neox.", "model."):
            if prefix + name in tensors:
                return tensors[prefix + name]
    raise KeyError(f"none of {names} in the file")
