// The hand-written misuse rows of optim, io, dist, op_library (one of the table's
// parts, compiled apart so that they build in parallel).
#include "misuse_harness.h"

namespace misuse {

#include "misuse_rows_dist.inc"
#include "misuse_rows_io.inc"
#include "misuse_rows_op_library.inc"
#include "misuse_rows_optim.inc"

}  // namespace misuse
