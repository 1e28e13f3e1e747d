#!/usr/bin/env bash
# CI's reliability stage (called from .ci/run): in order,
#  1. the ASan+UBSan(+LSan) build and every C/C++ test under it,
#  2. the TSan build and the many-thread stress tests,
#  3. each libFuzzer harness for FUZZ_SECONDS (default 60) from the committed
#     seed corpora; skipped, with a message, when clang's fuzzer runtime is
#     missing.
# Builds go to build-asan/, build-tsan/, build-fuzz/ (incremental; ccache when
# installed). Exit status: non-zero if any stage failed.
set -uo pipefail
cd "$(dirname "$0")/.."
FUZZ_SECONDS="${FUZZ_SECONDS:-60}"
export JOBS="${JOBS:-2}"
t0=$(date +%s)
fail=0

stage() {  # name command...
  local name=$1
  shift
  local s
  s=$(date +%s)
  echo "== reliability: $name"
  "$@"
  local rc=$?
  echo "== reliability: $name: exit $rc, $(( $(date +%s) - s ))s"
  return $rc
}

stage "asan+ubsan+lsan C/C++ tests" scripts/sanitize.sh asan || fail=1
stage "tsan stress tests" scripts/sanitize.sh tsan || fail=1
# The ASan build above also built the harnesses when clang could (one
# sanitizer build of the library, not two); else fuzz.sh makes build-fuzz.
fuzz_dir=build-fuzz
grep -q '^TC_FUZZ:BOOL=ON' build-asan/CMakeCache.txt 2>/dev/null && fuzz_dir=build-asan
stage "fuzzing (${FUZZ_SECONDS}s per harness)" env FUZZ_BUILD_DIR=$fuzz_dir scripts/fuzz.sh "$FUZZ_SECONDS"
rc=$?
if [ $rc -eq 2 ]; then
  echo "== reliability: fuzzing SKIPPED: clang's libFuzzer runtime (libclang-rt-14-dev) is not installed"
elif [ $rc -ne 0 ]; then
  fail=1
fi
echo "== reliability: total $(( $(date +%s) - t0 ))s, $([ $fail -eq 0 ] && echo PASSED || echo FAILED)"
exit $fail
