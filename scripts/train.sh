#!/usr/bin/env bash
# The main job: builds libtc if needed, then trains the MLP on the bundled
# digits data. Extra arguments go to the example (e.g. --model cnn).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh >/dev/null
exec build/examples/train_digits --data examples/data/digits.csv.gz "$@"
