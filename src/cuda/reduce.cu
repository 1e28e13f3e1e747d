// CUDA kernels of the reductions, the softmax family and losses, and the
// indexing ops (declared in cuda/reduce.h). The index arithmetic and the
// reduction order live in cuda/reduce_plan.h, shared with the CPU tests;
// these kernels are thin loops over it. Launches go on the default stream.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "core/error.h"
#include "cuda/cuda_check.h"
#include "cuda/device_types.cuh"
#include "cuda/reduce.h"
#include "math/reduce_plan.h"

namespace tc::cuda {
namespace {

using rplan::ArgAcc;
using rplan::ExtremeOp;
using rplan::kept_offset;
using rplan::Launch;
using rplan::red_offset;
using rplan::ReducePlan;
using rplan::SumOp;

// ---------------------------------------------------------------- types --

// Element types, their compute types and conversions: cuda/device_types.cuh,
// the mapping the elementwise kernels use.

// Sums: float32/float64 accumulate in double (as the CPU), 16-bit floats in
// float, integers and bool in uint64 (wrapping) into an int64 result.
template <typename T>
struct SumTypes {
  using acc = std::conditional_t<
      std::is_integral_v<T>, uint64_t,
      std::conditional_t<std::is_same_v<compute_t<T>, float> && !std::is_same_v<T, float>, float, double>>;
  using out = std::conditional_t<std::is_integral_v<T>, int64_t, T>;
};

// Softmax-family accumulation: double for float32/64, float for 16-bit floats.
template <typename T>
using softacc_t =
    std::conditional_t<std::is_same_v<compute_t<T>, float> && !std::is_same_v<T, float>, float, double>;

// ---------------------------------------------------------------- launch --

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = int64_t(1) << 20;

int blocks_for(int64_t n, int threads) {
  return int(std::min<int64_t>(std::max<int64_t>((n + threads - 1) / threads, 1), kMaxBlocks));
}
int blocks_cap(int64_t n) { return int(std::min<int64_t>(std::max<int64_t>(n, 1), kMaxBlocks)); }
void check_launch() { TC_CUDA_CHECK(cudaGetLastError()); }
void use_device(const Tensor& t) { TC_CUDA_CHECK(cudaSetDevice(device_index(t->device))); }

#define TC_GRID_LOOP(i, n)                                                  \
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < (n); \
       i += int64_t(gridDim.x) * blockDim.x)

extern __shared__ __align__(16) unsigned char tc_reduce_smem[];

// The position of the first bad index a kernel found (atomicMin: the same
// one every run, the first in order, as the CPU reports).
class BadIndex {
 public:
  explicit BadIndex(Device dev) : buf_(empty(Dims{1}, DType::i64, dev)) {
    TC_CUDA_CHECK(cudaMemset(ptr(), 0xFF, sizeof(unsigned long long)));
  }
  unsigned long long* ptr() const { return static_cast<unsigned long long*>(buf_->data()); }
  // -1 when every index was in range.
  int64_t first() const {
    unsigned long long v = 0;
    TC_CUDA_CHECK(cudaMemcpy(&v, ptr(), sizeof v, cudaMemcpyDeviceToHost));
    return v == ~0ull ? -1 : int64_t(v);
  }

 private:
  Tensor buf_;
};

ReducePlan plan_of(const Dims& shape, const bool* reduced, std::initializer_list<const int64_t*> strides) {
  const int64_t* s[rplan::kMaxOperands] = {};
  int n = 0;
  for (const int64_t* p : strides) s[n++] = p;
  return rplan::make_plan(shape.size(), shape.data(), reduced, n, s);
}

// ---------------------------------------------------------- reductions --

template <typename Op, typename T>
struct ElemLoad {
  const T* base;
  const ReducePlan* p;
  __host__ __device__ typename Op::acc_t operator()(int64_t r) const {
    return Op::from(to_compute(base[red_offset(*p, 0, r)]), r);
  }
};

template <typename O, typename Acc>
struct SumWrite {
  O* out;
  double scale;
  __host__ __device__ void operator()(int64_t k, Acc a) const {
    if constexpr (std::is_integral_v<Acc>) {
      out[k] = O(a);
    } else {
      out[k] = from_compute<O>(scale == 1.0 ? a : Acc(double(a) * scale));
    }
  }
};

template <typename T, typename V>
struct ExtremeWrite {
  T* values;
  int64_t* indices;
  bool inf_to_zero;
  __host__ __device__ void operator()(int64_t k, ArgAcc<V> a) const {
    if (values) {
      V v = a.v;
      if constexpr (std::is_floating_point_v<V>) {
        if (inf_to_zero && isinf(v)) v = V(0);
      }
      values[k] = from_compute<T>(v);
    }
    if (indices) indices[k] = a.i;
  }
};

template <typename Op, typename T, typename W>
__global__ void reduce_thread_kernel(const ReducePlan p, const T* in, W w) {
  TC_GRID_LOOP(k, p.K) {
    const ElemLoad<Op, T> load{in + kept_offset(p, 0, k), &p};
    w(k, rplan::thread_partial<Op>(0, p.R, 0, 1, load));
  }
}

// Block per (output, chunk); partial null: one chunk, written through w.
template <typename Op, typename T, typename W>
__global__ void reduce_block_kernel(const ReducePlan p, const T* in, int64_t chunks, int64_t chunk_len, W w,
                                    typename Op::acc_t* partial) {
  using acc_t = typename Op::acc_t;
  acc_t* sh = reinterpret_cast<acc_t*>(tc_reduce_smem);
  const int32_t t = threadIdx.x, nt = blockDim.x;
  for (int64_t job = blockIdx.x; job < p.K * chunks; job += gridDim.x) {
    const int64_t k = job / chunks, g = job % chunks;
    const int64_t r0 = g * chunk_len, r1 = r0 + chunk_len < p.R ? r0 + chunk_len : p.R;
    const ElemLoad<Op, T> load{in + kept_offset(p, 0, k), &p};
    sh[t] = rplan::thread_partial<Op>(r0, r1, t, nt, load);
    __syncthreads();
    for (int32_t half = nt / 2; half > 0; half /= 2) {
      rplan::tree_step<Op>(sh, t, half);
      __syncthreads();
    }
    if (t == 0) {
      if (partial)
        partial[job] = sh[0];
      else
        w(k, sh[0]);
    }
    __syncthreads();
  }
}

template <typename Op, typename W>
__global__ void combine_chunks_kernel(int64_t K, int64_t chunks, const typename Op::acc_t* partial, W w) {
  TC_GRID_LOOP(k, K) {
    typename Op::acc_t acc = Op::identity();
    for (int64_t g = 0; g < chunks; ++g) acc = Op::combine(acc, partial[k * chunks + g]);
    w(k, acc);
  }
}

template <typename Op, typename T, typename W>
void run_reduce(const ReducePlan& p, const T* in, W w, Device dev) {
  using acc_t = typename Op::acc_t;
  if (p.K == 0) return;
  const Launch l = rplan::choose_launch(p, true);
  if (!l.block) {
    reduce_thread_kernel<Op><<<blocks_for(p.K, kThreads), kThreads>>>(p, in, w);
    check_launch();
    return;
  }
  Tensor scratch;
  acc_t* partial = nullptr;
  if (l.chunks > 1) {
    scratch = empty(Dims{p.K * l.chunks * int64_t(sizeof(acc_t))}, DType::u8, dev);
    partial = static_cast<acc_t*>(scratch->data());
  }
  reduce_block_kernel<Op><<<blocks_cap(p.K * l.chunks), l.threads, size_t(l.threads) * sizeof(acc_t)>>>(
      p, in, l.chunks, l.chunk_len, w, partial);
  check_launch();
  if (partial) {
    combine_chunks_kernel<Op><<<blocks_for(p.K, kThreads), kThreads>>>(p.K, l.chunks, partial, w);
    check_launch();
  }
  // scratch goes back to the stream-ordered cache: later work on the default
  // stream runs after these kernels.
}

template <typename T, bool IsMax>
void run_extreme(const ReducePlan& p, const Tensor& a, const Tensor& values, const Tensor& indices,
                 bool inf_to_zero) {
  using V = compute_t<T>;
  const ExtremeWrite<T, V> w{values ? static_cast<T*>(values->data()) : nullptr,
                             indices ? indices->data_as<int64_t>() : nullptr, inf_to_zero};
  run_reduce<ExtremeOp<V, IsMax>>(p, static_cast<const T*>(a->data()), w, a->device);
}

// ------------------------------------------------------- softmax family --

template <typename C>
struct MaxKeepOp {  // the CPU's std::max(mx, x): NaN never replaces the max
  using acc_t = C;
  __host__ __device__ static acc_t identity() { return -C(INFINITY); }
  __host__ __device__ static acc_t from(C v, int64_t) { return v; }
  __host__ __device__ static acc_t combine(acc_t a, acc_t b) { return a < b ? b : a; }
};

template <typename Op, typename F>
struct FnLoad {
  F f;
  __host__ __device__ typename Op::acc_t operator()(int64_t r) const { return f(r); }
};

// The reduction of one row by the calling block (threads: blockDim.x) or by
// the calling thread alone (nt = 1); every thread of a block gets the result.
template <typename Op, typename F>
__device__ typename Op::acc_t row_reduce(int64_t R, bool block, F f) {
  using acc_t = typename Op::acc_t;
  const FnLoad<Op, F> load{f};
  if (!block) return rplan::thread_partial<Op>(0, R, 0, 1, load);
  acc_t* sh = reinterpret_cast<acc_t*>(tc_reduce_smem);
  const int32_t t = threadIdx.x, nt = blockDim.x;
  sh[t] = rplan::thread_partial<Op>(0, R, t, nt, load);
  __syncthreads();
  for (int32_t half = nt / 2; half > 0; half /= 2) {
    rplan::tree_step<Op>(sh, t, half);
    __syncthreads();
  }
  const acc_t r = sh[0];
  __syncthreads();
  return r;
}

// Rows of the plan: blocks take one row each (block mode) or threads do.
#define TC_ROW_LOOP(k, p, block)                                                                   \
  for (int64_t k = (block) ? int64_t(blockIdx.x) : blockIdx.x * int64_t(blockDim.x) + threadIdx.x; \
       k < (p).K; k += (block) ? int64_t(gridDim.x) : int64_t(gridDim.x) * blockDim.x)
#define TC_ROW_ELEMS(r, p, block) \
  for (int64_t r = (block) ? int64_t(threadIdx.x) : 0; r < (p).R; r += (block) ? int64_t(blockDim.x) : 1)

// Operands: 0 = x, 1 = y.
template <typename T>
__global__ void softmax_kernel(const ReducePlan p, const T* x, T* y, bool block, bool log) {
  using U = compute_t<T>;
  using C = softacc_t<T>;
  TC_ROW_LOOP(k, p, block) {
    const T* xr = x + kept_offset(p, 0, k);
    T* yr = y + kept_offset(p, 1, k);
    auto xs = [&](int64_t r) { return U(to_compute(xr[red_offset(p, 0, r)])); };
    U mx = U(row_reduce<MaxKeepOp<C>>(p.R, block, [&](int64_t r) { return C(xs(r)); }));
    if (isinf(mx) && mx < 0) mx = 0;  // a row of -inf: keep NaN-free arithmetic below
    const C sum = row_reduce<SumOp<C>>(p.R, block, [&](int64_t r) { return C(exp(C(U(xs(r) - mx)))); });
    if (log) {
      const U lse = U(to_compute(from_compute<T>(U(::log(sum)))));
      TC_ROW_ELEMS(r, p, block) yr[red_offset(p, 1, r)] = from_compute<T>(U(xs(r) - mx - lse));
    } else {
      const C inv = C(1) / sum;
      TC_ROW_ELEMS(r, p, block) yr[red_offset(p, 1, r)] = from_compute<T>(C(exp(C(U(xs(r) - mx)))) * inv);
    }
  }
}

// Operands: 0 = g, 1 = y, 2 = gx.
template <typename T>
__global__ void softmax_backward_kernel(const ReducePlan p, const T* g, const T* y, T* gx, bool block,
                                        bool log) {
  using C = softacc_t<T>;
  TC_ROW_LOOP(k, p, block) {
    const T* gr = g + kept_offset(p, 0, k);
    const T* yr = y + kept_offset(p, 1, k);
    T* xr = gx + kept_offset(p, 2, k);
    auto gs = [&](int64_t r) { return C(to_compute(gr[red_offset(p, 0, r)])); };
    auto ys = [&](int64_t r) { return C(to_compute(yr[red_offset(p, 1, r)])); };
    const C dot = row_reduce<SumOp<C>>(p.R, block, [&](int64_t r) { return log ? gs(r) : gs(r) * ys(r); });
    TC_ROW_ELEMS(r, p, block) {
      xr[red_offset(p, 2, r)] = from_compute<T>(log ? gs(r) - exp(ys(r)) * dot : ys(r) * (gs(r) - dot));
    }
  }
}

// Operands: 0 = x, 1 = probs. Targets were checked.
template <typename T>
__global__ void cross_entropy_kernel(const ReducePlan p, const T* x, const int64_t* target, T* probs,
                                     double* losses, bool block) {
  using U = compute_t<T>;
  using C = softacc_t<T>;
  TC_ROW_LOOP(k, p, block) {
    const T* xr = x + kept_offset(p, 0, k);
    T* pr = probs + kept_offset(p, 1, k);
    auto xs = [&](int64_t r) { return U(to_compute(xr[red_offset(p, 0, r)])); };
    const U mx = U(row_reduce<MaxKeepOp<C>>(p.R, block, [&](int64_t r) { return C(xs(r)); }));
    const C sum = row_reduce<SumOp<C>>(p.R, block, [&](int64_t r) {
      const C e = C(exp(C(U(xs(r) - mx))));
      pr[red_offset(p, 1, r)] = from_compute<T>(e);
      return e;
    });
    const C inv = C(1) / sum;
    // Each thread rescales the probabilities it wrote itself.
    TC_ROW_ELEMS(r, p, block) {
      T& q = pr[red_offset(p, 1, r)];
      q = from_compute<T>(C(to_compute(q)) * inv);
    }
    if (!block || threadIdx.x == 0) {
      const int64_t t = target[k];
      losses[k] = t >= 0 && t < p.R ? double(mx) + double(::log(sum)) - double(xs(t)) : double(NAN);
    }
  }
}

template <typename T>
__global__ void nll_kernel(const ReducePlan p, const T* x, const int64_t* target, double* losses) {
  TC_GRID_LOOP(k, p.K) {
    const int64_t t = target[k];
    losses[k] =
        t >= 0 && t < p.R ? -double(to_compute(x[kept_offset(p, 0, k) + red_offset(p, 0, t)])) : double(NAN);
  }
}

__global__ void range_check_kernel(const int64_t* t, int64_t n, int64_t bound, unsigned long long* bad) {
  TC_GRID_LOOP(i, n) {
    if (t[i] < 0 || t[i] >= bound) atomicMin(bad, (unsigned long long)i);
  }
}

struct DoubleLoad {
  const double* p;
  __host__ __device__ double operator()(int64_t r) const { return p[r]; }
};

template <typename T>
__global__ void losses_total_kernel(const double* l, int64_t n, T* out, bool mean) {
  double* sh = reinterpret_cast<double*>(tc_reduce_smem);
  const int32_t t = threadIdx.x, nt = blockDim.x;
  sh[t] = rplan::thread_partial<SumOp<double>>(0, n, t, nt, DoubleLoad{l});
  __syncthreads();
  for (int32_t half = nt / 2; half > 0; half /= 2) {
    rplan::tree_step<SumOp<double>>(sh, t, half);
    __syncthreads();
  }
  if (t == 0)
    out[0] = from_compute<T>(mean ? sh[0] / double(n) : sh[0]);  // 0/0 = NaN for n = 0, as on the CPU
}

template <typename T>
__global__ void losses_each_kernel(const double* l, int64_t n, T* out) {
  TC_GRID_LOOP(i, n) out[i] = from_compute<T>(l[i]);
}

// The gradient reaching row i: g[i] (none), g[0] (sum) or g[0] / n (mean).
template <typename T>
__device__ double row_grad(const T* g, int64_t i, int64_t n, int32_t reduction) {
  const double v = double(to_compute(g[reduction == TC_REDUCTION_NONE ? i : 0]));
  return reduction == TC_REDUCTION_MEAN ? v / double(n) : v;
}

template <typename T>
__global__ void cross_entropy_backward_kernel(const T* probs, const int64_t* target, const T* g, T* gx,
                                              int64_t n, int64_t c, int32_t reduction) {
  using U = compute_t<T>;
  TC_GRID_LOOP(e, n * c) {
    const int64_t i = e / c, j = e % c;
    const U gi = U(to_compute(from_compute<T>(row_grad(g, i, n, reduction))));
    T v = from_compute<T>(U(to_compute(probs[e])) * gi);
    if (j == target[i]) v = from_compute<T>(U(to_compute(v)) - gi);
    gx[e] = v;
  }
}

template <typename T>
__global__ void nll_backward_kernel(const int64_t* target, const T* g, T* gx, int64_t n, int64_t c,
                                    int32_t reduction) {
  TC_GRID_LOOP(i, n) {
    if (target[i] >= 0 && target[i] < c)
      gx[i * c + target[i]] = from_compute<T>(-row_grad(g, i, n, reduction));
  }
}

// ------------------------------------------------------------- indexing --

// Over out's shape with dim reduced. Operands: 0 = out, 1 = index positions,
// 2 = a (its dim stride is a_dim_stride).
// The indices were checked; a bad one is skipped rather than read through.
template <typename U>
__global__ void index_gather_kernel(const ReducePlan p, U* out, const int64_t* index, const U* a,
                                    int64_t a_dim_stride, int64_t len) {
  TC_GRID_LOOP(e, p.K * p.R) rplan::gather_element(p, e, out, index, a, a_dim_stride, len);
}

template <typename T>
struct AddInCompute {
  __host__ __device__ void operator()(T* dst, T x) const {
    *dst = from_compute<T>(compute_t<T>(to_compute(*dst)) + compute_t<T>(to_compute(x)));
  }
};

template <typename T>
__global__ void index_scatter_add_kernel(const ReducePlan p, T* gi, const T* g, const int64_t* index,
                                         int64_t gi_dim_stride) {
  TC_GRID_LOOP(k, p.K) rplan::scatter_add_column(p, k, gi, g, index, gi_dim_stride, AddInCompute<T>{});
}

__global__ void one_hot_kernel(const int64_t* index, int64_t n, int64_t classes, int64_t* out) {
  TC_GRID_LOOP(i, n) {
    const int64_t v = index[i];
    if (v >= 0 && v < classes) out[i * classes + v] = 1;
  }
}

// Operands: 0 = dst, 1 = src; nothing reduced.
template <typename U>
__global__ void strided_copy_kernel(const ReducePlan p, U* dst, const U* src) {
  TC_GRID_LOOP(k, p.K) dst[kept_offset(p, 0, k)] = src[kept_offset(p, 1, k)];
}

// Softmax-like row launch: block per row or thread per row.
struct RowLaunch {
  bool block;
  int blocks, threads;
  size_t smem;
};
RowLaunch row_launch(const ReducePlan& p) {
  const Launch l = rplan::choose_launch(p, false);
  if (l.block) return {true, blocks_cap(p.K), l.threads, size_t(l.threads) * sizeof(double)};
  return {false, blocks_for(p.K, kThreads), kThreads, 0};
}

Dims index_positions(const Tensor& index, int64_t ndim, int64_t dim, bool index_select) {
  Dims s = Dims::filled(ndim, 0);
  rplan::index_position_strides(ndim, dim, index_select, index->strides.data(), index->ndim(), s.data());
  return s;
}

}  // namespace

// ---------------------------------------------------------- entry points --

void reduce(Reduce op, const Tensor& out, const Tensor& a, double scale, bool inf_to_zero) {
  use_device(a);
  bool red[TC_MAX_DIMS];
  for (int64_t d = 0; d < a->ndim(); ++d) red[d] = out->shape[d] != a->shape[d];
  const ReducePlan p = plan_of(a->shape, red, {a->strides.data()});
  if (op == Reduce::sum) {
    dispatch_all(a->dtype, "sum", [&](auto tag) {
      using T = decltype(tag);
      using Acc = typename SumTypes<T>::acc;
      using O = typename SumTypes<T>::out;
      run_reduce<SumOp<Acc>>(p, static_cast<const T*>(a->data()), SumWrite<O, Acc>{out->data_as<O>(), scale},
                             a->device);
    });
    return;
  }
  TC_CHECK(p.R > 0 || p.K == 0, TC_ERR_INTERNAL, "cuda reduce: max/min of no elements");
  dispatch_all(a->dtype, op == Reduce::max ? "max" : "min", [&](auto tag) {
    using T = decltype(tag);
    if (op == Reduce::max)
      run_extreme<T, true>(p, a, out, nullptr, inf_to_zero);
    else
      run_extreme<T, false>(p, a, out, nullptr, inf_to_zero);
  });
}

void arg_reduce(bool is_max, const Tensor& values, const Tensor& indices, const Tensor& a, int64_t dim) {
  use_device(a);
  bool red[TC_MAX_DIMS] = {};
  if (a->ndim() > 0) red[dim] = true;
  const ReducePlan p = plan_of(a->shape, red, {a->strides.data()});
  TC_CHECK(p.R > 0 || p.K == 0, TC_ERR_INTERNAL, "cuda arg_reduce: no elements along dim ", dim);
  dispatch_all(a->dtype, is_max ? "argmax" : "argmin", [&](auto tag) {
    using T = decltype(tag);
    if (is_max)
      run_extreme<T, true>(p, a, values, indices, false);
    else
      run_extreme<T, false>(p, a, values, indices, false);
  });
}

void softmax(const Tensor& y, const Tensor& x, int64_t dim, bool log) {
  use_device(x);
  if (x->numel() == 0) return;
  bool red[TC_MAX_DIMS] = {};
  if (x->ndim() > 0) red[dim] = true;
  const ReducePlan p = plan_of(x->shape, red, {x->strides.data(), y->strides.data()});
  const RowLaunch l = row_launch(p);
  dispatch_float(x->dtype, log ? "log_softmax" : "softmax", [&](auto tag) {
    using T = decltype(tag);
    softmax_kernel<T><<<l.blocks, l.threads, l.smem>>>(p, static_cast<const T*>(x->data()),
                                                       static_cast<T*>(y->data()), l.block, log);
  });
  check_launch();
}

void softmax_backward(const Tensor& gx, const Tensor& g, const Tensor& y, int64_t dim, bool log) {
  use_device(y);
  if (y->numel() == 0) return;
  bool red[TC_MAX_DIMS] = {};
  if (y->ndim() > 0) red[dim] = true;
  const ReducePlan p = plan_of(y->shape, red, {g->strides.data(), y->strides.data(), gx->strides.data()});
  const RowLaunch l = row_launch(p);
  dispatch_float(y->dtype, log ? "log_softmax backward" : "softmax backward", [&](auto tag) {
    using T = decltype(tag);
    softmax_backward_kernel<T><<<l.blocks, l.threads, l.smem>>>(p, static_cast<const T*>(g->data()),
                                                                static_cast<const T*>(y->data()),
                                                                static_cast<T*>(gx->data()), l.block, log);
  });
  check_launch();
}

int64_t first_out_of_range(const Tensor& index, int64_t bound) {
  use_device(index);
  const int64_t n = index->numel();
  if (n == 0) return -1;
  const BadIndex bad(index->device);
  range_check_kernel<<<blocks_for(n, kThreads), kThreads>>>(index->data_as<int64_t>(), n, bound, bad.ptr());
  check_launch();
  return bad.first();
}

int64_t read_index(const Tensor& index, int64_t pos) {
  use_device(index);
  int64_t v = 0;
  TC_CUDA_CHECK(cudaMemcpy(&v, index->data_as<int64_t>() + pos, sizeof v, cudaMemcpyDeviceToHost));
  return v;
}

namespace {
// [N, C] rows of x (a 1-D x: one row), reduced over C. Operands: x, then extra.
ReducePlan rows_plan(const Tensor& x, const int64_t* extra) {
  bool red[TC_MAX_DIMS] = {};
  red[x->ndim() - 1] = true;
  if (extra) return plan_of(x->shape, red, {x->strides.data(), extra});
  return plan_of(x->shape, red, {x->strides.data()});
}
}  // namespace

void cross_entropy_forward(const Tensor& probs, const Tensor& losses, const Tensor& x, const Tensor& target) {
  use_device(x);
  if (x->numel() == 0) return;
  const Dims pstrides = contiguous_strides(x->shape);  // probs' [N, C] layout over x's shape
  const ReducePlan p = rows_plan(x, pstrides.data());
  const RowLaunch l = row_launch(p);
  dispatch_float(x->dtype, "cross_entropy", [&](auto tag) {
    using T = decltype(tag);
    cross_entropy_kernel<T>
        <<<l.blocks, l.threads, l.smem>>>(p, static_cast<const T*>(x->data()), target->data_as<int64_t>(),
                                          static_cast<T*>(probs->data()), losses->data_as<double>(), l.block);
  });
  check_launch();
}

void nll_forward(const Tensor& losses, const Tensor& x, const Tensor& target) {
  use_device(x);
  if (x->numel() == 0) return;
  const ReducePlan p = rows_plan(x, nullptr);
  dispatch_float(x->dtype, "nll_loss", [&](auto tag) {
    using T = decltype(tag);
    nll_kernel<T><<<blocks_for(p.K, kThreads), kThreads>>>(
        p, static_cast<const T*>(x->data()), target->data_as<int64_t>(), losses->data_as<double>());
  });
  check_launch();
}

void reduce_losses(const Tensor& out, const Tensor& losses, int32_t reduction) {
  use_device(out);
  const int64_t n = losses->numel();
  dispatch_float(out->dtype, "loss", [&](auto tag) {
    using T = decltype(tag);
    T* o = static_cast<T*>(out->data());
    if (reduction == TC_REDUCTION_NONE) {
      if (n > 0)
        losses_each_kernel<T><<<blocks_for(n, kThreads), kThreads>>>(losses->data_as<double>(), n, o);
    } else {
      losses_total_kernel<T><<<1, kThreads, kThreads * sizeof(double)>>>(losses->data_as<double>(), n, o,
                                                                         reduction == TC_REDUCTION_MEAN);
    }
  });
  check_launch();
}

void cross_entropy_backward(const Tensor& gx, const Tensor& probs, const Tensor& target, const Tensor& g,
                            int32_t reduction) {
  use_device(gx);
  const int64_t n = probs->shape[0], c = probs->shape[1];
  if (n * c == 0) return;
  dispatch_float(gx->dtype, "cross_entropy backward", [&](auto tag) {
    using T = decltype(tag);
    cross_entropy_backward_kernel<T><<<blocks_for(n * c, kThreads), kThreads>>>(
        static_cast<const T*>(probs->data()), target->data_as<int64_t>(), static_cast<const T*>(g->data()),
        static_cast<T*>(gx->data()), n, c, reduction);
  });
  check_launch();
}

void nll_backward(const Tensor& gx, const Tensor& target, const Tensor& g, int32_t reduction) {
  use_device(gx);
  const int64_t c = gx->shape[gx->ndim() - 1], n = gx->ndim() == 2 ? gx->shape[0] : 1;
  if (n * c == 0) return;
  dispatch_float(gx->dtype, "nll_loss backward", [&](auto tag) {
    using T = decltype(tag);
    nll_backward_kernel<T>
        <<<blocks_for(n, kThreads), kThreads>>>(target->data_as<int64_t>(), static_cast<const T*>(g->data()),
                                                static_cast<T*>(gx->data()), n, c, reduction);
  });
  check_launch();
}

void index_gather(const Tensor& out, const Tensor& a, int64_t dim, const Tensor& index, bool index_select) {
  use_device(a);
  if (out->numel() == 0) return;
  bool red[TC_MAX_DIMS] = {};
  red[dim] = true;
  const Dims pos = index_positions(index, out->ndim(), dim, index_select);
  const ReducePlan p = plan_of(out->shape, red, {out->strides.data(), pos.data(), a->strides.data()});
  dispatch_bits(a->itemsize(), [&](auto tag) {
    using U = decltype(tag);
    index_gather_kernel<U><<<blocks_for(p.K * p.R, kThreads), kThreads>>>(
        p, static_cast<U*>(out->data()), index->data_as<int64_t>(), static_cast<const U*>(a->data()),
        a->strides[dim], a->shape[dim]);
  });
  check_launch();
}

void index_scatter_add(const Tensor& gi, const Tensor& g, int64_t dim, const Tensor& index,
                       bool index_select) {
  use_device(gi);
  if (g->numel() == 0) return;
  bool red[TC_MAX_DIMS] = {};
  red[dim] = true;
  const Dims pos = index_positions(index, g->ndim(), dim, index_select);
  const ReducePlan p = plan_of(g->shape, red, {g->strides.data(), pos.data(), gi->strides.data()});
  dispatch_float(gi->dtype, "scatter_add", [&](auto tag) {
    using T = decltype(tag);
    index_scatter_add_kernel<T><<<blocks_for(p.K, kThreads), kThreads>>>(
        p, static_cast<T*>(gi->data()), static_cast<const T*>(g->data()), index->data_as<int64_t>(),
        gi->strides[dim]);
  });
  check_launch();
}

void one_hot(const Tensor& out, const Tensor& index, int64_t classes) {
  use_device(index);
  const int64_t n = index->numel();
  if (n == 0) return;
  one_hot_kernel<<<blocks_for(n, kThreads), kThreads>>>(index->data_as<int64_t>(), n, classes,
                                                        out->data_as<int64_t>());
  check_launch();
}

void strided_copy(const Tensor& dst, const Tensor& src) {
  use_device(dst);
  if (dst->numel() == 0) return;
  const bool red[TC_MAX_DIMS] = {};
  const ReducePlan p = plan_of(dst->shape, red, {dst->strides.data(), src->strides.data()});
  dispatch_bits(dst->itemsize(), [&](auto tag) {
    using U = decltype(tag);
    strided_copy_kernel<U><<<blocks_for(p.K, kThreads), kThreads>>>(p, static_cast<U*>(dst->data()),
                                                                    static_cast<const U*>(src->data()));
  });
  check_launch();
}

}  // namespace tc::cuda
