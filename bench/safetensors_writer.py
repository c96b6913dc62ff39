"""Writes a safetensors file from numpy alone, one tensor at a time, for the benchmarks' generated models.

The format: an 8-byte little-endian header length, the header (JSON: name -> dtype, shape, byte
range in the data), padded with spaces so the data starts 8-byte aligned, then each tensor's raw
little-endian bytes in header order. float32 ("F32") or bfloat16 ("BF16": float32 rounded to the
nearest, ties to even, in its upper 16 bits) is written; a tensor is generated and written in
blocks of rows, so neither the model nor one of its tensors is ever held whole.
"""
import json
import os
import struct

import numpy as np


BYTES = {"F32": 4, "BF16": 2}
BLOCK_ELEMENTS = 1 << 24  # rows are generated this many values at a time (64 MB of float32)


def encoded(array, dtype):
    """array (float32) as the little-endian bytes of dtype."""
    if dtype == "F32":
        return array.astype("<f4").tobytes()
    bits = np.ascontiguousarray(array, dtype="<f4").view("<u4")
    rounded = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)
    return rounded.astype("<u2").tobytes()


def row_blocks(shape):
    """(first row, rows) covering shape[0] in blocks of about BLOCK_ELEMENTS values."""
    rows = shape[0] if shape else 1
    per_row = int(np.prod(shape[1:])) if len(shape) > 1 else 1
    step = max(1, BLOCK_ELEMENTS // max(per_row, 1)) if len(shape) > 1 else rows
    for first in range(0, rows, step):
        yield first, min(step, rows - first)


def write_safetensors(path, tensors, values, dtype="F32"):
    """tensors: [(name, shape)] in file order; values(name, shape) returns that tensor's values, a
    block of rows (shape with fewer rows) at a time: it is called for consecutive blocks, in file
    order, so a model larger than memory is never held whole."""
    if dtype not in BYTES:
        raise ValueError(f"dtype {dtype}: only {', '.join(BYTES)} are written")
    header, offset = {}, 0
    for name, shape in tensors:
        size = BYTES[dtype] * int(np.prod(shape))
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for name, shape in tensors:
            for _, rows in row_blocks(shape):
                block = (rows,) + tuple(shape[1:]) if len(shape) > 0 else tuple(shape)
                array = np.asarray(values(name, block))
                if tuple(array.shape) != block:
                    raise ValueError(f"{name}: values gave shape {array.shape}, the block is {block}")
                f.write(encoded(array, dtype))


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


def write_generated_model(arguments, usage, tensors, config, dtype="F32"):
    """The generators' command line, DIR [SEED] (default seed 0): writes DIR/model.safetensors from
    tensors() ((name, shape, kind) in file order, drawn by initial_weights, stored as dtype) and
    DIR/config.json (config). usage is the message for a wrong command line."""
    if len(arguments) not in (1, 2):
        raise SystemExit(usage)
    directory = arguments[0]
    seed = int(arguments[1]) if len(arguments) == 2 else 0
    os.makedirs(directory, exist_ok=True)
    entries = [(name, shape) for name, shape, _ in tensors()]
    kinds = {name: kind for name, _, kind in tensors()}
    write_safetensors(os.path.join(directory, "model.safetensors"), entries, initial_weights(seed, kinds), dtype)
    with open(os.path.join(directory, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
