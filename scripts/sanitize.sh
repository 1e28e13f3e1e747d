#!/usr/bin/env bash
# The C/C++ tests under sanitizers:
#  1. build-asan (TC_SANITIZE=address: ASan + UBSan, LeakSanitizer on): every
#     ctest test except the Python and Rust ones (GoogleTest cases, the plain-C
#     programs, the exported-symbols check). Built with clang and the libFuzzer
#     instrumentation when clang can link -fsanitize=fuzzer, so that the same
#     build also gives scripts/fuzz.sh its harnesses (FUZZ_BUILD_DIR=build-asan):
#     one sanitizer build of the library instead of two. Without the AVX2/AVX-512
#     kernel sets: they are the baseline kernels' source compiled with other
#     flags, so ASan sees the same code in the baseline set;
#  2. build-tsan (TC_SANITIZE=thread): the many-thread stress tests, the
#     concurrency suite (every pair of mutating actions on one tensor, graph
#     and optimizer; the last tc_shutdown against calls in flight), the
#     re-entrancy suite (callbacks calling back into libtc) and the
#     init/shutdown cycles, with one intra-op thread (TC_NUM_THREADS=1,
#     OMP_NUM_THREADS=1) and tests/tsan.supp: libgomp and libdnnl are not
#     TSan-instrumented, so their internal synchronization is invisible to it
#     (see tests/tsan.supp).
#   scripts/sanitize.sh [asan|tsan|all]   (default all; JOBS=2)
set -euo pipefail
cd "$(dirname "$0")/.."
WHAT="${1:-all}"
JOBS="${JOBS:-2}"
ROOT="$PWD"
status=0

configure() {  # dir sanitizer [extra cmake args]
  if [ ! -f "$1/CMakeCache.txt" ]; then
    cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS=-O1 -DCMAKE_CXX_FLAGS=-O1 -DTC_SANITIZE="$2" \
      -DTC_BUILD_BENCH=OFF -DTC_WITH_CUDA=OFF ${3:-} >/dev/null
  fi
}

# Whether clang can build the libFuzzer harnesses (libclang-rt-14-dev).
clang_fuzzer() {
  command -v clang++ >/dev/null 2>&1 || return 1
  echo 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }' |
    clang++ -x c++ -fsanitize=fuzzer - -o /tmp/tc_fuzz_probe.$$ >/dev/null 2>&1 || return 1
  rm -f /tmp/tc_fuzz_probe.$$
}

if [ "$WHAT" = all ] || [ "$WHAT" = asan ]; then
  start=$(date +%s)
  if [ ! -f build-asan/CMakeCache.txt ] && clang_fuzzer; then
    CC=clang CXX=clang++ configure build-asan address "-DTC_CPU_KERNEL_SETS=OFF -DTC_FUZZ=ON"
  else
    configure build-asan address -DTC_CPU_KERNEL_SETS=OFF
  fi
  cmake --build build-asan -j"$JOBS" >/dev/null
  export ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1:abort_on_error=1:detect_stack_use_after_return=1:check_initialization_order=1"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  export LSAN_OPTIONS="suppressions=$ROOT/tests/lsan.supp:print_suppressions=0"
  # Open MPI is not LeakSanitizer-clean (its plugins' allocations are reported
  # from unloaded modules, which no suppression can name): no MPI module here,
  # so the process-group misuse cases skip and say why. Release runs them.
  export TC_MPI_MODULE=/nonexistent/libtc_mpi.so
  set +e
  # Not under ASan: the Python and Rust suites (an instrumented library under
  # an uninstrumented interpreter), and the checks that run no libtc code
  # (formatting, layering, the generated files, Doxygen, install trees,
  # exported symbols): the release build runs those.
  (cd build-asan && ctest -j"$JOBS" -E '^(python|rust|style|install|docs\.doxygen|ops\.generated_fresh|abi\.)' \
    --output-on-failure --timeout 600) >build-asan/ctest.log 2>&1
  rc=$?
  set -e
  summary=$(grep -E 'tests passed|tests failed' build-asan/ctest.log | tail -1)
  echo "sanitize: asan+ubsan+lsan: $summary ($(( $(date +%s) - start ))s); log build-asan/ctest.log"
  if [ $rc -ne 0 ]; then
    grep -E '^\s+[0-9]+ - ' build-asan/ctest.log | head -20 || true
    status=1
  fi
  unset ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
fi

if [ "$WHAT" = all ] || [ "$WHAT" = tsan ]; then
  start=$(date +%s)
  # Without the AVX2/AVX-512 kernel sets: TSan checks the threading, which
  # the sets do not change, and they would triple the hot files' compile time.
  configure build-tsan thread -DTC_CPU_KERNEL_SETS=OFF
  cmake --build build-tsan -j"$JOBS" --target tc_stress_gtest >/dev/null
  export TSAN_OPTIONS="suppressions=$ROOT/tests/tsan.supp:halt_on_error=1:second_deadlock_stack=1:report_signal_unsafe=0"
  export TC_NUM_THREADS=1 OMP_NUM_THREADS=1
  set +e
  # Concurrency* and Reentrancy* also match their parameterized suites
  # (Concurrency/ActionPair.*, Reentrancy/ReentryCase.*). EngineReuse: the
  # per-thread backward scratch and the AccumulateGrad shared across threads.
  build-tsan/tests/tc_stress_gtest --gtest_filter='StressThreads.*:Threads.*:Concurrency*:Reentrancy*:InitCycles.*:EngineReuse.*' \
    >build-tsan/stress.log 2>&1
  rc=$?
  set -e
  races=$(grep -c 'WARNING: ThreadSanitizer' build-tsan/stress.log || true)
  echo "sanitize: tsan: $(grep -E '^\[  (PASSED|FAILED)' build-tsan/stress.log | tr '\n' ' ')$races reports ($(( $(date +%s) - start ))s); log build-tsan/stress.log"
  [ $rc -ne 0 ] && status=1
  unset TSAN_OPTIONS TC_NUM_THREADS OMP_NUM_THREADS
fi
exit $status
