#!/usr/bin/env python3
"""The values the certified proofs pin (proofs/R5, R6, R8, R10, T4's soft part) and their false
twins' near misses are set against, computed apart from qkov: mpmath at 50 digits, from the
formulas the proofs state, for seed 001's setting (d = 64, base 10000, theta_l = base^(-2l/d)).

Run: tests/certified_values.py   (needs python3-mpmath)
"""
from mpmath import cos, exp, matrix, mp, mpf

mp.dps = 50
d, base = 64, mpf(10000)
theta = [base ** (-mpf(2 * l) / d) for l in range(d // 2)]


def g(k):
    """R5's gap at offset k: d/2 - sum_l cos(k theta_l)."""
    return mpf(d) / 2 - sum(cos(k * t) for t in theta)


def main():
    gaps = {k: g(k) for k in range(1, 4097)}
    for first, last in ((1, 20), (1, 4096), (2, 4096)):
        k = min(range(first, last + 1), key=lambda k: gaps[k])
        print(f"R5 min gap over {first}..{last}: at k = {k}: {mp.nstr(gaps[k], 20)}")
    # R6: m(alpha, N) = 1 / (1 + S), S = exp(-alpha g(1)) + sum_{k=1}^{N-2} exp(-alpha g(k)).
    for alpha, window in ((1, 20), (1, 2048), (100, 2048)):
        s = exp(-alpha * gaps[1]) + sum(exp(-alpha * gaps[k]) for k in range(1, window - 1))
        print(f"R6 alpha = {alpha}, {window} tokens: mass {mp.nstr(1 / (1 + s), 20)}, 1 - mass {mp.nstr(s / (1 + s), 20)}")
    # R8: c_N = min over the pairs l and offsets 1 <= k <= N of 1 - cos(k theta_l).
    for window in (20, 512):
        print(f"R8 c_{window}: {mp.nstr(min(1 - cos(k * t) for t in theta for k in range(1, window + 1)), 20)}")
    # R10, d0 = d - 2: the last pair alone over k = 1..999; the worst ratio with energy E = 2.
    cosines = [cos(k * theta[31]) for k in range(1, 1000)]
    spread = max(cosines) - min(cosines)
    print(f"R10 Delta(62) {mp.nstr(spread, 20)}, worst ratio at E = 2: {mp.nstr(exp(2 * spread), 20)}")
    # T4 (soft): A(i, j) proportional to exp(alpha sum_l cos((j - i + 1) theta_l)) for j <= i, 20
    # tokens; the two-back mass of row i is (A A)(i, i - 2); its minimum over rows 2..19 at alpha = 1.
    n = 20
    a = matrix(n, n)
    for i in range(n):
        weights = [exp(sum(cos((j - i + 1) * t) for t in theta)) for j in range(i + 1)]
        for j in range(i + 1):
            a[i, j] = weights[j] / sum(weights)
    aa = a * a
    print(f"T4 alpha = 1: min two-back mass {mp.nstr(min(aa[i, i - 2] for i in range(2, n)), 20)}")


if __name__ == "__main__":
    main()
