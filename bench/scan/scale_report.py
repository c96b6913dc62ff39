"""The scale benchmark's table: a scan's measured time split by part, the floating-point work each
part does by its shape, and the projection to the model's full depth.

    scale_report.py CONFIG TIMINGS WALL CPU PEAK_RSS_KIB HEAP_PEAK_BYTES|- GFLOPS FULL_LAYERS

CONFIG: the model's config.json. TIMINGS: `qkov scan --timings`. WALL, CPU (user + system) in
seconds, PEAK_RSS_KIB from /usr/bin/time (it counts the mapped file's pages); HEAP_PEAK_BYTES from
heaptrack (the heap alone), or "-". GFLOPS: the machine's float64 GEMM rate over all the threads
the scan used (numpy's dgemm at 4,096 x 4,096 x 4,096, best of several runs).

The work of each part, in FLOP, from the shapes (D width, H query heads of d, Hkv key-value heads,
F MLP width, V vocabulary, T = the tokens the per-token copying reads, n = T + 1 positions):
  composition, per layer pair:  2 ((H + 2 Hkv) d) D (H d)  one product per pair of layers (each KV head's W_k, W_v once)
  per-token copying, per layer: 2 V D (H d) + 2 T d V H    W_U diag(g) W_o for every head, then each head's logits
  forward pass, per layer:      2 n (D (2 H d + 2 Hkv d) + 3 D F) + 4 n^2 d H / 2
  token circuit, once:          2 V D D                    W_E^T W_U, before the first layer
Projection to FULL_LAYERS: the mean measured time per layer of each per-layer part times the
layers, the mean time per layer pair times the pairs L (L - 1) / 2, and the time before the first
layer once. It assumes every layer costs what the measured ones did (they are the same shape).
"""
import json
import math
import sys


def main():
    if len(sys.argv) != 9:
        raise SystemExit(__doc__.split("\n\n")[1])
    config = json.load(open(sys.argv[1]))
    timings = json.load(open(sys.argv[2]))
    wall, cpu, rss_kib = float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
    heap = None if sys.argv[6] == "-" else float(sys.argv[6])
    gflops, full = float(sys.argv[7]), int(sys.argv[8])
    D, H, d = config["hidden_size"], config["num_attention_heads"], config.get("head_dim", config["hidden_size"] // config["num_attention_heads"])
    Hkv, F, V = config.get("num_key_value_heads", H), config["intermediate_size"], config["vocab_size"]
    stride = math.ceil(V / 4096) if V > 4096 else 1
    T = len(range(0, V, stride))
    n = T + 1
    flop = {
        "composition per layer pair": 2 * (H + 2 * Hkv) * d * D * H * d,
        "per-token copying per layer": 2 * V * D * H * d + 2 * T * d * V * H,
        "forward pass per layer": 2 * n * (D * (2 * H * d + 2 * Hkv * d) + 3 * D * F) + 2 * n * n * d * H,
        "token circuit once": 2 * V * D * D,
    }
    layers = timings["layers"]
    L = len(layers)
    pairs = L * (L - 1) // 2
    mean = lambda key: sum(x[key] for x in layers) / L
    pass_s, copying_s, heads_s = mean("pass_seconds"), mean("copying_seconds"), mean("heads_seconds")
    composition_total = sum(x["composition_seconds"] for x in layers)
    t3_total = sum(x["t3_worker_seconds"] for x in layers)
    per_pair = composition_total / pairs if pairs else float("nan")
    before = timings["before_layers_seconds"]
    threads = timings["threads"]
    print(f"measured: {L} layers of {H} heads (D = {D}, d = {d}, {Hkv} KV heads, F = {F}, V = {V}, {T} tokens read for the per-token copying), "
          f"{threads} threads, dgemm limit {gflops:.1f} GFLOP/s over them")
    print(f"  wall {wall:.1f} s, CPU {cpu:.1f} s, peak RSS {rss_kib / 1024:.0f} MiB (with the mapped file's pages)"
          + (f", heap peak {heap / 2**20:.0f} MiB" if heap is not None else ", heap peak not measured (HEAP=0, or heaptrack absent)"))
    print()
    print("| part | measured (s) | per | FLOP per unit | at the dgemm limit (s) | share of the limit reached |")
    print("| --- | --- | --- | --- | --- | --- |")
    rows = [("token circuit W_E^T W_U, before the first layer", before, "once", flop["token circuit once"]),
            ("forward pass reaching the layer", pass_s, "layer", flop["forward pass per layer"]),
            ("per-token copying", copying_s, "layer", flop["per-token copying per layer"]),
            ("the heads' own work (QR, SVD, structure, labels)", heads_s - pass_s - copying_s, "layer", None),
            ("composition products and T3", per_pair, "layer pair", flop["composition per layer pair"]),
            ("  of which T3 (workers' time / threads)", t3_total / threads / pairs if pairs else float("nan"), "layer pair", None)]
    for name, seconds, unit, work in rows:
        limit = work / (gflops * 1e9) if work else None
        print(f"| {name} | {seconds:.2f} | {unit} | {f'{work:.3g}' if work else '-'} | {f'{limit:.2f}' if limit else '-'} | "
              f"{f'{limit / seconds:.2f}' if limit and seconds > 0 else '-'} |")
    full_pairs = full * (full - 1) // 2
    projected = before + full * heads_s + full_pairs * per_pair
    floor = (flop["token circuit once"] + full * (flop["forward pass per layer"] + flop["per-token copying per layer"]) +
             full_pairs * flop["composition per layer pair"]) / (gflops * 1e9)
    print()
    print(f"projection to {full} layers ({full_pairs} layer pairs): {projected / 60:.0f} min "
          f"(before the layers {before:.0f} s, {full} x {heads_s:.1f} s of layers, {full_pairs} x {per_pair:.1f} s of pairs); "
          f"the FLOP above at the dgemm limit alone take {floor / 60:.0f} min")


if __name__ == "__main__":
    main()
