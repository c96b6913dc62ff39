#!/usr/bin/python3
"""The reference for bench/precision: the same R2 residual in mpmath at mp.dps = 100 (gmpy backend).

max over the (m, n) pairs of the max-abs entry of R_m^T R_n - R_{n-m}, d = 128, interleaved
2 x 2 blocks, theta_l = 10000^(-2l/128). cos and sin come from mpmath.cos_sin (one call for both).
Prints one JSON line: backend, pairs, max_residual, seconds (pair loop only; set-up not timed).
"""
import json
import sys
import time

import mpmath

D = 128


def main():
    pairs = [tuple(int(v) for v in line.split()) for line in open(sys.argv[1]) if line.strip()]
    mpmath.mp.dps = 100
    theta = [mpmath.mpf(10000) ** (-mpmath.mpf(2 * l) / D) for l in range(D // 2)]

    def blocks(p):
        return [mpmath.cos_sin(p * t) for t in theta]  # (cos, sin) per pair

    start = time.perf_counter()
    worst = mpmath.mpf(0)
    for m, n in pairs:
        rm, rn, rd = blocks(m), blocks(n), blocks(n - m)
        for (cm, sm), (cn, sn), (cd, sd) in zip(rm, rn, rd):
            # R_m^T R_n for blocks [[c, -s], [s, c]]: [[cm cn + sm sn, -cm sn + sm cn], [-sm cn + cm sn, sm sn + cm cn]]
            a = cm * cn + sm * sn
            b = sm * cn - cm * sn
            c = cm * sn - sm * cn
            e = sm * sn + cm * cn
            worst = max(worst, abs(a - cd), abs(b + sd), abs(c - sd), abs(e - cd))
    seconds = time.perf_counter() - start
    print(json.dumps({"backend": "mpmath-" + mpmath.libmp.BACKEND, "pairs": len(pairs),
                      "max_residual": float(worst), "seconds": seconds}))


if __name__ == "__main__":
    main()
