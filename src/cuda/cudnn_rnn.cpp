// One recurrent layer (RNN_TANH, RNN_RELU, LSTM with or without projection,
// GRU; one or both directions) per call of cuDNN's v8 RNN API
// (cudnnRNNForward, cudnnRNNBackwardData_v8, cudnnRNNBackwardWeights_v8),
// behind backend/rnn_device_layer.h. PyTorch's weight tensors are copied
// into cuDNN's packed weight space at each forward (cudnnGetRNNWeightParams
// says where each matrix and bias goes; backend/rnn_lin_layers.h which of
// PyTorch's rows it is), and the weight gradients copied back out of the
// gradient's packed space. The packed weights and the training reserve are
// byte tensors the autograd node keeps. Descriptors and the device copy of
// the sequence lengths are made once per shape and cached per device.
//
// Why the mapping is exact: cuDNN's LSTM gates are (i, f, g, o) and its GRU
// gates (r, z, n) with n = tanh(W_n x + b_Wn + r * (R_n h + b_Rn)) under
// CUDNN_RNN_DOUBLE_BIAS and CUDNN_LINEAR_INPUT: PyTorch's order and its
// linear-before-reset GRU. The element count of every matrix and bias cuDNN
// reports is checked against PyTorch's before copying.
//
// Everything runs on the default stream, as every other libtc kernel does.
#include "cuda/cudnn_rnn.h"

#ifdef TC_HAVE_CUDNN
#include <cuda_runtime.h>
#include <cudnn.h>

#include <algorithm>
#include <array>
#include <climits>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "backend/rnn_lin_layers.h"
#include "core/error.h"
#include "core/matmul_precision.h"
#include "cuda/caching_allocator.h"
#include "cuda/cuda_check.h"

namespace tc::cuda {
namespace {

using rnn_fused::Cell;
using rnn_fused::LayerBackwardArgs;
using rnn_fused::LayerConfig;
using rnn_fused::LayerForwardArgs;
using rnn_fused::WeightSlice;

[[noreturn]] void rnn_dnn_fail(const char* call, cudnnStatus_t s) {
  fail(s == CUDNN_STATUS_ALLOC_FAILED ? TC_ERR_OUT_OF_MEMORY : TC_ERR_DEVICE,
       str(call, " failed: ", cudnnGetErrorString(s)));
}
#define TC_RNN_DNN_CHECK(call)                                               \
  do {                                                                       \
    const cudnnStatus_t tc_rnn_st_ = (call);                                 \
    if (tc_rnn_st_ != CUDNN_STATUS_SUCCESS) rnn_dnn_fail(#call, tc_rnn_st_); \
  } while (0)

// cuDNN's descriptors take int sizes.
int as_int(int64_t v, const char* what) {
  TC_CHECK(v >= 0 && v <= INT32_MAX, TC_ERR_NOT_IMPLEMENTED, "rnn on CUDA: ", what, " ", v,
           " exceeds cuDNN's 32-bit sizes");
  return int(v);
}

cudnnDataType_t data_type(DType dt) {
  switch (dt) {
    case DType::f32:
      return CUDNN_DATA_FLOAT;
    case DType::f64:
      return CUDNN_DATA_DOUBLE;
    default:
      fail(TC_ERR_NOT_IMPLEMENTED, str("rnn on CUDA through cuDNN: ", dtype_name(dt), " is not mapped"));
  }
}

cudnnRNNMode_t cell_mode(Cell c) {
  switch (c) {
    case Cell::tanh:
      return CUDNN_RNN_TANH;
    case Cell::relu:
      return CUDNN_RNN_RELU;
    case Cell::lstm:
      return CUDNN_LSTM;
    case Cell::gru:
      return CUDNN_GRU;
  }
  fail(TC_ERR_NOT_IMPLEMENTED, str("rnn on CUDA: unknown cell ", int32_t(c)));
}

// As the matmul and the convolutions: float32 may use TF32 tensor cores only
// when the precision setting allows it.
cudnnMathType_t math_type(DType dt) {
  if (dt == DType::f32 && matmul_precision() == TC_MATMUL_PRECISION_HIGHEST) return CUDNN_FMA_MATH;
  return CUDNN_DEFAULT_MATH;
}

// Device scratch memory from the caching allocator, for one call.
class Scratch {
 public:
  Scratch(size_t bytes, int32_t index) : index_(index) {
    if (bytes > 0) p_ = cuda_cache_alloc(int64_t(bytes), index_);
  }
  ~Scratch() {
    if (p_) cuda_cache_free(p_, index_);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  void* get() const { return p_; }

 private:
  int32_t index_;
  void* p_ = nullptr;
};

// Everything one shape determines: the descriptors, the sizes of the
// weight, work and reserve spaces, and the device copy of the sequence
// lengths (every sequence of the batch has all T steps).
struct Plan {
  explicit Plan(int32_t index) : device(index) {}
  ~Plan() {
    if (rnn) cudnnDestroyRNNDescriptor(rnn);
    if (dropout) cudnnDestroyDropoutDescriptor(dropout);
    if (xd) cudnnDestroyRNNDataDescriptor(xd);
    if (yd) cudnnDestroyRNNDataDescriptor(yd);
    for (cudnnTensorDescriptor_t d : {hd, cd, md, bd})
      if (d) cudnnDestroyTensorDescriptor(d);
    if (dev_seq) cuda_cache_free(dev_seq, device);
  }
  Plan(const Plan&) = delete;
  Plan& operator=(const Plan&) = delete;

  int32_t device;
  cudnnRNNDescriptor_t rnn = nullptr;
  cudnnDropoutDescriptor_t dropout = nullptr;
  cudnnRNNDataDescriptor_t xd = nullptr, yd = nullptr;
  cudnnTensorDescriptor_t hd = nullptr, cd = nullptr;
  cudnnTensorDescriptor_t md = nullptr, bd = nullptr;  // cudnnGetRNNWeightParams' answers
  size_t weight_bytes = 0, work_train = 0, reserve_train = 0, work_infer = 0;
  int32_t* dev_seq = nullptr;
};

// device, cell, bidirectional, bias, input, hidden, proj, dtype, math type, T, B.
using PlanKey = std::array<int64_t, 11>;

// Plans kept per device; beyond this many shapes the cache starts over.
constexpr size_t kMaxPlans = 64;

void set_state_desc(cudnnTensorDescriptor_t d, cudnnDataType_t type, int64_t dirs, int64_t batch,
                    int64_t size) {
  const int dims[3] = {as_int(dirs, "directions"), as_int(batch, "batch"), as_int(size, "state size")};
  const int strides[3] = {as_int(batch * size, "state elements"), dims[2], 1};
  TC_RNN_DNN_CHECK(cudnnSetTensorNdDescriptor(d, type, 3, dims, strides));
}

std::unique_ptr<Plan> make_plan(cudnnHandle_t h, int32_t index, const LayerConfig& c, DType dt,
                                cudnnMathType_t math, int64_t steps, int64_t batch) {
  auto p = std::make_unique<Plan>(index);
  const cudnnDataType_t type = data_type(dt);
  TC_RNN_DNN_CHECK(cudnnCreateRNNDescriptor(&p->rnn));
  TC_RNN_DNN_CHECK(cudnnCreateDropoutDescriptor(&p->dropout));
  TC_RNN_DNN_CHECK(cudnnCreateRNNDataDescriptor(&p->xd));
  TC_RNN_DNN_CHECK(cudnnCreateRNNDataDescriptor(&p->yd));
  for (cudnnTensorDescriptor_t* d : {&p->hd, &p->cd, &p->md, &p->bd})
    TC_RNN_DNN_CHECK(cudnnCreateTensorDescriptor(d));
  // One layer per call: dropout between layers is the op's, so cuDNN's is
  // off (no RNG state is needed for a rate of 0).
  TC_RNN_DNN_CHECK(cudnnSetDropoutDescriptor(p->dropout, h, 0.0f, nullptr, 0, 0));
  const int hidden = as_int(c.hidden, "hidden_size");
  TC_RNN_DNN_CHECK(cudnnSetRNNDescriptor_v8(
      p->rnn, CUDNN_RNN_ALGO_STANDARD, cell_mode(c.cell),
      c.has_bias ? CUDNN_RNN_DOUBLE_BIAS : CUDNN_RNN_NO_BIAS,
      c.bidirectional ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, type, type, math,
      as_int(c.input, "input_size"), hidden, c.proj ? as_int(c.proj, "proj_size") : hidden, 1, p->dropout,
      CUDNN_RNN_PADDED_IO_DISABLED));
  const int t = as_int(steps, "sequence length"), b = as_int(batch, "batch");
  const std::vector<int> lengths(size_t(b), t);
  TC_RNN_DNN_CHECK(cudnnSetRNNDataDescriptor(p->xd, type, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, t, b,
                                             as_int(c.input, "input_size"), lengths.data(), nullptr));
  TC_RNN_DNN_CHECK(cudnnSetRNNDataDescriptor(p->yd, type, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED, t, b,
                                             as_int(c.dirs() * c.out_size(), "output size"), lengths.data(),
                                             nullptr));
  set_state_desc(p->hd, type, c.dirs(), batch, c.out_size());
  set_state_desc(p->cd, type, c.dirs(), batch, c.hidden);
  TC_RNN_DNN_CHECK(cudnnGetRNNWeightSpaceSize(h, p->rnn, &p->weight_bytes));
  TC_RNN_DNN_CHECK(cudnnGetRNNTempSpaceSizes(h, p->rnn, CUDNN_FWD_MODE_TRAINING, p->xd, &p->work_train,
                                             &p->reserve_train));
  size_t no_reserve = 0;
  TC_RNN_DNN_CHECK(
      cudnnGetRNNTempSpaceSizes(h, p->rnn, CUDNN_FWD_MODE_INFERENCE, p->xd, &p->work_infer, &no_reserve));
  // The kernels read the lengths asynchronously: a device copy, made once.
  p->dev_seq = static_cast<int32_t*>(cuda_cache_alloc(int64_t(lengths.size() * sizeof(int32_t)), index));
  TC_CUDA_CHECK(
      cudaMemcpy(p->dev_seq, lengths.data(), lengths.size() * sizeof(int32_t), cudaMemcpyHostToDevice));
  return p;
}

struct DeviceRnn {
  std::mutex mu;  // a handle and its plans are used by one thread at a time
  cudnnHandle_t handle = nullptr;
  std::map<PlanKey, std::unique_ptr<Plan>> plans;
};
struct Registry {
  std::mutex mu;
  std::vector<DeviceRnn*> devices;  // by index; never shrinks until shutdown
};
Registry& registry() {
  static Registry* r = new Registry();  // outlives static destruction
  return *r;
}

// The device's handle and plan cache, locked for the caller's scope.
class DeviceLock {
 public:
  explicit DeviceLock(int32_t index) : index_(index) {
    TC_CUDA_CHECK(cudaSetDevice(index));
    Registry& r = registry();
    {
      std::lock_guard<std::mutex> g(r.mu);
      if (size_t(index) >= r.devices.size()) r.devices.resize(size_t(index) + 1, nullptr);
      if (!r.devices[size_t(index)]) r.devices[size_t(index)] = new DeviceRnn();
      d_ = r.devices[size_t(index)];
    }
    lock_ = std::unique_lock<std::mutex>(d_->mu);
    if (!d_->handle) {
      TC_RNN_DNN_CHECK(cudnnCreate(&d_->handle));
      TC_RNN_DNN_CHECK(cudnnSetStream(d_->handle, nullptr));
    }
  }
  cudnnHandle_t handle() const { return d_->handle; }

  Plan& plan(const LayerConfig& c, DType dt, cudnnMathType_t math, int64_t steps, int64_t batch) {
    const PlanKey key = {index_, int64_t(c.cell), c.bidirectional, c.has_bias, c.input, c.hidden,
                         c.proj, int64_t(dt),     int64_t(math),   steps,      batch};
    auto it = d_->plans.find(key);
    if (it != d_->plans.end()) return *it->second;
    if (d_->plans.size() >= kMaxPlans) d_->plans.clear();
    std::unique_ptr<Plan> p = make_plan(d_->handle, index_, c, dt, math, steps, batch);
    return *d_->plans.emplace(key, std::move(p)).first->second;
  }

 private:
  int32_t index_;
  DeviceRnn* d_ = nullptr;
  std::unique_lock<std::mutex> lock_;
};

char* bytes(const Tensor& t) { return static_cast<char*>(t->data()); }

// Copies PyTorch's tensors `ws` into the packed weight space (into_space), or
// the packed space out into them (the gradients), direction by direction and
// linear layer by linear layer.
void copy_weights(cudnnHandle_t h, const Plan& p, const LayerConfig& c, void* space,
                  const std::vector<Tensor>& ws, size_t esize, bool into_space) {
  const int64_t per_dir = c.weights_per_dir();
  TC_CHECK(int64_t(ws.size()) == c.dirs() * per_dir, TC_ERR_INTERNAL, "rnn on CUDA: ", ws.size(),
           " weight tensors for ", c.dirs(), " directions of ", per_dir);
  auto copy = [&](void* packed, cudnnTensorDescriptor_t desc, const WeightSlice& s, int64_t dir, int32_t id,
                  const char* what) {
    if (!packed && s.tensor < 0) return;
    TC_CHECK(packed && s.tensor >= 0, TC_ERR_INTERNAL, "rnn on CUDA: cuDNN's ", what, " of linear layer ", id,
             packed ? " has no PyTorch counterpart" : " is missing from its weight space");
    cudnnDataType_t type;
    int nd = 0, dims[3] = {0, 0, 0}, strides[3] = {0, 0, 0};
    TC_RNN_DNN_CHECK(cudnnGetTensorNdDescriptor(desc, 3, &type, &nd, dims, strides));
    int64_t count = 1;
    for (int i = 0; i < nd && i < 3; ++i) count *= dims[i];
    TC_CHECK(count == s.count, TC_ERR_INTERNAL, "rnn on CUDA: cuDNN's ", what, " of linear layer ", id,
             " has ", count, " elements where PyTorch's layout has ", s.count);
    char* torch = bytes(ws[size_t(dir * per_dir + s.tensor)]) + s.offset * int64_t(esize);
    const size_t n = size_t(s.count) * esize;
    if (into_space)
      TC_CUDA_CHECK(cudaMemcpyAsync(packed, torch, n, cudaMemcpyDeviceToDevice, nullptr));
    else
      TC_CUDA_CHECK(cudaMemcpyAsync(torch, packed, n, cudaMemcpyDeviceToDevice, nullptr));
  };
  for (int64_t dir = 0; dir < c.dirs(); ++dir)
    for (int32_t id = 0; id < rnn_fused::lin_layer_count(c); ++id) {
      void* m = nullptr;
      void* b = nullptr;
      TC_RNN_DNN_CHECK(
          cudnnGetRNNWeightParams(h, p.rnn, int32_t(dir), p.weight_bytes, space, id, p.md, &m, p.bd, &b));
      copy(m, p.md, rnn_fused::lin_layer_matrix(c, id), dir, id, "matrix");
      copy(b, p.bd, rnn_fused::lin_layer_bias(c, id), dir, id, "bias");
    }
}

class CudnnRnnKernels final : public rnn_fused::LayerKernels {
 public:
  bool supports(const LayerConfig& c, DType dt) const override {
    // cuDNN's projSize equal to hiddenSize means no projection; PyTorch's
    // proj_size is below hidden_size, so an equal one stays composed.
    return (dt == DType::f32 || dt == DType::f64) && c.input > 0 && c.hidden > 0 &&
           (c.proj == 0 || (c.cell == Cell::lstm && c.proj < c.hidden));
  }

  void forward(LayerForwardArgs& a) const override {
    const LayerConfig& c = a.cfg;
    const DType dt = a.x->dtype;
    TC_CHECK(supports(c, dt), TC_ERR_NOT_IMPLEMENTED, "rnn on CUDA through cuDNN: ", dtype_name(dt),
             " or this layer's configuration is not mapped");
    const int32_t index = device_index(a.x->device);
    const int64_t steps = a.x->shape[0], batch = a.x->shape[1];
    const bool lstm = c.cell == Cell::lstm;
    DeviceLock lock(index);
    const cudnnHandle_t h = lock.handle();
    const cudnnMathType_t math = math_type(dt);
    Plan& p = lock.plan(c, dt, math, steps, batch);
    a.variant = int32_t(math);

    a.packed = tc::empty({int64_t(p.weight_bytes)}, DType::u8, a.x->device);
    // Zeros first: whatever cuDNN's space holds beyond PyTorch's tensors
    // (alignment gaps) is defined.
    TC_CUDA_CHECK(cudaMemsetAsync(a.packed->data(), 0, p.weight_bytes, nullptr));
    copy_weights(h, p, c, a.packed->data(), a.weights, dtype_size(dt), true);

    const size_t work_bytes = a.train ? p.work_train : p.work_infer;
    const size_t reserve_bytes = a.train ? p.reserve_train : 0;
    Scratch work(work_bytes, index);
    if (a.train) a.reserve = tc::empty({int64_t(std::max<size_t>(reserve_bytes, 1))}, DType::u8, a.x->device);
    TC_RNN_DNN_CHECK(cudnnRNNForward(
        h, p.rnn, a.train ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE, p.dev_seq, p.xd, a.x->data(),
        p.yd, a.y->data(), p.hd, a.hx->data(), a.hy->data(), p.cd, lstm ? a.cx->data() : nullptr,
        lstm ? a.cy->data() : nullptr, p.weight_bytes, a.packed->data(), work_bytes, work.get(),
        reserve_bytes, a.train ? a.reserve->data() : nullptr));
  }

  void backward(LayerBackwardArgs& b) const override {
    const LayerConfig& c = b.cfg;
    const DType dt = b.x->dtype;
    TC_CHECK(b.reserve && b.packed, TC_ERR_INTERNAL, "rnn on CUDA: backward without the forward's reserve");
    const int32_t index = device_index(b.x->device);
    const int64_t steps = b.x->shape[0], batch = b.x->shape[1];
    const bool lstm = c.cell == Cell::lstm;
    DeviceLock lock(index);
    const cudnnHandle_t h = lock.handle();
    Plan& p = lock.plan(c, dt, cudnnMathType_t(b.variant), steps, batch);
    TC_CHECK(size_t(b.packed->numel()) == p.weight_bytes && size_t(b.reserve->numel()) >= p.reserve_train,
             TC_ERR_INTERNAL, "rnn on CUDA: the forward's weight or reserve space does not fit its shape");

    // cudnnRNNBackwardData_v8 writes into the reserve space: a copy keeps
    // the forward's for a second backward (retain_graph).
    const Tensor reserve = tc::empty(b.reserve->shape, DType::u8, b.x->device);
    TC_CUDA_CHECK(cudaMemcpyAsync(reserve->data(), b.reserve->data(), size_t(b.reserve->numel()),
                                  cudaMemcpyDeviceToDevice, nullptr));
    const Tensor dy = b.dy ? b.dy : tc::zeros(b.y->shape, dt, b.x->device);
    Scratch work(p.work_train, index);
    TC_RNN_DNN_CHECK(cudnnRNNBackwardData_v8(
        h, p.rnn, p.dev_seq, p.yd, b.y->data(), dy->data(), p.xd, b.dx->data(), p.hd, b.hx->data(),
        b.dhy ? b.dhy->data() : nullptr, b.dhx->data(), p.cd, lstm ? b.cx->data() : nullptr,
        lstm && b.dcy ? b.dcy->data() : nullptr, lstm ? b.dcx->data() : nullptr, p.weight_bytes,
        b.packed->data(), p.work_train, work.get(), p.reserve_train, reserve->data()));

    // The weight gradient accumulates (CUDNN_WGRAD_MODE_ADD) into zeros.
    const Tensor dw = tc::empty({int64_t(p.weight_bytes)}, DType::u8, b.x->device);
    TC_CUDA_CHECK(cudaMemsetAsync(dw->data(), 0, p.weight_bytes, nullptr));
    TC_RNN_DNN_CHECK(cudnnRNNBackwardWeights_v8(
        h, p.rnn, CUDNN_WGRAD_MODE_ADD, p.dev_seq, p.xd, b.x->data(), p.hd, b.hx->data(), p.yd, b.y->data(),
        p.weight_bytes, dw->data(), p.work_train, work.get(), p.reserve_train, reserve->data()));
    copy_weights(h, p, c, dw->data(), b.d_weights, dtype_size(dt), false);
  }
};

}  // namespace

const rnn_fused::LayerKernels& rnn_layer_table() {
  static const CudnnRnnKernels* t = new CudnnRnnKernels();  // outlives static destruction
  return *t;
}

void rnn_shutdown() noexcept {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  for (size_t i = 0; i < r.devices.size(); ++i) {
    DeviceRnn*& d = r.devices[i];
    if (!d) continue;
    cudaSetDevice(int(i));
    d->plans.clear();  // their sequence lengths go back to the allocator's cache
    if (d->handle) cudnnDestroy(d->handle);
    delete d;
    d = nullptr;
  }
  r.devices.clear();
}

}  // namespace tc::cuda
#endif  // TC_HAVE_CUDNN
