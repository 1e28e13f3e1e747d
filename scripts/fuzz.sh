#!/usr/bin/env bash
# Builds the libFuzzer harnesses (clang, ASan+UBSan, build-fuzz/) and runs
# each for a bounded time, starting from the committed seed corpora in
# fuzz/corpus/<harness>/ (new inputs go to build-fuzz/corpus/<harness>/, so
# the committed seeds stay small). Prints executions per harness.
#   scripts/fuzz.sh [seconds per harness, default 60]
# Exit status: 0 when every harness ran clean, 1 on a finding (the crashing
# input is saved under build-fuzz/findings/), 2 when the toolchain is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER_HARNESS="${1:-60}"
JOBS="${JOBS:-2}"
# FUZZ_BUILD_DIR: a build configured with TC_FUZZ=ON (CI passes build-asan,
# which scripts/sanitize.sh configures so); by default build-fuzz, configured here.
BUILD="${FUZZ_BUILD_DIR:-build-fuzz}"
HARNESSES=(fuzz_abi_sequence fuzz_parsers fuzz_safetensors)

if ! command -v clang++ >/dev/null 2>&1; then
  echo "fuzz.sh: clang++ not found; skipping fuzzing" >&2
  exit 2
fi
# libFuzzer's runtime ships in libclang-rt-*-dev.
if ! echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' |
    clang++ -x c++ -fsanitize=fuzzer - -o /tmp/tc_fuzz_probe.$$ >/dev/null 2>&1; then
  echo "fuzz.sh: clang cannot link -fsanitize=fuzzer (install libclang-rt-14-dev); skipping fuzzing" >&2
  exit 2
fi
rm -f /tmp/tc_fuzz_probe.$$

if [ ! -f "$BUILD/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS=-O1 -DCMAKE_CXX_FLAGS=-O1 \
    -DTC_SANITIZE=address -DTC_FUZZ=ON -DTC_CPU_KERNEL_SETS=OFF -DTC_BUILD_TESTS=OFF -DTC_BUILD_BENCH=OFF \
    -DTC_WITH_CUDA=OFF >/dev/null
fi
cmake --build "$BUILD" -j"$JOBS" --target "${HARNESSES[@]}" >/dev/null

# A fuzzed shape may ask for many GB: that is legal input, and libtc must
# answer TC_ERR_OUT_OF_MEMORY. ASan makes any request over 64 MiB fail (NULL),
# so libtc's OOM path runs; libFuzzer's own malloc limit is set above that so
# it does not report such a request as a finding.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1:abort_on_error=1:max_allocation_size_mb=64}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export TC_NUM_THREADS=1 OMP_NUM_THREADS=1
# Open MPI is not LeakSanitizer-clean: the collectives step finds no module
# and fuzzes the error paths only (scripts/sanitize.sh says why).
export TC_MPI_MODULE=/nonexistent/libtc_mpi.so
mkdir -p "$BUILD/findings"
status=0
for h in "${HARNESSES[@]}"; do
  corpus="$BUILD/corpus/$h"
  mkdir -p "$corpus"
  dict=()
  [ -f "fuzz/$h.dict" ] && dict=(-dict="fuzz/$h.dict")
  log="$BUILD/$h.log"
  set +e
  # FUZZ_RUNS=N: a fixed number of executions from a fixed seed (CI: the
  # same inputs every run, so a landing never depends on luck).
  runs=()
  [ -n "${FUZZ_RUNS:-}" ] && runs=(-runs="$FUZZ_RUNS" -seed=1)
  "$BUILD/fuzz/$h" "$corpus" "fuzz/corpus/$h" "${dict[@]}" "${runs[@]}" -max_total_time="$SECONDS_PER_HARNESS" \
    -max_len=4096 -timeout=60 -rss_limit_mb=4096 -malloc_limit_mb=1000000 -print_final_stats=1 \
    -artifact_prefix="$BUILD/findings/$h-" >"$log" 2>&1
  rc=$?
  set -e
  execs=$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' "$log" | grep -Eo '[0-9]+$' || echo "?")
  cov=$(grep -Eo 'cov: [0-9]+' "$log" | tail -1 | grep -Eo '[0-9]+' || echo "?")
  if [ $rc -eq 0 ]; then
    echo "fuzz: $h: $execs executions in ${SECONDS_PER_HARNESS}s, coverage $cov edges, no finding"
  else
    echo "fuzz: $h: FINDING after $execs executions (exit $rc); see $log and $BUILD/findings/"
    grep -E 'ERROR|fuzz_abi_sequence:|fuzz_parsers:|runtime error' "$log" | head -5 || true
    status=1
  fi
done
exit $status
