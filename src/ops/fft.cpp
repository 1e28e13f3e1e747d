// Discrete Fourier transforms along one dim (PyTorch's _fft_c2c, _fft_r2c,
// _fft_c2r, which torch.fft's functions are made of): the signal cut or
// zero-padded to n, one backend call over a contiguous copy with the dim
// last, and the backward formulas of PyTorch's derivatives.yaml (the adjoint
// of a DFT is the DFT of the other direction with the same scale).
#include <cmath>

#include "backend/backend.h"
#include "core/init.h"
#include "ops/internal.h"

namespace tc::ops {
using autograd::Grads;
using namespace detail;

namespace {

double norm_scale(int64_t normalization, int64_t n) {
  switch (normalization) {
    case 0:
      return 1.0;
    case 1:
      return 1.0 / std::sqrt(double(n));
    case 2:
      return 1.0 / double(n);
    default:
      fail(TC_ERR_INVALID_ARGUMENT,
           str("fft: normalization must be 0 (none), 1 (1/sqrt(n)) or 2 (1/n) but is ", normalization));
  }
}

// a with its size in dim made n: cut (a view) or zero-padded at the end.
Tensor resized(const Tensor& a, int64_t dim, int64_t n) {
  const int64_t size = a->shape[dim];
  if (n == size) return a;
  if (n < size) return narrow(a, dim, 0, n);
  Dims pad = a->shape;
  pad[dim] = n - size;
  return cat({a, zeros(pad, a->dtype, a->device)}, dim);
}

// The backend's transform along dim: dim moved last (a contiguous copy), the
// result's dim moved back (a view). No autograd.
Tensor run(FftKind kind, const Tensor& x, int64_t dim, int64_t out_len, DType out_dtype, bool inverse,
           double scale) {
  const int64_t nd = x->ndim();
  Dims perm;
  for (int64_t i = 0; i < nd; ++i)
    if (i != dim) perm.push_back(i);
  perm.push_back(dim);
  const Tensor in = tc::contiguous(raw_permute(x, perm));
  Dims shape = in->shape;
  shape[nd - 1] = out_len;
  Tensor out = empty(shape, out_dtype, x->device);
  backend_for(x).fft(kind, out, in, inverse, scale);
  Dims back = Dims::filled(nd, 0);
  for (int64_t i = 0; i < nd; ++i) back[perm[i]] = i;
  return raw_permute(out, back);
}

Tensor c2c(const Tensor& x, int64_t dim, double scale, bool forward) {
  Tensor y = run(FftKind::c2c, x, dim, x->shape[dim], x->dtype, !forward, scale);
  autograd::record_function(
      "FftC2CBackward", {x}, {y}, {},
      [=](const Grads& g, const std::vector<Tensor>&) -> Grads { return {c2c(g[0], dim, scale, !forward)}; });
  return y;
}

Tensor r2c(const Tensor& x, int64_t dim, double scale, bool onesided) {
  const int64_t n = x->shape[dim];
  if (!onesided) return c2c(to_dtype(x, to_complex_dtype(x->dtype)), dim, scale, true);
  Tensor y = run(FftKind::r2c, x, dim, n / 2 + 1, to_complex_dtype(x->dtype), false, scale);
  autograd::record_function("FftR2CBackward", {x}, {y}, {},
                            [=](const Grads& g, const std::vector<Tensor>&) -> Grads {
                              // The missing half of the spectrum has gradient 0.
                              return {real(c2c(resized(g[0], dim, n), dim, scale, false))};
                            });
  return y;
}

// x: the n/2 + 1 entries of a Hermitian signal along dim.
Tensor c2r(const Tensor& x, int64_t dim, int64_t n, double scale) {
  Tensor y = run(FftKind::c2r, x, dim, n, complex_part_dtype(x->dtype), true, scale);
  autograd::record_function("FftC2RBackward", {x}, {y}, {},
                            [=](const Grads& g, const std::vector<Tensor>&) -> Grads {
                              Tensor gi = r2c(g[0], dim, scale, true);
                              // Entries 1 .. n - (n/2 + 1) stand for two of the full spectrum each.
                              const int64_t half = n / 2 + 1, doubled = n - half;
                              if (doubled <= 0) return {gi};
                              Tensor w = full(Dims{half}, 1.0, complex_part_dtype(gi->dtype));
                              copy_into(raw_narrow(w, 0, 1, doubled), full(Dims{doubled}, 2.0, w->dtype));
                              Dims shape = Dims::filled(gi->ndim(), 1);
                              shape[dim] = half;
                              return {mul(gi, tc::to_device(raw_reshape(w, shape), gi->device))};
                            });
  return y;
}

int64_t signal_dim(const Tensor& a, int64_t dim, const char* op) {
  TC_CHECK(a->ndim() > 0, TC_ERR_SHAPE, op, ": expected a tensor of at least one dim but got a 0-dim tensor");
  return wrap_dim(dim, a->ndim(), op);
}

int64_t signal_length(int64_t n, int64_t size, const char* op) {
  if (n == -1) n = size;
  TC_CHECK(n >= 1, TC_ERR_INVALID_ARGUMENT, op, ": Invalid number of data points (", n, ") specified");
  return n;
}

// Integer and bool inputs compute in the default float dtype (PyTorch's promotion for the FFTs).
Tensor as_float(const Tensor& a) {
  return is_floating(a->dtype) || is_complex(a->dtype) ? a : cast(a, default_dtype());
}

void check_fft_dtype(const Tensor& a, const char* op) {
  const DType part = complex_part_dtype(a->dtype);
  TC_CHECK(part == DType::f32 || part == DType::f64, TC_ERR_DTYPE, op,
           ": expected a float32, float64, complex64 or complex128 tensor (or an integer one) but got a ",
           describe(a));
}

}  // namespace

Tensor fft_c2c(const Tensor& a, int64_t dim, int64_t n, int64_t normalization, bool forward) {
  const char* op = "fft_c2c";
  const int64_t d = signal_dim(a, dim, op);
  n = signal_length(n, a->shape[d], op);
  const double scale = norm_scale(normalization, n);
  Tensor x = as_float(a);
  check_fft_dtype(x, op);
  if (!is_complex(x->dtype)) x = to_dtype(x, to_complex_dtype(x->dtype));
  return c2c(resized(x, d, n), d, scale, forward);
}

Tensor fft_r2c(const Tensor& a, int64_t dim, int64_t n, int64_t normalization, bool onesided) {
  const char* op = "fft_r2c";
  const int64_t d = signal_dim(a, dim, op);
  n = signal_length(n, a->shape[d], op);
  const double scale = norm_scale(normalization, n);
  TC_CHECK(!is_complex(a->dtype), TC_ERR_DTYPE, op, ": expects a real input tensor, but got ", describe(a));
  Tensor x = as_float(a);
  check_fft_dtype(x, op);
  return r2c(resized(x, d, n), d, scale, onesided);
}

Tensor fft_c2r(const Tensor& a, int64_t dim, int64_t n, int64_t normalization) {
  const char* op = "fft_c2r";
  const int64_t d = signal_dim(a, dim, op);
  n = signal_length(n == -1 ? 2 * (a->shape[d] - 1) : n, 0, op);
  const double scale = norm_scale(normalization, n);
  Tensor x = as_float(a);
  check_fft_dtype(x, op);
  if (!is_complex(x->dtype)) x = to_dtype(x, to_complex_dtype(x->dtype));
  return c2r(resized(x, d, n / 2 + 1), d, n, scale);
}

}  // namespace tc::ops
