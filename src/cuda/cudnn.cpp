// conv2d (forward and backward) and avg_pool2d (forward and backward) on CUDA
// through cuDNN's legacy API: one handle per device, made on first use and
// destroyed by the stage's shutdown; workspaces come from the caching
// allocator. The legacy convolution API is deprecated in cuDNN 9 in favour
// of the graph API but still shipped and supported; it is what this needs.
// Everything runs on the default stream, as every other libtc kernel does.
#include "cuda/cudnn.h"

#ifdef TC_HAVE_CUDNN
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <vector>

#include "core/error.h"
#include "core/init.h"
#include "cuda/blas.h"
#include "cuda/caching_allocator.h"
#include "cuda/cuda_check.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

namespace tc::cuda {
namespace {

[[noreturn]] void dnn_fail(const char* call, cudnnStatus_t s) {
  fail(s == CUDNN_STATUS_ALLOC_FAILED ? TC_ERR_OUT_OF_MEMORY : TC_ERR_DEVICE,
       str(call, " failed: ", cudnnGetErrorString(s)));
}
#define TC_CUDNN_CHECK(call)                                             \
  do {                                                                   \
    const cudnnStatus_t tc_dnn_st_ = (call);                             \
    if (tc_dnn_st_ != CUDNN_STATUS_SUCCESS) dnn_fail(#call, tc_dnn_st_); \
  } while (0)

struct DeviceDnn {
  std::mutex mu;  // a handle is used by one thread at a time
  cudnnHandle_t handle = nullptr;
};
struct Registry {
  std::mutex mu;
  std::vector<DeviceDnn*> devices;  // by index; never shrinks until shutdown
};
Registry& registry() {
  static Registry* r = new Registry();  // outlives static destruction
  return *r;
}

// The device's handle, locked for the caller's scope.
class HandleLock {
 public:
  explicit HandleLock(int32_t index) {
    TC_CUDA_CHECK(cudaSetDevice(index));
    Registry& r = registry();
    {
      std::lock_guard<std::mutex> g(r.mu);
      if (size_t(index) >= r.devices.size()) r.devices.resize(size_t(index) + 1, nullptr);
      if (!r.devices[size_t(index)]) r.devices[size_t(index)] = new DeviceDnn();
      d_ = r.devices[size_t(index)];
    }
    lock_ = std::unique_lock<std::mutex>(d_->mu);
    if (!d_->handle) {
      TC_CUDNN_CHECK(cudnnCreate(&d_->handle));
      TC_CUDNN_CHECK(cudnnSetStream(d_->handle, nullptr));
    }
  }
  cudnnHandle_t get() const { return d_->handle; }

 private:
  DeviceDnn* d_ = nullptr;
  std::unique_lock<std::mutex> lock_;
};

// Device scratch memory from the caching allocator, for one call.
class Workspace {
 public:
  Workspace(size_t bytes, int32_t index) : bytes_(bytes), index_(index) {
    if (bytes_ > 0) p_ = cuda_cache_alloc(int64_t(bytes_), index_);
  }
  ~Workspace() {
    if (p_) cuda_cache_free(p_, index_);
  }
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  void* get() const { return p_; }
  size_t size() const { return bytes_; }

 private:
  size_t bytes_;
  int32_t index_;
  void* p_ = nullptr;
};

// RAII descriptors.
template <typename T, cudnnStatus_t (*Create)(T*), cudnnStatus_t (*Destroy)(T)>
class Desc {
 public:
  Desc() { TC_CUDNN_CHECK(Create(&d_)); }
  ~Desc() { Destroy(d_); }
  Desc(const Desc&) = delete;
  Desc& operator=(const Desc&) = delete;
  T get() const { return d_; }

 private:
  T d_ = nullptr;
};
using TensorDesc = Desc<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor, cudnnDestroyTensorDescriptor>;
using FilterDesc = Desc<cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor, cudnnDestroyFilterDescriptor>;
using ConvDesc =
    Desc<cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor, cudnnDestroyConvolutionDescriptor>;
using PoolDesc = Desc<cudnnPoolingDescriptor_t, cudnnCreatePoolingDescriptor, cudnnDestroyPoolingDescriptor>;

cudnnDataType_t data_type(DType dt, const char* op) {
  switch (dt) {
    case DType::f32:
      return CUDNN_DATA_FLOAT;
    case DType::f64:
      return CUDNN_DATA_DOUBLE;
    case DType::f16:
      return CUDNN_DATA_HALF;
    case DType::bf16:
      return CUDNN_DATA_BFLOAT16;
    default:
      fail(TC_ERR_DTYPE, str(op, " on CUDA: expected a floating tensor but got ", dtype_name(dt)));
  }
}

// cuDNN's descriptors take int sizes.
int as_int(int64_t v, const char* op) {
  TC_CHECK(v >= 0 && v <= INT32_MAX, TC_ERR_NOT_IMPLEMENTED, op, " on CUDA: size ", v,
           " exceeds cuDNN's 32-bit descriptors");
  return int(v);
}

void set_nchw(const TensorDesc& d, cudnnDataType_t type, int64_t n, int64_t c, int64_t h, int64_t w,
              const char* op) {
  TC_CHECK(n * c * h * w <= INT32_MAX, TC_ERR_NOT_IMPLEMENTED, op, " on CUDA: a tensor of ", n * c * h * w,
           " elements exceeds cuDNN's 32-bit descriptors");
  TC_CUDNN_CHECK(cudnnSetTensor4dDescriptor(d.get(), CUDNN_TENSOR_NCHW, type, as_int(n, op), as_int(c, op),
                                            as_int(h, op), as_int(w, op)));
}

// alpha/beta scalars: double for float64 data, float otherwise.
// A dense [N, C, D, H, W] descriptor (conv3d).
void set_ncdhw(const TensorDesc& d, cudnnDataType_t type, std::initializer_list<int64_t> shape) {
  int dims[5], strides[5];
  int k = 0;
  for (int64_t v : shape) dims[k++] = as_int(v, "conv3d");
  strides[4] = 1;
  for (int i = 3; i >= 0; --i) strides[i] = as_int(int64_t(strides[i + 1]) * dims[i + 1], "conv3d");
  TC_CUDNN_CHECK(cudnnSetTensorNdDescriptor(d.get(), type, 5, dims, strides));
}

struct Scalars {
  explicit Scalars(DType dt) : dbl(dt == DType::f64) {}
  const void* one() const { return dbl ? static_cast<const void*>(&one64) : &one32; }
  const void* zero() const { return dbl ? static_cast<const void*>(&zero64) : &zero32; }
  bool dbl;
  double one64 = 1.0, zero64 = 0.0;
  float one32 = 1.0f, zero32 = 0.0f;
};

// The descriptors of one convolution.
struct ConvSetup {
  ConvSetup(const ConvGeom& g, DType dt) : type(data_type(dt, "conv2d")), s(dt) {
    const cudnnDataType_t compute = dt == DType::f64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    if (g.is_3d()) {
      // conv3d: NCDHW through the N-d descriptors (dense strides).
      set_ncdhw(x, type, {g.n, g.c, g.id, g.h, g.w});
      set_ncdhw(y, type, {g.n, g.o, g.od, g.ho, g.wo});
      set_ncdhw(bias, type, {1, g.o, 1, 1, 1});
      const int dims[5] = {as_int(g.o, "conv3d"), as_int(g.cg, "conv3d"), as_int(g.kd, "conv3d"),
                           as_int(g.kh, "conv3d"), as_int(g.kw, "conv3d")};
      TC_CUDNN_CHECK(cudnnSetFilterNdDescriptor(w.get(), type, CUDNN_TENSOR_NCHW, 5, dims));
      const int pad[3] = {as_int(g.pd, "conv3d"), as_int(g.ph, "conv3d"), as_int(g.pw, "conv3d")};
      const int str[3] = {as_int(g.sd, "conv3d"), as_int(g.sh, "conv3d"), as_int(g.sw, "conv3d")};
      const int dil[3] = {as_int(g.dd, "conv3d"), as_int(g.dh, "conv3d"), as_int(g.dw, "conv3d")};
      TC_CUDNN_CHECK(
          cudnnSetConvolutionNdDescriptor(conv.get(), 3, pad, str, dil, CUDNN_CROSS_CORRELATION, compute));
    } else {
      set_nchw(x, type, g.n, g.c, g.h, g.w, "conv2d");
      set_nchw(y, type, g.n, g.o, g.ho, g.wo, "conv2d");
      set_nchw(bias, type, 1, g.o, 1, 1, "conv2d");
      TC_CUDNN_CHECK(cudnnSetFilter4dDescriptor(w.get(), type, CUDNN_TENSOR_NCHW, as_int(g.o, "conv2d"),
                                                as_int(g.cg, "conv2d"), as_int(g.kh, "conv2d"),
                                                as_int(g.kw, "conv2d")));
      TC_CUDNN_CHECK(cudnnSetConvolution2dDescriptor(
          conv.get(), as_int(g.ph, "conv2d"), as_int(g.pw, "conv2d"), as_int(g.sh, "conv2d"),
          as_int(g.sw, "conv2d"), as_int(g.dh, "conv2d"), as_int(g.dw, "conv2d"), CUDNN_CROSS_CORRELATION,
          compute));
    }
    TC_CUDNN_CHECK(cudnnSetConvolutionGroupCount(conv.get(), as_int(g.groups, "conv2d")));
    // As the matmul: float32 may use TF32 tensor cores only when the
    // precision setting allows it; 16-bit floats always use tensor cores.
    cudnnMathType_t math = CUDNN_TENSOR_OP_MATH;
    if (dt == DType::f32)
      math = matmul_precision() == TC_MATMUL_PRECISION_HIGHEST ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH;
    else if (dt == DType::f64)
      math = CUDNN_DEFAULT_MATH;
    TC_CUDNN_CHECK(cudnnSetConvolutionMathType(conv.get(), math));
  }
  cudnnDataType_t type;
  Scalars s;
  TensorDesc x, y, bias;
  FilterDesc w;
  ConvDesc conv;
};

// The first algorithm of cuDNN's heuristic ranking that succeeds, is
// deterministic when the deterministic flag asks for it, and whose workspace
// the allocator can give.
template <typename Perf>
const Perf& pick(const std::vector<Perf>& perfs, int found, const char* what) {
  const bool det = deterministic();
  for (int i = 0; i < found; ++i) {
    if (perfs[size_t(i)].status != CUDNN_STATUS_SUCCESS) continue;
    if (det && perfs[size_t(i)].determinism != CUDNN_DETERMINISTIC) continue;
    return perfs[size_t(i)];
  }
  fail(TC_ERR_NOT_IMPLEMENTED,
       str(what, ": cuDNN has no ", det ? "deterministic " : "", "algorithm for this convolution"));
}

}  // namespace

void conv2d(const Tensor& y, const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeom& g) {
  const int32_t dev = device_index(y->device);
  ConvSetup d(g, y->dtype);
  HandleLock h(dev);
  if (x->numel() == 0 || w->numel() == 0) {  // an empty sum: the bias, or zeros
    TC_CUDA_CHECK(cudaMemset(y->data(), 0, size_t(y->numel() * y->itemsize())));
  } else {
    int max_algos = 0, found = 0;
    TC_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithmMaxCount(h.get(), &max_algos));
    std::vector<cudnnConvolutionFwdAlgoPerf_t> perfs(size_t(std::max(max_algos, 1)));
    TC_CUDNN_CHECK(cudnnGetConvolutionForwardAlgorithm_v7(h.get(), d.x.get(), d.w.get(), d.conv.get(),
                                                          d.y.get(), max_algos, &found, perfs.data()));
    const auto& algo = pick(perfs, found, "conv2d");
    Workspace ws(algo.memory, dev);
    TC_CUDNN_CHECK(cudnnConvolutionForward(h.get(), d.s.one(), d.x.get(), x->data(), d.w.get(), w->data(),
                                           d.conv.get(), algo.algo, ws.get(), ws.size(), d.s.zero(),
                                           d.y.get(), y->data()));
  }
  if (bias) {
    const Tensor b = tc::contiguous(bias);
    TC_CUDNN_CHECK(
        cudnnAddTensor(h.get(), d.s.one(), d.bias.get(), b->data(), d.s.one(), d.y.get(), y->data()));
  }
}

void conv2d_backward(const Tensor& gx, const Tensor& gw, const Tensor& gb, const Tensor& x, const Tensor& w,
                     const Tensor& gy, const ConvGeom& g) {
  const int32_t dev = device_index(gy->device);
  ConvSetup d(g, gy->dtype);
  HandleLock h(dev);
  const Tensor dy = tc::contiguous(gy);
  const bool empty_sum = x->numel() == 0 || w->numel() == 0;  // gx, gw stay zeros
  if (gx && !empty_sum) {
    int max_algos = 0, found = 0;
    TC_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithmMaxCount(h.get(), &max_algos));
    std::vector<cudnnConvolutionBwdDataAlgoPerf_t> perfs(size_t(std::max(max_algos, 1)));
    TC_CUDNN_CHECK(cudnnGetConvolutionBackwardDataAlgorithm_v7(h.get(), d.w.get(), d.y.get(), d.conv.get(),
                                                               d.x.get(), max_algos, &found, perfs.data()));
    const auto& algo = pick(perfs, found, "conv2d backward (input)");
    Workspace ws(algo.memory, dev);
    TC_CUDNN_CHECK(cudnnConvolutionBackwardData(h.get(), d.s.one(), d.w.get(), w->data(), d.y.get(),
                                                dy->data(), d.conv.get(), algo.algo, ws.get(), ws.size(),
                                                d.s.zero(), d.x.get(), gx->data()));
  }
  if (gw && !empty_sum) {
    int max_algos = 0, found = 0;
    TC_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterAlgorithmMaxCount(h.get(), &max_algos));
    std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> perfs(size_t(std::max(max_algos, 1)));
    TC_CUDNN_CHECK(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h.get(), d.x.get(), d.y.get(), d.conv.get(),
                                                                 d.w.get(), max_algos, &found, perfs.data()));
    const auto& algo = pick(perfs, found, "conv2d backward (weight)");
    Workspace ws(algo.memory, dev);
    TC_CUDNN_CHECK(cudnnConvolutionBackwardFilter(h.get(), d.s.one(), d.x.get(), x->data(), d.y.get(),
                                                  dy->data(), d.conv.get(), algo.algo, ws.get(), ws.size(),
                                                  d.s.zero(), d.w.get(), gw->data()));
  }
  if (gb) {
    TC_CUDNN_CHECK(cudnnConvolutionBackwardBias(h.get(), d.s.one(), d.y.get(), dy->data(), d.s.zero(),
                                                d.bias.get(), gb->data()));
  }
}

namespace {

// The descriptors of one average pooling: every plane as one channel.
struct PoolSetup {
  PoolSetup(const PoolGeom& g, DType dt) : type(data_type(dt, "avg_pool2d")), s(dt) {
    set_nchw(x, type, 1, g.planes, g.h, g.w, "avg_pool2d");
    set_nchw(y, type, 1, g.planes, g.ho, g.wo, "avg_pool2d");
    // PyTorch's count_include_pad averages (tc.h).
    TC_CUDNN_CHECK(cudnnSetPooling2dDescriptor(
        pool.get(), CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING, CUDNN_PROPAGATE_NAN,
        as_int(g.kh, "avg_pool2d"), as_int(g.kw, "avg_pool2d"), as_int(g.ph, "avg_pool2d"),
        as_int(g.pw, "avg_pool2d"), as_int(g.sh, "avg_pool2d"), as_int(g.sw, "avg_pool2d")));
  }
  cudnnDataType_t type;
  Scalars s;
  TensorDesc x, y;
  PoolDesc pool;
};

}  // namespace

void avg_pool2d(const Tensor& y, const Tensor& x, const PoolGeom& g) {
  PoolSetup d(g, y->dtype);
  HandleLock h(device_index(y->device));
  TC_CUDNN_CHECK(cudnnPoolingForward(h.get(), d.pool.get(), d.s.one(), d.x.get(), x->data(), d.s.zero(),
                                     d.y.get(), y->data()));
}

void avg_pool2d_backward(const Tensor& gx, const Tensor& gy, const PoolGeom& g) {
  PoolSetup d(g, gy->dtype);
  HandleLock h(device_index(gy->device));
  const Tensor dy = tc::contiguous(gy);
  // Average pooling's gradient reads neither x nor y; cuDNN still takes
  // pointers of their shapes (gy for y, gx for x), never read for averages.
  // gx holds zeros: beta 1 adds the spread gradient to them, as documented.
  TC_CUDNN_CHECK(cudnnPoolingBackward(h.get(), d.pool.get(), d.s.one(), d.y.get(), dy->data(), d.y.get(),
                                      dy->data(), d.x.get(), gx->data(), d.s.one(), d.x.get(), gx->data()));
}

std::string cudnn_version() {
  const size_t v = cudnnGetVersion();
  return str(v / 10000, ".", v / 100 % 100, ".", v % 100);
}

void cudnn_shutdown() noexcept {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (size_t i = 0; i < r.devices.size(); ++i) {
    DeviceDnn*& d = r.devices[i];
    if (!d) continue;
    if (d->handle) {
      cudaSetDevice(int(i));
      cudnnDestroy(d->handle);
    }
    delete d;
    d = nullptr;
  }
  r.devices.clear();
}

}  // namespace tc::cuda
#endif  // TC_HAVE_CUDNN
