# memory_limit.sh QKOV MODEL DIR KIND LIMIT_KB COMMAND: a scan document too large for a memory limit.
# Scans MODEL's layers 0 and 1 into DIR, pads the layer-0 shard's first head with KIND ("floats":
# 100,000 lists of 100 numbers, about 50 MB, a tree of about the size a scan document's is; "empty":
# 5,000,000 empty lists, 15 MB whose tree is several times larger per byte than a scan's;
# "empty_labels": the same lists as the head's labels, which detect --scan keeps), then runs
# COMMAND (merge-scans, or detect --scan) under `ulimit -v LIMIT_KB` and prints its exit status.
# The command must end with a message, never by a signal (134 is SIGABRT from std::terminate).
# One OpenBLAS thread, and detect on one thread: OpenBLAS takes a buffer of address space for each
# thread that calls it (about 134 MB; 214 MB in all with two of its own threads), which would make
# the limit's room depend on the machine's cores. Short of that room OpenBLAS retries its
# allocation without end: the test's TIMEOUT turns that into a failure.
export OPENBLAS_NUM_THREADS=1
qkov=$1 model=$2 dir=$3 kind=$4 limit=$5 command=$6
rm -rf "$dir" && mkdir -p "$dir" || exit 1
for layer in 0 1; do
  "$qkov" scan "$model" --layers $layer --json "$dir/s$layer.json" > /dev/null || exit 1
done
python3 - "$dir/s0.json" "$dir/big0.json" "$kind" <<'PYTHON' || exit 1
import json, sys
scan = json.load(open(sys.argv[1]))
kind = sys.argv[3]
scan["heads"][0]["labels" if kind == "empty_labels" else "padding"] = [[0.5] * 100] * 100000 if kind == "floats" else [[]] * 5000000
json.dump(scan, open(sys.argv[2], "w"))
PYTHON
if [ "$command" = merge-scans ]; then
  (ulimit -v "$limit"; exec "$qkov" merge-scans "$dir/big0.json" "$dir/s1.json" --json "$dir/whole.json")
else
  (ulimit -v "$limit"; exec "$qkov" detect "$model" --samples 1 --length 4 --threads 1 --scan "$dir/big0.json")
fi
echo "exit status $?"
