#!/bin/sh
# Runs libtc's benchmarks from a build dir (it builds nothing) and the same
# measurements in PyTorch (/usr/bin/python3, Debian's python3-torch), then
# prints one markdown table side by side with ratios.
#   bench/run.sh [BUILD_DIR]        (default: build)
# Ratios are libtc / torch: for times (ns, us, ms, MB) lower is better, for
# rates (GB/s, GFLOP/s) higher is better. The dnnl column is dnnl_sgemm
# called directly, the bound for libtc's matmul. The target column gives the
# issue-17 targets of the MLP training step (<= 0.70x PyTorch at batch 64 and
# 1024, 1 and 2 threads) and of small matmuls (>= 0.95x dnnl_sgemm), the met
# column whether this run meets them. PyTorch is measured in its best
# configuration: a fresh process per thread count (bench/torch_side.py).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
[ -d "$build/bench" ] || { echo "run.sh: no $build/bench; build first (cmake --build $build)" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for b in core add matmul mlp tiny_graph init; do
  exe="$build/bench/bench_$b"
  if [ -x "$exe" ]; then
    echo "running $(basename "$exe")..." >&2
    "$exe" >>"$out" || echo "run.sh: $exe failed" >&2
  else
    echo "run.sh: missing $exe" >&2
  fi
done
if /usr/bin/python3 -c "import torch" 2>/dev/null; then
  echo "running bench/torch_side.py..." >&2
  /usr/bin/python3 "$here/torch_side.py" >>"$out" || echo "run.sh: torch_side.py failed" >&2
else
  echo "run.sh: /usr/bin/python3 has no torch; the torch column stays empty" >&2
fi
/usr/bin/python3 - "$out" <<'PY'
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
# Targets (issue 17): ("torch" or "dnnl", "<=" or ">=", bound) on the ratio
# libtc/torch or libtc/dnnl; the "target" column shows them and "met" says
# whether this run meets them.
targets = {f"mlp_step_b{n}_t{t}": ("torch", "<=", 0.70) for n in (64, 1024) for t in (1, 2)}
targets.update({f"matmul_{n}_t1": ("dnnl", ">=", 0.95) for n in (64, 128)})
fmt = lambda v: "" if v is None else f"{v:.4g}"
print("| metric | unit | libtc | torch | libtc/torch | dnnl_sgemm | libtc/dnnl | target | met |")
print("|---|---|---:|---:|---:|---:|---:|---|---|")
for m in order:
    r = rows[m]
    l, t, d = r.get("libtc"), r.get("torch"), r.get("dnnl")
    lt = l / t if l is not None and t else None
    ld = l / d if l is not None and d else None
    target, met = "", ""
    if m in targets:
        against, op, bound = targets[m]
        target = f"libtc/{against} {op} {bound}"
        ratio = lt if against == "torch" else ld
        if ratio is not None:
            met = "yes" if (ratio <= bound if op == "<=" else ratio >= bound) else "no"
    print(f"| {m} | {units[m]} | {fmt(l)} | {fmt(t)} | {fmt(lt)} | {fmt(d)} | {fmt(ld)} | {target} | {met} |")
PY
