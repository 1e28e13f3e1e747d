// The advanced-indexing machinery (src/ops/indexing.cpp) that the scatter
// family (src/ops/scatter.cpp) is built on: a plan of checked, wrapped int64
// indices, and the gather/put through it without autograd.
#pragma once
#include <vector>

#include "core/tensor.h"
#include "math/index_put.h"

namespace tc::ops::detail {

struct IndexPlan {
  std::vector<Tensor> idx;  // one per dim of the indexed tensor: null (sliced) or int64 in [0, size)
  Dims bshape;              // the indices broadcast together
  int64_t place = 0;        // where that block stands in the result
  Dims result;              // the result's shape
  Dims sliced;              // the dims not indexed, in order
};

// Bool masks become their nonzero columns, int32 becomes int64, each index is
// checked ("index 5 is out of bounds for dimension 0 with size 3") and, when
// allow_negative, wrapped (else a negative index is out of bounds).
IndexPlan plan_index(const char* op, const Tensor& a, const std::vector<Tensor>& indices,
                     bool allow_negative);
// a[plan] as a new contiguous tensor of plan.result.
Tensor index_raw(const Tensor& a, const IndexPlan& p);
// a[plan] (mode)= values (a's dtype, broadcast to plan.result); no version bump.
void index_put_raw(const Tensor& a, const IndexPlan& p, const Tensor& values, IndexPutMode mode);
// values on a's device, of a's dtype, broadcasting to plan.result.
void check_values(const char* op, const Tensor& a, const IndexPlan& p, const Tensor& values);

}  // namespace tc::ops::detail

namespace tc::ops {
// index / index_put naming op in errors (take, scatter, index_add... are made of them).
Tensor index_with(const char* op, const Tensor& a, const std::vector<Tensor>& indices, bool allow_negative);
Tensor index_put_with(const char* op, const Tensor& a, const std::vector<Tensor>& indices,
                      const Tensor& values, IndexPutMode mode, bool allow_negative);
}  // namespace tc::ops
