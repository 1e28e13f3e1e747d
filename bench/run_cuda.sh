#!/bin/sh
# The CUDA benchmarks side by side with PyTorch on the same GPU, in one
# command (it builds nothing):
#   bench/run_cuda.sh [BUILD_DIR]     (default: build; PYTHON picks the
#                                      interpreter with torch, default python3)
# Prints one markdown table: libtc, torch and libtc/torch. For rates
# (TFLOP/s, GB/s) above 1 is faster; for times (us) below 1 is faster.
# Targets of the CUDA backend: matmul >= 0.95, add >= 0.95, MLP step at batch 64 <= 0.5.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
python=${PYTHON:-python3}
exe="$build/bench/bench_cuda"
[ -x "$exe" ] || { echo "run_cuda.sh: no $exe; build first (cmake --build $build --target bench_cuda)" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "running bench_cuda..." >&2
"$exe" | tee -a "$out" >&2 || echo "run_cuda.sh: bench_cuda failed" >&2
echo "running bench/torch_cuda.py with $python..." >&2
"$python" "$here/torch_cuda.py" | tee -a "$out" >&2 || echo "run_cuda.sh: torch_cuda.py failed" >&2
"$python" - "$out" <<'PY'
import sys
rows, order, units = {}, [], {}
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) != 5 or p[0] != "RESULT":
        continue
    _, metric, impl, value, unit = p
    if metric not in rows:
        rows[metric] = {}
        order.append(metric)
    rows[metric][impl] = float(value)
    units[metric] = unit
if not order:
    print("run_cuda.sh: no results (no GPU?)")
    sys.exit(0)
fmt = lambda v: "" if v is None else f"{v:.4g}"
print("| metric | unit | libtc | torch | libtc/torch |")
print("|---|---|---:|---:|---:|")
for m in order:
    r = rows[m]
    l, t = r.get("libtc"), r.get("torch")
    print(f"| {m} | {units[m]} | {fmt(l)} | {fmt(t)} | {fmt(l / t if l is not None and t else None)} |")
PY
