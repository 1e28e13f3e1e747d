// Inputs drawn from the elementwise rows' test domains (ops.toml's domain of
// each row, generated into math/op_domains.h), for the tests that loop over a
// family. Apart from gradcheck.h because these headers change with every new
// row: only the files that sample by row include this one, so that a new row
// does not recompile every test file.
#pragma once

#include "gradcheck.h"
#include "math/elementwise_math.h"
#include "math/op_domains.h"

namespace tc_test {

// Inputs inside a unary op's test domain (ops.toml's domain of the row,
// math/op_domains.h): uniform in its sample range, else standard normal,
// kept away from its excluded points.
inline tc::Tensor unary_sample(tc::ops::UnaryOp op, const tc::Dims& shape, tc::DType dtype = tc::DType::f64) {
  const tc::ew::TestDomain& dom = tc::ew::unary_test_domain(op);
  if (dom.n_exclude == 0) {
    return dom.has_sample ? uniform(shape, dom.sample_lo, dom.sample_hi, dtype) : randn(shape, dtype);
  }
  tc::Tensor t = dom.has_sample ? uniform(shape, dom.sample_lo, dom.sample_hi) : randn(shape);
  double* v = t->data_as<double>();
  for (int64_t i = 0; i < t->numel(); ++i) v[i] = dom.away_from_excluded(v[i]);
  return dtype == tc::DType::f64 ? t : tc::cast(t, dtype);
}
// Whether x is inside op's test domain.
inline bool in_unary_domain(tc::ops::UnaryOp op, double x) {
  return tc::ew::unary_test_domain(op).contains(x);
}

}  // namespace tc_test
