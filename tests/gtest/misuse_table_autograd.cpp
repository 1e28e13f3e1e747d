// The hand-written misuse rows of autograd, cuda (one of the table's
// parts, compiled apart so that they build in parallel).
#include "misuse_harness.h"
#include "tc_binary_ops.h"

namespace misuse {

#include "misuse_rows_autograd.inc"
#include "misuse_rows_cuda.inc"

}  // namespace misuse
