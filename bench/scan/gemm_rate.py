"""The machine's float64 GEMM rate (OpenBLAS dgemm through numpy) at the scan's dominant sizes.

    gemm_rate.py V     prints "<GFLOP/s at 768 x 768 x 768> <GFLOP/s at 768 x V x 768>"

768 x 768 x 768: the shape class of the composition products (qkov forms 2304 x 768 times
768 x 768 per layer pair). 768 x V x 768: W_E^T W_U, with two distinct V x 768 operands so that
numpy calls dgemm, not the dsyrk it picks for a product of an array with its own transpose.
The rate is 2 M K N / the fastest of several runs (the limit, not a typical run), at whatever
OPENBLAS_NUM_THREADS the caller set.
"""
import sys
import time

import numpy as np


def rate(a, b, transpose_a, repeats):
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        c = a.T @ b if transpose_a else a @ b
        best = min(best, time.perf_counter() - start)
    m, n = c.shape
    k = a.shape[0] if transpose_a else a.shape[1]
    return 2.0 * m * k * n / best / 1e9


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__.split("\n\n")[1])
    vocabulary = int(sys.argv[1])
    rng = np.random.default_rng(0)
    square = [rng.standard_normal((768, 768)) for _ in range(2)]
    tall = [rng.standard_normal((vocabulary, 768)) for _ in range(2)]
    print(f"{rate(square[0], square[1], False, 20):.3f} {rate(tall[0], tall[1], True, 3):.3f}")


if __name__ == "__main__":
    main()
