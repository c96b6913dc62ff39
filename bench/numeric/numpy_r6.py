#!/usr/bin/python3
"""R6 at length L in numpy: the same previous-token head and the same timed work as qkov_r6.cpp
(projections, interleaved RoPE on queries and keys, causal scores, softmax), written the usual
numpy way. The weights and tokens are built untimed; one untimed pass warms up, one is timed.
Prints "<seconds> <sum over rows of the weight on the previous token>".
    numpy_r6.py L f64|f32 [alpha]"""
import sys
import time

import numpy as np

D, d, base = 768, 64, 10000.0


def main():
    length, dtype = int(sys.argv[1]), {"f64": np.float64, "f32": np.float32}[sys.argv[2]]
    alpha = float(sys.argv[3]) if len(sys.argv) > 3 else 100.0
    theta = base ** (-np.arange(0, d, 2, dtype=np.float64) / d)
    w_k = np.zeros((d, D))
    w_k[0::2, 0] = 1.0  # W_k x = (1, 0, 1, 0, ...) for tokens with x_0 = 1
    w_q = np.zeros((d, D))  # alpha R_{-1} W_k: pair l of column 0 becomes alpha (cos theta_l, -sin theta_l)
    w_q[0::2, 0] = alpha * np.cos(theta)
    w_q[1::2, 0] = -alpha * np.sin(theta)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((length, D))
    x[:, 0] = 1.0
    x, w_q, w_k = x.astype(dtype), w_q.astype(dtype), w_k.astype(dtype)
    angles = np.arange(length)[:, None] * theta[None, :]
    cos, sin = np.cos(angles).astype(dtype), np.sin(angles).astype(dtype)
    mask = np.triu(np.ones((length, length), dtype=bool), 1)

    def rope(v):
        out = np.empty_like(v)
        even, odd = v[:, 0::2], v[:, 1::2]
        out[:, 0::2] = even * cos - odd * sin
        out[:, 1::2] = even * sin + odd * cos
        return out

    def pattern():
        q, k = rope(x @ w_q.T), rope(x @ w_k.T)
        s = q @ k.T
        s[mask] = -np.inf
        s -= s.max(axis=1, keepdims=True)
        np.exp(s, out=s)
        s /= s.sum(axis=1, keepdims=True)
        return s

    pattern()
    start = time.perf_counter()
    p = pattern()
    seconds = time.perf_counter() - start
    print(f"{seconds:.6f} {float(np.diagonal(p, -1).astype(np.float64).sum()):.6f}")


if __name__ == "__main__":
    main()
