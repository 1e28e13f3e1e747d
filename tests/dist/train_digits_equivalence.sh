#!/bin/sh
# Data-parallel training equals one process: examples/train_digits.py run
# once in one process and once with --distributed under `mpirun -np 2` over
# the same global batches must end with the same weights, within float
# rounding (the ranks sum their gradients in another order).
#   train_digits_equivalence.sh MPIRUN PYTHON train_digits.py WORKDIR
set -eu
MPIRUN=$1 PY=$2 SCRIPT=$3 OUT=$4
mkdir -p "$OUT"
COMMON="--epochs 3 --threads 1 --save= --min-acc 0.5"
"$PY" "$SCRIPT" $COMMON --weights-out "$OUT/single.safetensors"
# Buckets of 20 kB: the MLP's gradients travel in two all-reduces.
"$MPIRUN" -np 2 --oversubscribe "$PY" "$SCRIPT" $COMMON --distributed --bucket-mb 0.02 \
  --weights-out "$OUT/distributed.safetensors"
"$PY" - "$OUT/single.safetensors" "$OUT/distributed.safetensors" <<'PY'
import sys
import tc
a, b = tc.load_file(sys.argv[1]), tc.load_file(sys.argv[2])
assert sorted(a) == sorted(b), (sorted(a), sorted(b))
worst = 0.0
for k in sorted(a):
    d = (a[k] - b[k]).abs().max().item()
    scale = a[k].abs().max().item()
    print("%-10s max |single - distributed| = %.3g (max |w| = %.3g)" % (k, d, scale))
    worst = max(worst, d)
if worst > 1e-4:
    sys.exit("FAIL: the distributed weights differ from one process's by %g" % worst)
print("OK: the same weights within %.3g" % worst)
PY
