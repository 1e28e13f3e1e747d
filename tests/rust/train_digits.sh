#!/bin/sh
# Runs the Rust train_digits example (which fails below 95% test accuracy or
# on a leaked tensor) and, when the C example's binary is given, checks that
# both print the same per-epoch losses and accuracies: same split, same
# initialization, same batches, same libtc, so the same numbers.
# Usage: train_digits.sh CARGO DATA [C_TRAIN_DIGITS]
set -eu
cargo=$1 data=$2 c_bin=${3:-}
rust_out=$("$cargo" run --offline --release -j 2 -p tc --example train_digits -- --data "$data")
echo "$rust_out"
if [ -z "$c_bin" ]; then
  echo "(no C example binary given: comparison with examples/train_digits.c skipped)"
  exit 0
fi
c_out=$("$c_bin" --data "$data")
pick() { echo "$1" | grep -E '^(epoch|final)' | sed -e 's/ *time .*//' -e 's/ in [0-9.]*s$//'; }
if [ "$(pick "$rust_out")" != "$(pick "$c_out")" ]; then
  echo "Rust and C train_digits differ:" >&2
  echo "--- C:" >&2; pick "$c_out" >&2
  echo "--- Rust:" >&2; pick "$rust_out" >&2
  exit 1
fi
echo "same losses and accuracies as the C example, epoch by epoch"
