"""Writes a safetensors file from numpy alone, one tensor at a time, for the benchmarks' generated models.

The format: an 8-byte little-endian header length, the header (JSON: name -> dtype, shape, byte
range in the data), padded with spaces so the data starts 8-byte aligned, then each tensor's raw
little-endian float32 bytes in header order. Only float32 is written.
"""
import json
import os
import struct

import numpy as np


def write_safetensors(path, tensors, values):
    """tensors: [(name, shape)] in file order; values(name, shape) returns that tensor (called once
    per tensor, in order, so a model larger than memory is never held whole)."""
    header, offset = {}, 0
    for name, shape in tensors:
        size = 4 * int(np.prod(shape))
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for name, shape in tensors:
            array = np.asarray(values(name, shape))
            if tuple(array.shape) != tuple(shape):
                raise ValueError(f"{name}: values gave shape {array.shape}, the header says {tuple(shape)}")
            f.write(array.astype("<f4").tobytes())


def initial_weights(seed, kinds):
    """values() for write_safetensors as GPT-2 starts training: kinds[name] is "normal" (N(0, 0.02^2),
    numpy's PCG64 seeded with seed, drawn in file order), "ones" (layer-norm gains) or "zeros" (biases)."""
    rng = np.random.default_rng(seed)

    def values(name, shape):
        kind = kinds[name]
        if kind == "normal":
            return rng.standard_normal(shape, dtype=np.float32) * np.float32(0.02)
        if kind in ("ones", "zeros"):
            return np.full(shape, 1.0 if kind == "ones" else 0.0, dtype=np.float32)
        raise ValueError(f"{name}: unknown initialisation '{kind}'")

    return values


def write_generated_model(arguments, usage, tensors, config):
    """The generators' command line, DIR [SEED] (default seed 0): writes DIR/model.safetensors from
    tensors() ((name, shape, kind) in file order, drawn by initial_weights) and DIR/config.json
    (config). usage is the message for a wrong command line."""
    if len(arguments) not in (1, 2):
        raise SystemExit(usage)
    directory = arguments[0]
    seed = int(arguments[1]) if len(arguments) == 2 else 0
    os.makedirs(directory, exist_ok=True)
    entries = [(name, shape) for name, shape, _ in tensors()]
    kinds = {name: kind for name, _, kind in tensors()}
    write_safetensors(os.path.join(directory, "model.safetensors"), entries, initial_weights(seed, kinds))
    with open(os.path.join(directory, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
