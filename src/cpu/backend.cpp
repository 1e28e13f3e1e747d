// The CPU's backend table (src/backend/backend.h): the instance, and the reduction
// primitives. Elementwise maps are in the generated per-row files (rows/) and
// elementwise.cpp, the softmax family, losses and indexing in nn.cpp, GEMMs in
// linalg.cpp, the generator and the optimizer steps in random_optim.cpp.
#include <cmath>

#include "core/init.h"
#include "cpu/cpu_backend.h"
#include "cpu/dispatch.h"
#include "cpu/loops.h"
#include "cpu/reduce.h"

namespace tc::cpu {

const CpuBackend& backend() {
  static const CpuBackend instance;
  return instance;
}

void CpuBackend::reduce(ReduceKind op, const Tensor& out, const Tensor& a, double scale,
                        bool inf_to_zero) const {
  cpu::reduce(op, out, a);
  if (scale != 1.0) {  // mean: the sum (rounded to out's dtype) times the scale in that dtype
    TC_DISPATCH_FLOATING(out->dtype, "mean", [&] {
      using T = scalar_t;
      const T s = T(scale);
      map1<T, T>(out, out, [s](T x) { return T(x * s); });
    });
  }
  if (inf_to_zero) {
    TC_DISPATCH_FLOATING(out->dtype, "logsumexp", [&] {
      using T = scalar_t;
      map1<T, T>(out, out, [](T x) { return std::isinf(x) ? T(0) : x; });
    });
  }
}

void CpuBackend::arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& a,
                            int64_t dim) const {
  cpu::arg_reduce(is_max, values, indices, a, dim);
}

}  // namespace tc::cpu
