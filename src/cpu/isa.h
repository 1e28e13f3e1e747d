// The namespace of the CPU kernel set a translation unit is compiled for
// (cpu/kernels.h): tc::cpu::isa_<TC_CPU_ISA>, isa_baseline unless the build
// defines TC_CPU_ISA (CMakeLists.txt: avx2, avx512). Kept apart from
// kernels.h so that the generated per-row kernels (cpu/rows/) include no
// backend interface.
#pragma once

#ifndef TC_CPU_ISA
#define TC_CPU_ISA baseline
#endif
#define TC_CPU_ISA_NS_(isa) isa_##isa
#define TC_CPU_ISA_NS_X(isa) TC_CPU_ISA_NS_(isa)
#define TC_CPU_ISA_NS TC_CPU_ISA_NS_X(TC_CPU_ISA)
#define TC_CPU_ISA_STR_(isa) #isa
#define TC_CPU_ISA_STR_X(isa) TC_CPU_ISA_STR_(isa)
