// The hand-written misuse rows of core, creation, dlpack (one of the table's
// parts, compiled apart so that they build in parallel).
#include "misuse_harness.h"

namespace misuse {

#include "misuse_rows_core.inc"
#include "misuse_rows_creation.inc"
#include "misuse_rows_dlpack.inc"

}  // namespace misuse
