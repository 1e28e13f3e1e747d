// The default LinalgBackend (backend/linalg_backend.h): every primitive
// refuses with TC_ERR_NOT_IMPLEMENTED naming the device. A file of its own,
// compiled into libtc and into the CUDA module (TC_SHARED_WITH_MODULE), whose
// cuSOLVER table derives from it and keeps the defaults it does not compute.
#include "backend/linalg_backend.h"
#include "core/dtype.h"
#include "core/error.h"

namespace tc {

void LinalgBackend::not_supported(const char* primitive) const {
  fail(TC_ERR_NOT_IMPLEMENTED, str("linalg: ", primitive, " is not supported on ", name,
                                   " tensors (libtc computes it on the CPU only)"));
}
void LinalgBackend::lu_factor(const Tensor&, const Tensor&, const Tensor&) const {
  not_supported("lu_factor");
}
void LinalgBackend::lu_solve(const Tensor&, const Tensor&, const Tensor&, bool) const {
  not_supported("lu_solve");
}
void LinalgBackend::lu_inverse(const Tensor&, const Tensor&) const { not_supported("inv"); }
namespace {
Tensor pivots_for(const Tensor& a) {
  Dims d = a->shape;
  d.resize(d.size() - 1);
  return empty(d, DType::i32, a->device);
}
}  // namespace
void LinalgBackend::solve(const Tensor& a, const Tensor& b, const Tensor& info) const {
  const Tensor piv = pivots_for(a);
  lu_factor(a, piv, info);
  lu_solve(a, piv, b, false);
}
void LinalgBackend::inverse(const Tensor& a, const Tensor& info) const {
  const Tensor piv = pivots_for(a);
  lu_factor(a, piv, info);
  lu_inverse(a, piv);
}
void LinalgBackend::cholesky(const Tensor&, bool, const Tensor&) const { not_supported("cholesky"); }
void LinalgBackend::triangular_solve(const Tensor&, const Tensor&, bool, bool, bool) const {
  not_supported("solve_triangular");
}
void LinalgBackend::qr(const Tensor&, const Tensor&, const Tensor&) const { not_supported("qr"); }
void LinalgBackend::svd(const Tensor&, const Tensor&, const Tensor&, const Tensor&, const Tensor&) const {
  not_supported("svd");
}
void LinalgBackend::eigh(const Tensor&, const Tensor&, bool, bool, const Tensor&) const {
  not_supported("eigh");
}
void LinalgBackend::householder_product(const Tensor&, const Tensor&) const {
  not_supported("householder_product");
}
void LinalgBackend::eig(const Tensor&, const Tensor&, const Tensor&, const Tensor&) const {
  not_supported("eig");
}
void LinalgBackend::lstsq(const Tensor&, const Tensor&, int32_t, double, const Tensor&, const Tensor&,
                          const Tensor&) const {
  not_supported("lstsq");
}

}  // namespace tc
