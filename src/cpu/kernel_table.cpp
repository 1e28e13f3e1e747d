// One kernel set's table (cpu/kernels.h): compiled once per set, like the
// files that define the set's functions, so that TC_CPU_ISA_NS names this
// set. The functions and their order come from cpu/kernel_list.h.
#include "cpu/kernels.h"

namespace tc::cpu::TC_CPU_ISA_NS {

TC_CPU_KERNELS(TC_CPU_KERNEL_DECLARE, TC_CPU_KERNEL_DECLARE)

#define TC_CPU_KERNEL_ADDRESS(ret, name, params, args) &name,
const KernelSet kKernels = {
#ifdef TC_CPU_NATIVE
    "native",
#else
    TC_CPU_ISA_STR_X(TC_CPU_ISA),
#endif
    TC_CPU_KERNELS(TC_CPU_KERNEL_ADDRESS, TC_CPU_KERNEL_ADDRESS)};
#undef TC_CPU_KERNEL_ADDRESS

}  // namespace tc::cpu::TC_CPU_ISA_NS
