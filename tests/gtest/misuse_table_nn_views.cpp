// The hand-written misuse rows of nn, views, shape_indexing (one of the table's
// parts, compiled apart so that they build in parallel).
#include "misuse_harness.h"

namespace misuse {

#include "misuse_rows_nn.inc"
#include "misuse_rows_shape_indexing.inc"
#include "misuse_rows_views.inc"

}  // namespace misuse
