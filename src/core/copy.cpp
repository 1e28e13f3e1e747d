// Copies with dtype conversion between any strides, and the factories that
// fill tensors. The one generic kernel: coalesce dims that are contiguous in
// both operands, then run rows of the innermost dim, in parallel when large.
// CUDA tensors: src/cuda/elementwise.cu's kernel on one device, contiguous
// transfers between devices.
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "backend/backend.h"
#include "core/device_hooks.h"
#include "core/init.h"
#include "core/parallel_for.h"
#include "core/tensor.h"

namespace tc {

namespace {

template <typename T>
constexpr bool is_half_like = std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

// Value conversion like PyTorch's static_cast, but defined for NaN and
// out-of-range floats going to integers (they give 0 instead of UB).
template <typename D, typename S>
inline D convert(S v) {
  if constexpr (is_half_like<S>) {
    return convert<D, float>(static_cast<float>(v));
  } else if constexpr (std::is_same_v<D, bool>) {
    return v != S(0);
  } else if constexpr (is_half_like<D>) {
    return D(static_cast<float>(v));
  } else if constexpr (std::is_integral_v<D> && std::is_floating_point_v<S>) {
    const double x = double(v), lo = double(std::numeric_limits<D>::min());
    // lo - 1.0 rounds to lo for int64: lo itself must pass.
    if (!((x > lo - 1.0 || x == lo) && x < double(std::numeric_limits<D>::max()) + 1.0)) return D(0);
    return static_cast<D>(x);
  } else {
    return static_cast<D>(v);
  }
}

// Loads an element; a bool goes through its byte, so that a byte other
// than 0 or 1 (borrowed data) reads as true instead of being UB.
template <typename S>
inline S load(const S* p) {
  if constexpr (std::is_same_v<S, bool>) {
    uint8_t byte;
    std::memcpy(&byte, p, 1);
    return byte != 0;
  } else {
    return *p;
  }
}

struct Layout {
  Dims shape, a, b;  // a, b: strides of the two operands
};

// Merges dim i into i+1 when both operands step through them contiguously.
Layout coalesce(const Dims& shape, const Dims& sa, const Dims& sb) {
  Layout l;
  for (int64_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 1) continue;
    if (!l.shape.empty() && l.a.back() == sa[i] * shape[i] && l.b.back() == sb[i] * shape[i]) {
      const int64_t k = l.shape.size() - 1;
      l.shape[k] *= shape[i];
      l.a[k] = sa[i];
      l.b[k] = sb[i];
      continue;
    }
    l.shape.push_back(shape[i]);
    l.a.push_back(sa[i]);
    l.b.push_back(sb[i]);
  }
  if (l.shape.empty()) {
    l.shape.push_back(1);
    l.a.push_back(1);
    l.b.push_back(1);
  }
  return l;
}

template <typename D, typename S>
void copy_kernel(D* dst, const S* src, const Layout& l) {
  const int64_t nd = l.shape.size();
  const int64_t inner = l.shape[nd - 1];
  const int64_t da = l.a[nd - 1], sb = l.b[nd - 1];
  int64_t rows = 1;
  for (int64_t i = 0; i < nd - 1; ++i) rows *= l.shape[i];
  // Rows are independent: split them across threads once a thread gets
  // kParallelGrain elements (parallel_for stays off OpenMP below that).
  const int64_t row_grain = std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(inner, 1));
  parallel_for(rows, row_grain, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      int64_t rem = r, off_d = 0, off_s = 0;
      for (int64_t i = nd - 2; i >= 0; --i) {
        const int64_t idx = rem % l.shape[i];
        rem /= l.shape[i];
        off_d += idx * l.a[i];
        off_s += idx * l.b[i];
      }
      D* d = dst + off_d;
      const S* s = src + off_s;
      if (da == 1 && sb == 1) {
        for (int64_t j = 0; j < inner; ++j) d[j] = convert<D, S>(load(s + j));
      } else {
        for (int64_t j = 0; j < inner; ++j) d[j * da] = convert<D, S>(load(s + j * sb));
      }
    }
  });
}

// parallel_for stays off OpenMP below its grain (a false if() clause would
// still enter GOMP_parallel: ~2,700 instructions, more than filling
// backward's one-element seed gradient).
template <typename T>
void fill_kernel(T* p, int64_t n, T v) {
  parallel_for(n, kParallelGrain, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) p[i] = v;
  });
}

}  // namespace

namespace {

bool on_cpu(const Tensor& t) { return device_type(t->device) == TC_DEVICE_CPU; }

// nbytes between two contiguous buffers, one of them on a CUDA device.
void transfer(const Tensor& dst, const Tensor& src) {
  const Device dev = on_cpu(dst) ? src->device : dst->device;
  require_cuda(device_index(dev))
      .copy(dst->data(), dst->device, src->data(), src->device, dst->numel() * dst->itemsize());
}

// Copies that touch a CUDA device. On one device: a kernel converts and
// gathers/scatters. Between devices, bytes move only between contiguous
// buffers: the source is packed first (on its device, in dst's dtype when it
// is a CUDA tensor), and lands in a contiguous buffer on dst's device that is
// then copied into dst there, unless dst can take it as it is.
void copy_with_device(const Tensor& dst, const Tensor& src) {
  if (dst->device == src->device) {
    backend_for(dst).copy(dst, src);
    return;
  }
  Tensor from = src;
  if (on_cpu(src)) {
    if (!src->is_contiguous()) from = clone_data(src);
  } else if (src->dtype != dst->dtype || !src->is_contiguous()) {
    from = empty(src->shape, dst->dtype, src->device);
    copy_into(from, src);
  }
  if (from->dtype == dst->dtype && dst->is_contiguous()) {
    transfer(dst, from);
    return;
  }
  const Tensor landing = empty(dst->shape, from->dtype, dst->device);
  transfer(landing, from);
  copy_into(dst, landing);  // on dst's device now
}

}  // namespace

// A contiguous copy on the same device.
Tensor contiguous_on_device(const Tensor& t) { return t->is_contiguous() ? t : clone_data(t); }

Tensor complex_pairs_view(const Tensor& t) {
  TC_CHECK(is_complex(t->dtype), TC_ERR_DTYPE, "expected a complex tensor but got ", dtype_name(t->dtype));
  TC_CHECK(t->ndim() < TC_MAX_DIMS, TC_ERR_SHAPE, "a complex tensor of ", t->ndim(),
           " dims has no real view (it would have more than TC_MAX_DIMS dims)");
  Dims shape = t->shape, strides = t->strides;
  for (int64_t i = 0; i < strides.size(); ++i) strides[i] *= 2;
  shape.push_back(2);
  strides.push_back(1);
  Tensor v = make_view(t, shape, strides, t->offset * 2);
  v->dtype = complex_part_dtype(t->dtype);
  return v;
}

Tensor complex_part_view(const Tensor& t, int part) {
  TC_CHECK(is_complex(t->dtype), TC_ERR_DTYPE, "expected a complex tensor but got ", dtype_name(t->dtype));
  Dims strides = t->strides;
  for (int64_t i = 0; i < strides.size(); ++i) strides[i] *= 2;
  Tensor v = make_view(t, t->shape, strides, t->offset * 2 + part);
  v->dtype = complex_part_dtype(t->dtype);
  return v;
}

namespace {
// Copies involving a complex operand, as real copies of the parts: complex to
// complex pairwise, real to complex into the real part (imaginary part 0),
// complex to real from the real part (PyTorch's copy_ discards the
// imaginary part too).
void copy_complex(const Tensor& dst, const Tensor& src) {
  if (is_complex(dst->dtype) && is_complex(src->dtype)) {
    copy_into(complex_pairs_view(dst), complex_pairs_view(src));
  } else if (is_complex(dst->dtype)) {
    copy_into(complex_part_view(dst, 0), src);
    Tensor zero = zeros(Dims{}, complex_part_dtype(dst->dtype), dst->device);
    copy_into(complex_part_view(dst, 1), make_view(zero, dst->shape, Dims::filled(dst->ndim(), 0), 0));
  } else {
    copy_into(dst, complex_part_view(src, 0));
  }
}
}  // namespace

void copy_into(const Tensor& dst, const Tensor& src) {
  TC_CHECK(dst->shape == src->shape, TC_ERR_SHAPE, "copy: destination shape ", dst->shape,
           " and source shape ", src->shape, " differ");
  const int64_t n = dst->numel();
  if (n == 0) return;
  if (is_complex(dst->dtype) || is_complex(src->dtype)) {
    if (dst->dtype == src->dtype && dst->is_contiguous() && src->is_contiguous() && on_cpu(dst) &&
        on_cpu(src)) {
      std::memmove(dst->data(), src->data(), size_t(n * dst->itemsize()));
    } else {
      copy_complex(dst, src);
    }
    return;
  }
  if (!on_cpu(dst) || !on_cpu(src)) {
    copy_with_device(dst, src);
    return;
  }
  if (dst->dtype == src->dtype && dst->is_contiguous() && src->is_contiguous()) {
    std::memmove(dst->data(), src->data(), size_t(n * dst->itemsize()));
    return;
  }
  const Layout l = coalesce(dst->shape, dst->strides, src->strides);
  TC_DISPATCH_ALL(dst->dtype, "copy", [&] {
    using D = scalar_t;
    TC_DISPATCH_ALL(src->dtype, "copy",
                    [&] { copy_kernel<D, scalar_t>(dst->data_as<D>(), src->data_as<scalar_t>(), l); });
  });
}

Tensor contiguous(const Tensor& t) {
  if (t->is_contiguous()) return t;
  return clone_data(t);
}

Tensor clone_data(const Tensor& t) {
  Tensor out = empty(t->shape, t->dtype, t->device);
  copy_into(out, t);
  return out;
}

Tensor cast(const Tensor& t, DType dtype) {
  if (t->dtype == dtype) return t;
  Tensor out = empty(t->shape, dtype, t->device);
  copy_into(out, t);
  return out;
}

Tensor to_device(const Tensor& t, Device device) {
  if (t->device == device) return t;
  Tensor out = empty(t->shape, t->dtype, device);
  copy_into(out, t);
  return out;
}

double read_element(const Tensor& t, int64_t index) {
  TC_CHECK(on_cpu(t), TC_ERR_INTERNAL, "read_element needs a cpu tensor");
  int64_t off = 0;
  for (int64_t i = t->ndim() - 1; i >= 0; --i) {
    off += (index % t->shape[i]) * t->strides[i];
    index /= t->shape[i];
  }
  return TC_DISPATCH_ALL(t->dtype, "read_element",
                         [&] { return convert<double, scalar_t>(load(t->data_as<scalar_t>() + off)); });
}

// ---- factories ----

Tensor full(const Dims& shape, double value, DType dtype, Device device) {
  if (is_complex(dtype)) {  // value + 0i
    Tensor t = zeros(shape, dtype, device);
    if (value != 0 && t->numel() > 0) {
      Tensor v = full(Dims{}, value, complex_part_dtype(dtype), device);
      copy_into(complex_part_view(t, 0), make_view(v, shape, Dims::filled(shape.size(), 0), 0));
    }
    return t;
  }
  if (device != kCPU) {
    Tensor t = empty(shape, dtype, device);
    Tensor one = full(Dims{}, value, dtype, kCPU);  // the element's bytes in dtype
    if (t->numel() > 0)
      require_cuda(device_index(device))
          .fill(t->data(), device_index(device), t->numel(), t->itemsize(), one->data());
    return t;
  }
  Tensor t = empty(shape, dtype, device);
  const int64_t n = t->numel();
  TC_DISPATCH_ALL(dtype, "full",
                  [&] { fill_kernel(t->data_as<scalar_t>(), n, convert<scalar_t, double>(value)); });
  return t;
}

Tensor zeros(const Dims& shape, DType dtype, Device device) {
  Tensor t = empty(shape, dtype, device);
  const int64_t nbytes = t->numel() * t->itemsize();
  if (nbytes == 0) return t;
  if (on_cpu(t)) {
    std::memset(t->data(), 0, size_t(nbytes));
  } else {
    require_cuda(device_index(device)).memset_zero(t->data(), device_index(device), nbytes);
  }
  return t;
}

Tensor ones(const Dims& shape, DType dtype, Device device) { return full(shape, 1.0, dtype, device); }

Tensor scalar_tensor(double value, DType dtype, Device device) { return full(Dims{}, value, dtype, device); }

Tensor arange(double start, double end, double step, DType dtype, Device device) {
  TC_CHECK(step != 0 && std::isfinite(step), TC_ERR_INVALID_ARGUMENT,
           "arange: step must be finite and non-zero, got ", step);
  TC_CHECK(std::isfinite(start) && std::isfinite(end), TC_ERR_INVALID_ARGUMENT,
           "arange: start and end must be finite, got ", start, " and ", end);
  TC_CHECK(dtype != DType::b8, TC_ERR_DTYPE, "arange: bool is not supported");
  if (device != kCPU) return to_device(arange(start, end, step, dtype, kCPU), device);
  const double count = std::ceil((end - start) / step);
  TC_CHECK(count < 9.2e18, TC_ERR_OUT_OF_MEMORY, "arange: ", count, " elements are too many");
  const int64_t n = count > 0 ? int64_t(count) : 0;
  Tensor t = empty(Dims{n}, dtype, device);
  TC_DISPATCH_ALL(dtype, "arange", [&] {
    scalar_t* p = t->data_as<scalar_t>();
    for (int64_t i = 0; i < n; ++i) p[i] = convert<scalar_t, double>(start + double(i) * step);
  });
  return t;
}

void normalize_bools(void* data, int64_t nbytes) {
  auto* p = static_cast<uint8_t*>(data);
  for (int64_t i = 0; i < nbytes; ++i) p[i] = p[i] != 0;
}

}  // namespace tc
