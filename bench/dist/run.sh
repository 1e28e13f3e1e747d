#!/bin/sh
# Distributed figures in one run (docs/DISTRIBUTED.md quotes them):
#  1. all-reduce bus bandwidth, libtc's MPI path (without and with the descriptor
#     check) vs plain MPI_Allreduce, and a summary against the 0.95 target;
#  2. data-parallel MLP step time, 2 processes x 1 thread vs 1 process with
#     the same global batch (scaling efficiency), libtc and torch+gloo.
#   bench/dist/run.sh [BUILD_DIR]   (default build/)
set -eu
cd "$(dirname "$0")/../.."
BUILD=${1:-build}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export TC_LIBRARY="$PWD/$BUILD/libtc.so"
MPIRUN="mpirun --oversubscribe"
PY=/usr/bin/python3
echo "== all-reduce: libtc (mpi backend) vs MPI_Allreduce, 2 ranks"
$MPIRUN -np 2 "$BUILD/bench/bench_allreduce"
echo
echo "== data-parallel MLP 256-512-512-10, global batch 256, Adam; median step, wall and CPU (ms)"
echo "   (ROUNDS=${ROUNDS:-3} rounds, each running every configuration once, interleaved)"
gloo=0
$PY -c "import torch.distributed as d; assert d.is_gloo_available()" 2>/dev/null && gloo=1
# Each configuration prints "lib ranks wall_ms cpu ms": the wall time and
# the CPU time of the step (median; the slowest rank's).
ratio() { echo "$1 / $2" | bc -l | cut -c1-5; }
r=1
while [ "$r" -le "${ROUNDS:-3}" ]; do
  set -- $($PY bench/dist/bench_ddp.py --lib tc --single | awk '{print $3, $5}')
  t1=$1 c1=$2
  set -- $($MPIRUN -np 2 $PY bench/dist/bench_ddp.py --lib tc | awk '{print $3, $5}')
  t2=$1 c2=$2
  set -- $($MPIRUN -np 2 $PY bench/dist/bench_ddp.py --lib tc --no-check | awk '{print $3, $5}')
  t2n=$1 c2n=$2
  set -- $($MPIRUN -np 2 $PY bench/dist/bench_ddp.py --lib tc --bucket-view | awk '{print $3, $5}')
  t2v=$1 c2v=$2
  echo "round $r: tc     1 process: $t1 (cpu $c1)   2 processes: $t2 (cpu $c2; no check: $t2n, cpu $c2n; bucket view: $t2v, cpu $c2v)   speedup wall $(ratio $t1 $t2) cpu $(ratio $c1 $c2)"
  if [ "$gloo" = 1 ]; then
    set -- $($PY bench/dist/bench_ddp.py --lib torch --single | awk '{print $3, $5}')
    u1=$1 d1=$2
    set -- $($MPIRUN -np 2 $PY bench/dist/bench_ddp.py --lib torch | awk '{print $3, $5}')
    u2=$1 d2=$2
    echo "round $r: torch  1 process: $u1 (cpu $d1)   2 processes: $u2 (cpu $d2)   speedup wall $(ratio $u1 $u2) cpu $(ratio $d1 $d2)  (gloo)"
  else
    echo "torch: no gloo in $PY's torch; skipped"
  fi
  r=$((r + 1))
done
