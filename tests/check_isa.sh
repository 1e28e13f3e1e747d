#!/bin/sh
# libtc.so runs on any x86-64 CPU: every function that uses AVX/AVX2/AVX-512,
# BMI or mask registers (VEX/EVEX-encoded instructions) must belong to a
# kernel set chosen at run time from CPUID (tc::cpu::isa_avx2, isa_avx512,
# and the FFT passes' AVX2 copy tc::cpu::isa_avx2_fft, src/cpu/fft_plan.cpp;
# src/cpu/kernels.h). Any other function with such an instruction would die
# with SIGILL on an older CPU. Skipped (77) for TC_NATIVE=ON builds and
# non-x86-64 machines. Prints how many functions each set holds.
# Usage: check_isa.sh LIBTC NATIVE(ON/OFF)
set -eu
lib=$1 native=$2
case "$native" in ON | on | 1 | TRUE | true) echo "SKIPPED: TC_NATIVE=ON build"; exit 77 ;; esac
[ "$(uname -m)" = x86_64 ] || { echo "SKIPPED: not x86-64"; exit 77; }
command -v objdump >/dev/null || { echo "SKIPPED: objdump not installed"; exit 77; }
fns=$(objdump -d --no-show-raw-insn -C "$lib" |
  awk '/^[0-9a-f]+ <.*>:$/ { fn = $0; next }
       /\t(v[a-z0-9]+|kmov[a-z]*|kor[a-z]*|kand[a-z]*|andn|bextr|shlx|shrx|sarx|bzhi|pdep|pext|mulx|rorx)[ \t]/ { print fn }' |
  sort -u)
# GCC's local clones (name.part.N, .isra.N, .constprop.N, .cold) are static
# to the object that made them: one made in a kernel set's object is called
# only from that object, whose other functions are the set's own or inline
# copies the linker drops for the baseline objects' (linked first). A header
# template partly inlined into a set's kernel (floor_divide_value) leaves one.
bad=$(echo "$fns" | grep -v -e 'isa_avx512' -e 'isa_avx2' | grep -v -E '\[clone \.(part|isra|constprop|cold)[.0-9]*\]' |
  grep -v '^$' || true)
echo "functions with AVX/AVX-512/BMI code: $(echo "$fns" | grep -c isa_avx512) in isa_avx512," \
  "$(echo "$fns" | grep -c isa_avx2) in isa_avx2, $(echo "$bad" | grep -c . || true) elsewhere"
if [ -n "$bad" ]; then
  echo "outside the run-time-dispatched kernel sets (SIGILL on a baseline x86-64 CPU):"
  echo "$bad" | head -20
  exit 1
fi
