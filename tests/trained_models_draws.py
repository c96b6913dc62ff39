#!/usr/bin/env python3
"""Writes tests/trained_models_draws.hpp: the 20 sequences r on which ../shared/trained_models'
independent NumPy forward pass measured its TransformerLens scores (ground_truth.json's
conventions.tl_scores: r = numpy.random.default_rng(1000 + seed).choice(range(3, V), 50,
replace=False), seeds 0..19, V = 512 in every model there), so that tests/detect_tests.cpp can
score qkov's forward pass on the very same inputs instead of on draws of its own.

The method is checked against the one draw ground_truth.json lists in full (the greedy
continuation's prompt, default_rng(4242), 32 tokens). Run: tests/trained_models_draws.py [SHARED_DIR]
"""
import json
import sys
from pathlib import Path

import numpy as np


def draw(seed, count):
    return [int(t) for t in np.random.default_rng(seed).choice(range(3, 512), count, replace=False)]


def main():
    shared = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared")
    for folder in sorted((shared / "trained_models").iterdir()):
        if not (folder / "ground_truth.json").exists():
            continue
        truth = json.loads((folder / "ground_truth.json").read_text())
        assert truth["geometry"]["V"] == 512 and truth["tokens"]["content_ids"] == [3, 511], folder
        greedy = truth["behaviour"]["greedy_continuation"]
        r = draw(4242, 32)
        assert greedy["prompt"] == [truth["tokens"]["bos"]] + r + r[:8], f"{folder.name}: the draw does not give the listed prompt"
    rows = ",\n".join("    {" + ", ".join(map(str, draw(1000 + seed, 50))) + "}" for seed in range(20))
    out = Path(__file__).with_name("trained_models_draws.hpp")
    out.write_text(f"""// Written by tests/trained_models_draws.py: r for seeds 0..19 of ../shared/trained_models'
// ground_truth.json (numpy default_rng(1000 + seed).choice(range(3, 512), 50, replace=False)); each
// input is [BOS] + r + r.
#pragma once

#include <cstddef>

namespace qkov::test {{

inline constexpr std::size_t trained_models_draws[20][50] = {{
{rows}}};

}} // namespace qkov::test
""")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
