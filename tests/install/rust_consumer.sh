#!/bin/sh
# ctest install.rust: `cargo run` of a user's crate (tests/install/rust_consumer)
# against the staged install prefix, found through pkg-config: no TC_LIB_DIR,
# no LD_LIBRARY_PATH. The library it runs with must be the installed one.
# Usage: rust_consumer.sh CARGO PREFIX LIBDIR CARGO_TARGET_DIR
set -eu
cargo=$1 prefix=$2 libdir=$3 target=$4
unset TC_LIB_DIR LD_LIBRARY_PATH
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" CARGO_TARGET_DIR="$target"
cd "$(dirname "$0")/rust_consumer"
out=$("$cargo" run --offline -q -j 2 2>&1) || { echo "$out"; exit 1; }
echo "$out"
real_prefix=$(cd "$prefix" && pwd -P)
echo "$out" | grep -q "libtc loaded from $real_prefix/$libdir/libtc.so" ||
  { echo "the consumer did not run with the installed libtc ($real_prefix/$libdir)" >&2; exit 1; }
