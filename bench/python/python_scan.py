"""The Python side of bench/python/run.sh: qkov.scan on MODEL with THREADS BLAS threads, its document
written to OUT; prints the seconds from the call to the written file (after the imports).

    python_scan.py MODEL THREADS OUT
"""
import sys
import time

import qkov

model, threads, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
start = time.perf_counter()
scan = qkov.scan(model, threads=threads)
with open(out, "w") as f:
    f.write(scan.to_json())
print(f"{time.perf_counter() - start:.4f}")
