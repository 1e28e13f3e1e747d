#include "core/tensor.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <mutex>
#include <ostream>

#include "core/alloc.h"
#include "core/device_hooks.h"
#include "core/init.h"
#include "core/object_pool.h"
#include "core/per_thread.h"

namespace tc {

std::string device_name(Device d) {
  if (device_type(d) == TC_DEVICE_CPU) return "cpu";
  if (device_type(d) == TC_DEVICE_CUDA) return str("cuda:", device_index(d));
  return str("unknown(", d, ")");
}

Device check_device(int32_t code, const char* arg) {
  const int32_t type = code >> 16;
  if (type == TC_DEVICE_CPU) {
    TC_CHECK((code & 0xFFFF) == 0, TC_ERR_INVALID_ARGUMENT, arg, ": cpu has only index 0, got ",
             code & 0xFFFF);
    return code;
  }
  if (type == TC_DEVICE_CUDA) {
    require_cuda(code & 0xFFFF);  // throws NOT_COMPILED, UNAVAILABLE or INDEX with the reason
    return code;
  }
  fail(TC_ERR_INVALID_ARGUMENT, str(arg, ": unknown device code ", code,
                                    " (expected TC_DEVICE(TC_DEVICE_CPU or TC_DEVICE_CUDA, index))"));
}

namespace {
// A tensor without elements never uses its strides, but its strides can
// still be huge (a huge size beside a 0, saturated): kernels multiply them
// by element sizes and counts, so they are capped where that cannot overflow.
void cap_strides_if_empty(const Dims& shape, Dims& strides) {
  if (numel_of(shape) != 0) return;
  constexpr int64_t kCap = int64_t(1) << 40;
  for (int64_t i = 0; i < strides.size(); ++i) strides[i] = std::min(strides[i], kCap);
}
}  // namespace

// ---- Storage ----
Storage::~Storage() {
  if (deleter) deleter(data);
}

std::shared_ptr<Storage> allocate_storage(int64_t nbytes, Device device) {
  if (device_type(device) == TC_DEVICE_CUDA) {
    const DeviceHooks& cuda = require_cuda(device_index(device));
    auto s = std::allocate_shared<Storage>(PoolAllocator<Storage>());
    const int32_t index = device_index(device);
    s->data = cuda.alloc(nbytes, index);
    s->deleter = [free = cuda.free, index](void* p) { free(p, index); };
    s->nbytes = nbytes;
    s->device = device;
    return s;
  }
  TC_CHECK(device_type(device) == TC_DEVICE_CPU, TC_ERR_INVALID_ARGUMENT, "allocation on unknown device ",
           device_name(device));
  auto s = std::allocate_shared<Storage>(PoolAllocator<Storage>());
  if (nbytes <= Storage::kInlineBytes) {
    s->data = s->inline_bytes;
  } else {
    s->data = cpu_alloc(nbytes);
    s->deleter = [nbytes](void* p) { cpu_free(p, nbytes); };
  }
  s->nbytes = nbytes;
  s->device = device;
  return s;
}

// ---- TensorImpl ----
namespace {
// The live_tensors count without a lock-prefixed instruction per tensor made
// and destroyed (a global atomic counter cost two per 1-element op, each a
// full barrier): every thread counts in its own slot (made minus destroyed,
// written only by that thread), and a query sums the slots under the
// registry's lock, plus what exited threads left behind. Exact whenever no
// tensor is being made or destroyed meanwhile, as the global counter was.
// One per thread that made a tensor, registered while the thread lives.
struct LiveSlot {
  std::atomic<int64_t> n{0};
  LiveSlot();
  ~LiveSlot();
  LiveSlot(const LiveSlot&) = delete;
  LiveSlot& operator=(const LiveSlot&) = delete;
};
struct LiveRegistry {
  std::mutex mu;
  std::vector<LiveSlot*> slots;  // the live threads'
  int64_t retired = 0;           // exited threads' counts
};
LiveRegistry& live_registry() {
  static auto* r = new LiveRegistry();  // never destroyed: tensors may outlive statics
  return *r;
}
LiveSlot::LiveSlot() {
  LiveRegistry& r = live_registry();
  std::lock_guard<std::mutex> g(r.mu);
  r.slots.push_back(this);
}
LiveSlot::~LiveSlot() {
  LiveRegistry& r = live_registry();
  std::lock_guard<std::mutex> g(r.mu);
  r.retired += n.load(std::memory_order_relaxed);
  r.slots.erase(std::find(r.slots.begin(), r.slots.end(), this));
}
// Tensors made or destroyed by a thread without a slot: after its slot is
// gone (while its other thread-locals are destroyed), or destroyed by a
// thread that never made one.
std::atomic<int64_t> g_live_orphans{0};
// register_thread: whether a thread without a slot makes one (not from a
// destructor, where the registration's allocation must not throw).
void count_live(int64_t delta, bool register_thread) {
  LiveSlot* s = PerThread<LiveSlot>::get(register_thread);  // registering throws only bad_alloc
  if (!s) {
    g_live_orphans.fetch_add(delta, std::memory_order_relaxed);
    return;
  }
  // Only this thread writes its slot: a plain increment, published atomically.
  s->n.store(s->n.load(std::memory_order_relaxed) + delta, std::memory_order_relaxed);
}
}  // namespace
TensorImpl::TensorImpl() { count_live(1, true); }
TensorImpl::~TensorImpl() { count_live(-1, false); }
int64_t live_tensor_count() noexcept {
  LiveRegistry& r = live_registry();
  std::lock_guard<std::mutex> g(r.mu);
  int64_t n = r.retired + g_live_orphans.load(std::memory_order_relaxed);
  for (const LiveSlot* s : r.slots) n += s->n.load(std::memory_order_relaxed);
  return n;
}

void check_writable(const Tensor& t, const char* op) {
  TC_CHECK(!(t->storage && t->storage->read_only.load(std::memory_order_relaxed)), TC_ERR_INVALID_ARGUMENT,
           op, ": the tensor (shape ", t->shape, ", ", dtype_name(t->dtype),
           ") is read-only (its memory was lent read-only); write into a clone() instead");
  if (t->numel() <= 1) return;
  for (int64_t i = 0; i < t->ndim(); ++i) {
    TC_CHECK(!(t->strides[i] == 0 && t->shape[i] > 1), TC_ERR_INVALID_ARGUMENT, op,
             ": unsupported operation: more than one element of the written-to tensor (shape ", t->shape,
             ", strides ", t->strides, ") refers to a single memory location; clone() it first");
  }
}

std::pair<uintptr_t, uintptr_t> byte_span(const Tensor& t) {
  if (t->numel() == 0 || !t->data()) return {0, 0};
  int64_t lo = 0, hi = 0;  // element offsets of the lowest and highest element
  for (int64_t d = 0; d < t->ndim(); ++d) {
    const int64_t reach = (t->shape[d] - 1) * t->strides[d];
    (reach < 0 ? lo : hi) += reach;
  }
  const uintptr_t base = reinterpret_cast<uintptr_t>(t->data());
  const int64_t item = t->itemsize();
  return {base + uintptr_t(lo * item), base + uintptr_t((hi + 1) * item)};
}

void set_data(const Tensor& t, const Tensor& src) {
  if (t == src) return;
  TC_CHECK(!t->requires_grad || is_differentiable(src->dtype), TC_ERR_DTYPE,
           "data set to a tensor that requires gradients must be floating point (t requires grad; data is ",
           dtype_name(src->dtype), ")");
  // Another storage over t's own bytes (a DLPack or from_blob wrapper of
  // t's memory) would keep t alive from the deleter of the storage t is
  // about to hold: a cycle. A view sharing t's storage object has no deleter
  // of its own and is fine.
  if (src->storage != t->storage) {
    const auto ts = byte_span(t), ss = byte_span(src);
    TC_CHECK(!(ts.first < ss.second && ss.first < ts.second), TC_ERR_INVALID_ARGUMENT,
             "data shares t's memory through another storage (t's memory through DLPack or from_blob); "
             "set a copy: data.clone()");
  }
  const bool same_meta = src->shape == t->shape && src->dtype == t->dtype && src->device == t->device;
  // Nothing below throws.
  t->storage = src->storage;
  t->offset = src->offset;
  t->shape = src->shape;
  t->strides = src->strides;
  t->dtype = src->dtype;
  t->device = src->device;
  ++t->data_generation;
  if (!same_meta) {
    const Tensor g = t->grad();
    if (g && (g->shape != t->shape || g->dtype != t->dtype || g->device != t->device)) t->set_grad(nullptr);
    // A new graph gets a new AccumulateGrad node (PyTorch resets it too when
    // the type or device changes); one in a live graph checks what reaches it.
    t->with_grad_accumulator([](std::weak_ptr<autograd::Node>& acc) { acc.reset(); });
  }
}

Tensor empty(const Dims& shape, DType dtype, Device device) {
  const int64_t n = checked_numel(shape, "empty");
  int64_t nbytes;
  TC_CHECK(!__builtin_mul_overflow(n, dtype_size(dtype), &nbytes), TC_ERR_OUT_OF_MEMORY, "a tensor of shape ",
           shape, " and dtype ", dtype_name(dtype), " needs more than 2^63 bytes");
  auto t = std::allocate_shared<TensorImpl>(PoolAllocator<TensorImpl>());
  t->storage = allocate_storage(nbytes, device);
  t->shape = shape;
  t->strides = contiguous_strides(shape);
  cap_strides_if_empty(shape, t->strides);
  t->dtype = dtype;
  t->device = device;
  return t;
}

Tensor make_view(const Tensor& base, const Dims& shape, const Dims& strides, int64_t offset) {
  // Every view passes here: no tensor may have more elements than int64
  // counts, whatever arithmetic produced its shape.
  checked_numel(shape, "view");
  auto t = std::allocate_shared<TensorImpl>(PoolAllocator<TensorImpl>());
  t->storage = base->storage;
  t->shape = shape;
  t->strides = strides;
  cap_strides_if_empty(shape, t->strides);
  t->offset = offset;
  t->dtype = base->dtype;
  t->device = base->device;
  return t;
}

Tensor from_blob(void* data, const Dims& shape, const Dims& strides, DType dtype, Device device,
                 std::function<void(void*)> deleter) {
  if (reinterpret_cast<uintptr_t>(data) % uintptr_t(dtype_size(dtype)) != 0) {
    if (deleter) deleter(data);  // exactly once, also on failure
    fail(TC_ERR_INVALID_ARGUMENT, str("from_blob: data ", data, " is not aligned to the ", dtype_size(dtype),
                                      "-byte elements of ", dtype_name(dtype)));
  }
  std::shared_ptr<Storage> s;
  try {
    s = std::allocate_shared<Storage>(PoolAllocator<Storage>());
  } catch (...) {
    if (deleter) deleter(data);  // the caller was promised exactly one call
    throw;
  }
  s->deleter = std::move(deleter);  // from here on the storage owns the buffer
  s->data = data;
  s->device = device;
  // The extent the strides reach, so nbytes describes the buffer honestly.
  int64_t extent = 0;
  bool any_zero = false, overflow = false;
  for (int64_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == 0) any_zero = true;
    int64_t reach = 0;
    overflow |= __builtin_mul_overflow(shape[i] > 0 ? shape[i] - 1 : 0, strides[i], &reach);
    overflow |= __builtin_add_overflow(extent, reach, &extent);
  }
  int64_t elements = 0, nbytes = 0;
  overflow |= __builtin_add_overflow(extent, 1, &elements);
  overflow |= __builtin_mul_overflow(elements, dtype_size(dtype), &nbytes);
  // Throwing here destroys s, which calls the deleter: still exactly once.
  TC_CHECK(any_zero || !overflow, TC_ERR_INVALID_ARGUMENT, "from_blob: shape ", shape, " with strides ",
           strides, " reaches beyond 2^63 bytes");
  s->nbytes = any_zero ? 0 : nbytes;
  auto t = std::allocate_shared<TensorImpl>(PoolAllocator<TensorImpl>());
  t->storage = std::move(s);
  t->shape = shape;
  t->strides = strides;
  cap_strides_if_empty(shape, t->strides);
  t->dtype = dtype;
  t->device = device;
  return t;
}

Tensor empty_like(const Tensor& t) { return empty(t->shape, t->dtype, t->device); }
Tensor zeros_like(const Tensor& t) { return zeros(t->shape, t->dtype, t->device); }

}  // namespace tc
