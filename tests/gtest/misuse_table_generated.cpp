// The misuse-table rows generated from ops/ops.toml (misuse_ops_generated.inc),
// the shared-memory rows, the hand-kept shape and creation rows, and the extra
// cases those rows name.
#include "misuse_harness.h"

// Weak references to the generated rows' functions (see misuse_weak.h).
#define TC_MISUSE_WEAK
#include "misuse_ops_generated.inc"
#undef TC_MISUSE_WEAK

namespace misuse {

// The extra cases of the generated rows, by topic (ops.toml's misuse_extras).
#include "misuse_extras_binary_ext.inc"
#include "misuse_extras_indexing.inc"
#include "misuse_extras_linalg.inc"
#include "misuse_extras_losses.inc"
#include "misuse_extras_nn.inc"
#include "misuse_extras_ops.inc"
#include "misuse_extras_shape_creation.inc"
#include "misuse_extras_sort_reduce.inc"
#include "misuse_extras_transformer.inc"

void add_generated_rows(std::vector<Entry>& t) {
  auto add = [&](Entry e) { t.push_back(std::move(e)); };
#define TC_MISUSE_ROWS
#include "misuse_ops_generated.inc"
#include "misuse_shared_memory.inc"
#undef TC_MISUSE_ROWS
}
// The shape, creation and matrix ops kept by hand (tc_eye, tc_pad, ...).
void add_shape_creation_rows(std::vector<Entry>& t) {
  auto add = [&](Entry e) { t.push_back(std::move(e)); };
#define TC_MISUSE_ROWS
#include "misuse_shape_creation.inc"
#undef TC_MISUSE_ROWS
}

}  // namespace misuse
