"""How much of numpy_scan.py's time the two library-bound parts take, on GPT-2's attention file.

    numpy_floor.py FILE.safetensors

The parts: the 66 composition products (3D x D times D x D, one per layer pair, OpenBLAS dgemm)
and T3's singular values (144 d x d blocks per layer pair, LAPACK dgesdd without vectors). Any
float64 program that reports the same composition scores and T3 spectra through the same
libraries spends at least this long; a program at least 2x faster than numpy_scan.py would have
to finish in half of numpy's whole time. Prints seconds (best of 3 for each part, one whole scan)
at whatever OPENBLAS_NUM_THREADS the caller set. The blocks are computed from the real weights
(GPT-2's Conv1D layout, float32 in the file) so dgesdd's iteration counts are the real ones.
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy_scan  # noqa: E402


def weights(path):
    _, tensor, config = numpy_scan.open_gpt2(path)
    D, H, L = config["n_embd"], config["n_head"], config["n_layer"]
    reads, writes = [], []
    for layer in range(L):
        qkv = tensor(f"h.{layer}.attn.c_attn.weight")
        reads.append(np.ascontiguousarray(qkv.T))  # 3D x D: W_q, W_k, W_v rows by head
        writes.append(np.ascontiguousarray(tensor(f"h.{layer}.attn.c_proj.weight").T))  # D x D: W_o columns by head
    return D, H, L, reads, writes


def best_of(f, repeats=3):
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = f()
        times.append(time.perf_counter() - start)
    return min(times), result


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__.split("\n\n")[1])
    path = sys.argv[1]
    D, H, L, reads, writes = weights(path)
    d = D // H
    products_time, products = best_of(lambda: [reads[j] @ writes[i] for j in range(L) for i in range(j)])
    flop = len(products) * 2 * 3 * D * D * D
    # The W_v W_o blocks of each product: [target head, source head, d, d].
    blocks = [p[2 * D:].reshape(H, d, H, d).transpose(0, 2, 1, 3).reshape(H * H, d, d).copy() for p in products]
    svd_time, _ = best_of(lambda: [np.linalg.svd(b, compute_uv=False) for b in blocks])
    start = time.perf_counter()
    numpy_scan.scan(path)
    whole = time.perf_counter() - start
    count = len(blocks) * H * H
    print(f"composition products: {products_time:.3f} s ({flop / products_time / 1e9:.1f} GFLOP/s)")
    print(f"T3 singular values: {svd_time:.3f} s ({count} dgesdd of {d} x {d}, {svd_time / count * 1e6:.0f} us each)")
    print(f"numpy_scan.py whole: {whole:.3f} s; half of it: {whole / 2:.3f} s; the two parts: {products_time + svd_time:.3f} s")


if __name__ == "__main__":
    main()
