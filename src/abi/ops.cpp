// tc_* functions of tc.h's ops section (elementwise, reductions, shape ops,
// in-place ops): check handles and arguments, call ops/*.cpp, hand out results
// only on success. The elementwise families' shims are generated from
// ops/ops.toml into ops_generated.cpp, with the custom rows that declare
// their args (sum, mean, var, ...); these are the other `custom` ops.
#include "ops/ops.h"

#include <cmath>

#include "abi/args.h"
#include "abi/op_shims.h"
#include "ops/frexp.h"

using namespace tc;

namespace {

using abi::op1;
using abi::tensor_list;  // several tensors in (cat, stack)

// Pieces out (split, chunk): all handles or none, and *count always.
void pieces_out(const std::vector<Tensor>& pieces, tc_tensor* outs, int64_t cap, int64_t* count) {
  out_ptr(count, "count");
  TC_CHECK(cap >= 0, TC_ERR_INVALID_ARGUMENT, "cap must be >= 0 but is ", cap);
  const int64_t n = int64_t(pieces.size());
  if (n > cap) {
    *count = n;
    fail(TC_ERR_INVALID_ARGUMENT, str("cap (", cap, ") is smaller than the number of pieces (", n, ")"));
  }
  TC_CHECK(n == 0 || outs != nullptr, TC_ERR_INVALID_ARGUMENT, "outs must not be NULL");
  new_handles(pieces, outs);
  *count = n;
}

}  // namespace

TC_API int32_t tc_split(tc_tensor a, int64_t split_size, int64_t dim, tc_tensor* outs, int64_t cap,
                        int64_t* count) {
  return api(__func__, [&] {
    out_ptr(count, "count");
    pieces_out(ops::split(get_tensor(a, "a"), split_size, dim), outs, cap, count);
  });
}

TC_API int32_t tc_chunk(tc_tensor a, int64_t chunks, int64_t dim, tc_tensor* outs, int64_t cap,
                        int64_t* count) {
  return api(__func__, [&] {
    out_ptr(count, "count");
    pieces_out(ops::chunk(get_tensor(a, "a"), chunks, dim), outs, cap, count);
  });
}
