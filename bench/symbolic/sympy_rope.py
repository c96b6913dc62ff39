#!/usr/bin/python3
"""SymPy reference timing for the RoPE claims R2 and R3 (see docs/CLAIMS.md).

Measured: the wall time SymPy takes to build dense matrices for a d-dimensional RoPE
(R_m is block-diagonal with 2x2 rotations by m*theta_l on the pairs (2l-1, 2l), l = 1..d/2;
m, n are integer symbols and every theta_l is an independent real symbol) and to reduce
the statement to zero. Importing SymPy is not timed.

  R2: every entry of R_m^T R_n - R_{n-m} simplifies to 0.
  R3: previous-token head, D = 8, x = (1, x_1..x_7), W_k[i, 0] = 1 for even 0-based rows i,
      W_q = alpha R_{-1} W_k, q = R_{n+1} W_q x, k = R_n W_k x: q^T k - (d/2) alpha simplifies to 0.

Why trigsimp: this is what a SymPy user reaches for on trigonometric identities. It is
specific to trig (angle addition, sin^2 + cos^2 = 1), faster than the generic simplify(),
and here it decides both statements. A result other than 0 means "not proved by SymPy".

--false-twin checks a false variant (R2: R_{n+m}; R3: (d/2 + 1) alpha) to show that the
method does not answer "holds" blindly.

Prints one JSON line. Exit status: 0 holds, 1 not reduced to zero, 2 timeout, 3 bad arguments,
4 SymPy itself failed (traceback on stderr).
"""
import argparse
import json
import multiprocessing
import sys
import time

import sympy as sp

D = 8  # residual width for R3


def rope(angle_factor, thetas):
    """Dense d x d RoPE matrix R with angles angle_factor * theta_l."""
    R = sp.zeros(2 * len(thetas))
    for l, th in enumerate(thetas):
        c, s = sp.cos(angle_factor * th), sp.sin(angle_factor * th)
        R[2 * l, 2 * l], R[2 * l, 2 * l + 1] = c, -s
        R[2 * l + 1, 2 * l], R[2 * l + 1, 2 * l + 1] = s, c
    return R


def check(claim, d, false_twin):
    """Build the statement for (claim, d) and return True iff trigsimp reduces it to 0."""
    m, n = sp.symbols("m n", integer=True)
    thetas = sp.symbols(f"theta1:{d // 2 + 1}", real=True)
    if claim == "R2":
        rhs = rope(n + m if false_twin else n - m, thetas)
        diff = rope(m, thetas).T * rope(n, thetas) - rhs
        return diff.applyfunc(sp.trigsimp).is_zero_matrix is True
    alpha = sp.Symbol("alpha", positive=True)
    x = sp.Matrix([1, *sp.symbols(f"x1:{D}")])
    W_k = sp.Matrix(d, D, lambda i, j: 1 if j == 0 and i % 2 == 0 else 0)
    W_q = alpha * rope(-1, thetas) * W_k
    q = rope(n + 1, thetas) * W_q * x
    k = rope(n, thetas) * W_k * x
    target = (sp.Rational(d, 2) + (1 if false_twin else 0)) * alpha
    return sp.trigsimp((q.T * k)[0, 0] - target) == 0


def worker(conn, claim, d, false_twin):
    start = time.perf_counter()
    holds = check(claim, d, false_twin)
    conn.send((time.perf_counter() - start, holds))


class Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        sys.exit(3)


def main():
    p = Parser(description=__doc__.split("\n")[0])
    p.add_argument("--claim", required=True, choices=["R2", "R3"])
    p.add_argument("--d", required=True, type=int, help="head dimension, even and >= 2")
    p.add_argument("--timeout", type=float, default=300, help="seconds (default 300)")
    p.add_argument("--false-twin", action="store_true", help="check a false variant instead")
    a = p.parse_args()
    if a.d < 2 or a.d % 2:
        p.error(f"--d must be even and >= 2, got {a.d}")
    if not 0 < a.timeout < 1e9:
        p.error(f"--timeout must be a positive number of seconds, got {a.timeout}")

    out = {"tool": "sympy", "claim": a.claim, "d": a.d}
    if a.false_twin:
        out["false_twin"] = True
    ctx = multiprocessing.get_context("fork")  # child inherits the imported sympy
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=worker, args=(send, a.claim, a.d, a.false_twin), daemon=True)
    proc.start()
    send.close()
    if recv.poll(a.timeout):
        try:
            seconds, holds = recv.recv()
        except EOFError:  # child died without an answer (exception already on stderr)
            proc.join()
            print(f"worker failed with exit code {proc.exitcode}", file=sys.stderr)
            sys.exit(4)
        proc.join()
        out.update(seconds=round(seconds, 2), holds=holds)
        print(json.dumps(out), flush=True)
        sys.exit(0 if holds else 1)
    proc.kill()
    proc.join()
    limit = int(a.timeout) if a.timeout.is_integer() else a.timeout
    out.update(seconds=None, timed_out_after=limit, holds=None)
    print(json.dumps(out), flush=True)
    sys.exit(2)


if __name__ == "__main__":
    main()
