#!/bin/sh
# Runs libtc's benchmarks from a build dir (it builds nothing) and the same
# measurements in PyTorch (/usr/bin/python3, Debian's python3-torch), then
# prints one markdown table side by side with ratios.
#   bench/run.sh [BUILD_DIR]        (default: build; GPT=0 skips the GPT step)
# Ratios are libtc / torch: for times (ns, us, ms, MB) lower is better, for
# rates (GB/s, GFLOP/s) higher is better. The dnnl column is dnnl_sgemm
# called directly, the bound for libtc's matmul. The target column gives the
# targets of the MLP training step (<= 0.70x PyTorch at batch 64 and
# 1024, 1 and 2 threads) and of small matmuls (>= 0.95x dnnl_sgemm), the met
# column whether this run meets them. PyTorch is measured in its best
# configuration: a fresh process per thread count (bench/torch_side.py).
# A second table puts each MLP row next to its FLOP floors: the step's
# GEMM FLOPs at this core's measured FMA peak (bench_peak_flops) and at the
# best speed oneDNN reaches on each of the step's GEMMs at its exact shape
# (bench_mlp_bound: sgemm in every layout, the matmul primitive with and
# without post-ops), with the GEMM speeds themselves below it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
[ -d "$build/bench" ] || { echo "run.sh: no $build/bench; build first (cmake --build $build)" >&2; exit 1; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for b in core add matmul mlp peak_flops mlp_bound tiny_graph init; do
  exe="$build/bench/bench_$b"
  if [ -x "$exe" ]; then
    echo "running $(basename "$exe")..." >&2
    "$exe" >>"$out" || echo "run.sh: $exe failed" >&2
  else
    echo "run.sh: missing $exe" >&2
  fi
done
# The FFT cases (bench_fft.py: tc and torch in fresh processes) print RESULT
# rows into the same table.
if [ -f "$build/libtc.so" ] && /usr/bin/python3 -c "import torch" 2>/dev/null; then
  echo "running bench/bench_fft.py..." >&2
  TC_LIBRARY="$build/libtc.so" /usr/bin/python3 "$here/bench_fft.py" --reps 10 | grep '^RESULT' >>"$out" ||
    echo "run.sh: bench_fft.py failed" >&2
fi
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
# Targets: ("torch" or "dnnl", "<=" or ">=", bound) on the ratio
# libtc/torch or libtc/dnnl; the "target" column shows them and "met" says
# whether this run meets them.
targets = {f"mlp_step_b{n}_t{t}": ("torch", "<=", 0.70) for n in (64, 1024) for t in (1, 2)}
targets.update({f"matmul_{n}_t1": ("dnnl", ">=", 0.95) for n in (64, 128)})
targets.update({f"fft_{c}_t{t}": ("torch", "<=", 1.0) for c in ("rfft_1m", "stft_10s") for t in (1, 2)})
fmt = lambda v: "" if v is None else f"{v:.4g}"
print("| metric | unit | libtc | torch | libtc/torch | dnnl_sgemm | libtc/dnnl | target | met |")
print("|---|---|---:|---:|---:|---:|---:|---|---|")
for m in order:
    r = rows[m]
    if not {"libtc", "torch", "dnnl"} & set(r):
        continue  # bound metrics: the tables below
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

# The MLP rows against their bounds: how far each step is from
# what its GEMMs alone must take, and what the 0.70x-PyTorch target asks.
def val(metric, impl):
    return rows.get(metric, {}).get(impl)
have = [m for m in order if m.startswith("mlp_step_") and val(m, "libtc") is not None]
if have and any(m.startswith("mlp_floor_gemm_") for m in order):
    print()
    print("| row | step us | torch us | target us (0.70x torch) | GEMM GFLOP | floor at FMA peak us | step / peak floor "
          "| floor at best GEMM us | step / GEMM floor | floor at libtc's GEMM calls us |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for m in have:
        n, t = m[len("mlp_step_b"):].split("_t")
        step, torch = val(m, "libtc"), val(m, "torch")
        mflop = val(f"mlp_flops_b{n}", "bound")
        peak = val(f"peak_fma_f32_t{t}", "peak")
        fpeak = mflop / peak if mflop and peak else None  # MFLOP / (GFLOP/s) = ms -> us below
        fpeak = fpeak * 1e3 if fpeak else None
        fgemm = val(f"mlp_floor_gemm_b{n}_t{t}", "bound")
        flibtc = val(f"mlp_floor_libtc_gemm_b{n}_t{t}", "bound")
        target = 0.70 * torch if torch else None
        r = lambda a, b: a / b if a and b else None
        print(f"| {m} | {fmt(step)} | {fmt(torch)} | {fmt(target)} | {fmt(mflop and mflop / 1e3)} | {fmt(fpeak)} "
              f"| {fmt(r(step, fpeak))} | {fmt(fgemm)} | {fmt(r(step, fgemm))} | {fmt(flibtc)} |")
    gemm_rows = [m for m in order if m.startswith("gemm_")]
    if gemm_rows:
        print()
        print("| GEMM (1 thread: CPU time; 2: wall) | libtc's call | best sgemm | best matmul primitive | with post-ops | best / peak |")
        print("|---|---:|---:|---:|---:|---:|")
        libtc_layout = {"fwd1": "NT", "fwd2": "NT", "da": "NN", "dW2": "TN", "dW1": "TN"}
        for m in gemm_rows:
            r = rows[m]
            name, t = m.split("_")[2], m.rsplit("_t", 1)[1]
            best = lambda pre, post: max(((v, k[len(pre):]) for k, v in r.items()
                                          if k.startswith(pre) and k.endswith(post)
                                          and (post or "bias" not in k)), default=None)
            sg, mm = best("sgemm_", ""), best("matmul_", "")
            po = max(((v, k[len("matmul_"):]) for k, v in r.items() if "bias" in k), default=None)
            peak = val(f"peak_fma_f32_t{t}", "peak")
            top = max(v for v in r.values())
            show = lambda x: "" if x is None else f"{x[0]:.4g} ({x[1]})"
            own = r.get(f"sgemm_{libtc_layout.get(name, '')}")
            print(f"| {m} | {fmt(own)} ({libtc_layout.get(name, '')}) | {show(sg)} | {show(mm)} | {show(po)} "
                  f"| {fmt(top / peak if peak else None)} |")
PY
# The GPT training step (bench_gpt.py: tc and PyTorch,
# 1 and 2 threads, each in a fresh process), so one run.sh prints every row
# of the targets' table. GPT=0 skips it (about a minute).
if [ "${GPT:-1}" != 0 ] && [ -f "$build/libtc.so" ] && /usr/bin/python3 -c "import torch" 2>/dev/null; then
  echo
  echo "running bench/bench_gpt.py..." >&2
  TC_LIBRARY="$build/libtc.so" /usr/bin/python3 "$here/bench_gpt.py" --steps 20 --warmup 3 ||
    echo "run.sh: bench_gpt.py failed" >&2
fi
# torch.linalg (bench_linalg.py: tc and PyTorch on the same OpenBLAS LAPACK,
# 1 and 2 threads, each in a fresh process). LINALG=0 skips it.
if [ "${LINALG:-1}" != 0 ] && [ -f "$build/libtc.so" ] && /usr/bin/python3 -c "import torch" 2>/dev/null; then
  echo
  echo "running bench/bench_linalg.py..." >&2
  TC_LIBRARY="$build/libtc.so" /usr/bin/python3 "$here/bench_linalg.py" --reps 10 ||
    echo "run.sh: bench_linalg.py failed" >&2
fi
# DataLoader worker processes and passing tensors by shared memory
# (bench_dataloader.py: 2 workers against in-process loading, and a 64 MB
# tensor by shared memory against pickling). DATALOADER=0 skips it.
if [ "${DATALOADER:-1}" != 0 ] && [ -f "$build/libtc.so" ]; then
  echo
  echo "running bench/bench_dataloader.py..." >&2
  TC_LIBRARY="$build/libtc.so" OMP_NUM_THREADS=1 /usr/bin/python3 "$here/bench_dataloader.py" ||
    echo "run.sh: bench_dataloader.py failed" >&2
fi
# Higher-order autograd and checkpointing (bench_higher_order.py: a
# Hessian-vector product, tc vs PyTorch; a GPT step with every block
# checkpointed vs plain, tc's peak memory and time), each case in a fresh
# process. HIGHER_ORDER=0 skips it (about a minute).
if [ "${HIGHER_ORDER:-1}" != 0 ] && [ -f "$build/libtc.so" ] && /usr/bin/python3 -c "import torch" 2>/dev/null; then
  echo
  echo "running bench/bench_higher_order.py..." >&2
  TC_LIBRARY="$build/libtc.so" /usr/bin/python3 "$here/bench_higher_order.py" ||
    echo "run.sh: bench_higher_order.py failed" >&2
fi
# The CNN rows (bench_cnn.py: a CIFAR ResNet-20's train step and eval
# forward, a ResNet-18's eval; tc and PyTorch interleaved in one process,
# 1 and 2 threads). CNN=0 skips it (a few minutes).
if [ "${CNN:-1}" != 0 ] && [ -f "$build/libtc.so" ] && /usr/bin/python3 -c "import torch" 2>/dev/null; then
  echo
  echo "running bench/bench_cnn.py..." >&2
  TC_LIBRARY="$build/libtc.so" OMP_WAIT_POLICY="${OMP_WAIT_POLICY:-PASSIVE}" /usr/bin/python3 "$here/bench_cnn.py" ||
    echo "run.sh: bench_cnn.py failed" >&2
fi
# The elementwise kernels (bench_elementwise.py: contiguous, broadcast,
# strided, integer, backward, tiny calls; tc and PyTorch in one process).
# ELEMENTWISE=0 skips it (about half a minute).
if [ "${ELEMENTWISE:-1}" != 0 ] && [ -f "$build/libtc.so" ]; then
  echo
  echo "running bench/bench_elementwise.py..." >&2
  TC_LIBRARY="$build/libtc.so" /usr/bin/python3 "$here/bench_elementwise.py" ||
    echo "run.sh: bench_elementwise.py failed" >&2
fi
