#!/usr/bin/python3
"""R10 at N tokens in numpy: the same d0 sweep and the same timed work as qkov_r10.cpp (per head:
keys of all tokens, the query of the last token, interleaved RoPE on both or none, the last
query's scores against every key, softmax), written the usual numpy way. Same closed-formula tokens. One untimed
sweep warms up, then INNER timed sweeps. Prints "<median seconds per sweep> <sum over the six
heads of the largest weight>".
    numpy_r10.py N [INNER]"""
import sys
import time

import numpy as np

D, d, base = 768, 64, 10000.0


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    inner = int(sys.argv[2]) if len(sys.argv) > 2 else 21
    x = np.sin(0.7 * np.arange(n * D, dtype=np.float64).reshape(n, D) + 0.3)
    s = np.cos(np.arange(d, dtype=np.float64))
    x[n - 1, :d] = s
    x[: n - 1, d:2 * d] = s
    theta = base ** (-np.arange(0, d, 2, dtype=np.float64) / d)
    angles = np.arange(n)[:, None] * theta[None, :]
    cos, sin = np.cos(angles), np.sin(angles)

    def reader(d0, offset):
        w = np.zeros((d, D))
        w[np.arange(d0, d), offset + np.arange(d0, d)] = 1.0
        return w

    heads = [(reader(d0, 0), reader(d0, d), True) for d0 in (0, d // 2, d - d // 4, d - d // 8, d - 2)]
    heads.append((reader(0, 0), reader(0, d), False))

    def rope(v, c, s):
        out = np.empty_like(v)
        even, odd = v[:, 0::2], v[:, 1::2]
        out[:, 0::2] = even * c - odd * s
        out[:, 1::2] = even * s + odd * c
        return out

    def sweep():
        check = 0.0
        for w_q, w_k, with_rope in heads:
            q, k = x[-1:] @ w_q.T, x @ w_k.T
            if with_rope:
                q, k = rope(q, cos[-1:], sin[-1:]), rope(k, cos, sin)
            scores = k @ q[0]
            scores -= scores.max()
            weights = np.exp(scores)
            weights /= weights.sum()
            check += float(weights.max())
        return check

    sweep()
    seconds = []
    for _ in range(inner):
        start = time.perf_counter()
        check = sweep()
        seconds.append(time.perf_counter() - start)
    print(f"{sorted(seconds)[inner // 2]:.6f} {check:.9f}")


if __name__ == "__main__":
    main()
