// split's and unbind's backward under create_graph: each piece's gradient, or
// zeros of the piece's shape for a piece that got none, for cat/stack to join
// with recorded ops (so that the result can be differentiated again).
#pragma once
#include <vector>

#include "core/tensor.h"

namespace tc::ops::detail {

template <typename ShapeOf>
std::vector<Tensor> pieces_or_zeros(const std::vector<Tensor>& g, ShapeOf shape_of) {
  const Tensor* any = nullptr;
  for (const Tensor& gi : g)
    if (gi && !any) any = &gi;
  std::vector<Tensor> out;
  out.reserve(g.size());
  for (size_t i = 0; i < g.size(); ++i)
    out.push_back(g[i] ? g[i] : zeros(shape_of(i), (*any)->dtype, (*any)->device));
  return out;
}

}  // namespace tc::ops::detail
