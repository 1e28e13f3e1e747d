#!/usr/bin/env bash
# Builds libtc (warnings are errors) and runs every test: GoogleTest, the
# plain-C tests, the exported-symbols check, pytest and cargo, through ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
CMAKE_ARGS="-DTC_WERROR=ON ${CMAKE_ARGS:-}" scripts/setup.sh
ctest --test-dir "${BUILD_DIR:-build}" --output-on-failure -j 2 "$@"
