#!/bin/sh
# The Rust Gaussian-process example against the Python one on the same
# libtc: both print the NLL at every step of the same deterministic run;
# they must agree to float64 rounding (relative 1e-9: the Rust example
# solves with two triangular solves where Python's cholesky_solve solves
# with L L^T). The Rust example itself fails unless the NLL decreased.
#   gp_regression.sh CARGO PYTHON REPO LIBTC
set -eu
cargo=$1 python=$2 repo=$3 libtc=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$cargo" run --offline --release -q -j 2 -p tc --example gp_regression -- --steps 40 --every 1 >"$tmp/rust.txt"
TC_LIBRARY=$libtc "$python" "$repo/examples/gp_regression.py" --steps 40 --every 1 >"$tmp/python.txt"
"$python" - "$tmp/rust.txt" "$tmp/python.txt" <<'PY'
import sys
def losses(path):
    return [float(line.split()[3]) for line in open(path) if line.startswith("step")]
r, p = losses(sys.argv[1]), losses(sys.argv[2])
assert len(r) == len(p) == 40, (len(r), len(p))
for i, (a, b) in enumerate(zip(r, p)):
    assert abs(a - b) <= 1e-9 * max(1.0, abs(b)), (i, a, b)
print("gp_regression: Rust and Python NLLs agree at all %d steps (last %.12f)" % (len(r), r[-1]))
PY
