#!/usr/bin/env bash
# The C and C++ sources follow .clang-format (the vendored src/abi/dlpack.h is
# upstream's and keeps its own style). Skips when clang-format is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "clang-format not installed: skipped"; exit 77; }
bad=0
while IFS= read -r f; do
  [ "$f" = src/abi/dlpack.h ] && continue
  if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
    echo "not formatted: $f (run clang-format -i $f)"
    bad=1
  fi
done < <(git ls-files '*.c' '*.cpp' '*.h' '*.cu' 2>/dev/null || find src include tests examples bench fuzz -name '*.[ch]' -o -name '*.cpp' -o -name '*.cu')
exit $bad
