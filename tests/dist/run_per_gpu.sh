#!/bin/sh
# Runs a program under mpirun with one rank per GPU (nvidia-smi counts them;
# at most 2 here, at least 1: without a GPU the program itself says why it
# skips and exits 77, which this passes on).
#   run_per_gpu.sh MPIRUN PROGRAM [ARGS...]
set -u
mpirun=$1
shift
gpus=0
if command -v nvidia-smi >/dev/null 2>&1; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
fi
np=$gpus
[ "$np" -lt 1 ] && np=1
[ "$np" -gt 2 ] && np=2
"$mpirun" -np "$np" --oversubscribe "$@"
