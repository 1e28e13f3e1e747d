// Tensors and storage, after PyTorch's c10 TensorImpl/StorageImpl: a Storage
// owns (or borrows) a buffer; a TensorImpl is a strided view over a Storage
// plus its autograd metadata. Tensor is the shared, refcounted pointer the
// whole core passes around; a tc_tensor handle owns one Tensor.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/dtype.h"

namespace tc {

namespace autograd {
struct Node;
struct HookList;
}  // namespace autograd

// Sizes or strides: at most TC_MAX_DIMS entries, stored inline (no heap).
class Dims {
 public:
  Dims() = default;
  // Copies only the used entries: Dims are copied on every op's hot path.
  Dims(const Dims& o) : n_(o.n_) {
    for (int64_t i = 0; i < n_; ++i) d_[i] = o.d_[i];
  }
  Dims& operator=(const Dims& o) {
    n_ = o.n_;
    for (int64_t i = 0; i < n_; ++i) d_[i] = o.d_[i];
    return *this;
  }
  Dims(std::initializer_list<int64_t> v) { assign(v.begin(), int64_t(v.size())); }
  Dims(const int64_t* data, int64_t n) { assign(data, n); }
  explicit Dims(const std::vector<int64_t>& v) { assign(v.data(), int64_t(v.size())); }
  static Dims filled(int64_t n, int64_t value);

  int64_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  int64_t operator[](int64_t i) const { return d_[i]; }
  int64_t& operator[](int64_t i) { return d_[i]; }
  const int64_t* data() const { return d_; }
  int64_t* data() { return d_; }
  const int64_t* begin() const { return d_; }
  const int64_t* end() const { return d_ + n_; }
  int64_t back() const { return d_[n_ - 1]; }
  void push_back(int64_t v);
  void insert(int64_t pos, int64_t v);
  void erase(int64_t pos);
  void resize(int64_t n, int64_t value = 0);
  std::vector<int64_t> vec() const { return std::vector<int64_t>(d_, d_ + n_); }
  bool operator==(const Dims& o) const;
  bool operator!=(const Dims& o) const { return !(*this == o); }

 private:
  void assign(const int64_t* data, int64_t n);
  int64_t d_[TC_MAX_DIMS];  // entries past n_ are never read: left uninitialized
  int64_t n_ = 0;
};
std::ostream& operator<<(std::ostream& os, const Dims& d);

// Number of elements, throwing TC_ERR_INVALID_ARGUMENT for negative sizes and
// TC_ERR_OUT_OF_MEMORY when the product overflows int64.
int64_t checked_numel(const Dims& shape, const char* what);
inline int64_t numel_of(const Dims& shape) {
  // A 0 anywhere means no elements, whatever the other sizes (which may then
  // be huge: their product is never formed).
  for (int64_t s : shape)
    if (s == 0) return 0;
  // Saturates at INT64_MAX: a shape derived from an element-less tensor's huge
  // sizes (a broadcast batch, a keepdim shape) has no representable count, and
  // whatever then allocates it reports TC_ERR_OUT_OF_MEMORY.
  int64_t n = 1;
  for (int64_t s : shape)
    if (__builtin_mul_overflow(n, s, &n)) return INT64_MAX;
  return n;
}
Dims contiguous_strides(const Dims& shape);
// Wraps a possibly negative dim into [0, ndim), else TC_ERR_INDEX.
int64_t wrap_dim(int64_t dim, int64_t ndim, const char* what);

// The device code of tc.h (type << 16 | index).
using Device = int32_t;
constexpr Device kCPU = TC_CPU;
inline int32_t device_type(Device d) { return d >> 16; }
inline int32_t device_index(Device d) { return d & 0xFFFF; }
std::string device_name(Device d);
// Checks a device code from the ABI: known type, and compiled in.
Device check_device(int32_t code, const char* arg);

// A buffer. Owned buffers come from the device's allocator; borrowed ones
// (tc_from_blob, DLPack) carry a deleter called once on destruction.
struct Storage {
  void* data = nullptr;
  int64_t nbytes = 0;
  Device device = kCPU;
  std::function<void(void*)> deleter;  // frees data
  // Bumped by every in-place write to any view of this storage.
  std::atomic<int64_t> version{0};
  // Set once, never cleared (tc_tensor_set_readonly, a read-only DLPack
  // import): writes into any view of this storage are refused.
  std::atomic<bool> read_only{false};
  // Small tensors (scalars, losses, 1-element ops) keep their bytes here:
  // one allocation fewer on the hot path of tiny ops.
  static constexpr int64_t kInlineBytes = 64;
  alignas(16) unsigned char inline_bytes[kInlineBytes];  // 16, not 64: over-aligned
  // objects go through the slow aligned operator new

  Storage() = default;
  Storage(const Storage&) = delete;
  Storage& operator=(const Storage&) = delete;
  ~Storage();
};

// Allocates nbytes on device. Throws TC_ERR_OUT_OF_MEMORY.
std::shared_ptr<Storage> allocate_storage(int64_t nbytes, Device device);

struct TensorImpl;
using Tensor = std::shared_ptr<TensorImpl>;

struct TensorImpl {
  std::shared_ptr<Storage> storage;
  int64_t offset = 0;  // in elements
  Dims shape;
  Dims strides;  // in elements
  DType dtype = DType::f32;
  Device device = kCPU;

  // Autograd metadata (src/autograd/). requires_grad and retains_grad are
  // atomic because a user may set them on a tensor other threads compute
  // with; grad_fn and output_nr are set once, before the tensor is shared.
  std::atomic<bool> requires_grad{false};  // for leaves: set by the user; else: recorded
  std::atomic<bool> retains_grad{false};
  std::shared_ptr<autograd::Node> grad_fn;  // null for leaves
  uint32_t output_nr = 0;                   // which output of grad_fn
  // Bumped when t's data is replaced under it (set_data, PyTorch's `t.data =
  // x`): a SavedTensor remembers it, so a graph recorded before refuses the
  // tensor whatever versions the old and new storages have.
  uint32_t data_generation = 0;
  // A leaf's gradient and post-accumulate-grad hooks (autograd/hooks.h),
  // made on first registration under the hooks' lock; null when none.
  std::shared_ptr<autograd::HookList> hooks;

  // .grad, behind a lock: backward may accumulate into it on one thread while
  // others read, clear or step on it (tc.h's contract: libtc's bookkeeping is
  // always safe; only the values in the grad's data may race).
  Tensor grad() const {
    std::lock_guard<std::mutex> lock(grad_mu_);
    return grad_;
  }
  void set_grad(Tensor g) {
    {
      std::lock_guard<std::mutex> lock(grad_mu_);
      grad_.swap(g);
    }
    // The old grad (now in g) dies here, outside the lock.
  }
  // Runs f(Tensor& grad) with the grad locked: accumulation reads and replaces it.
  template <typename F>
  void update_grad(F&& f) {
    std::lock_guard<std::mutex> lock(grad_mu_);
    f(grad_);
  }

  // Runs f(std::weak_ptr<autograd::Node>& accumulator) under the grad lock:
  // a leaf's AccumulateGrad node, kept weakly so that every graph recording
  // the leaf while one lives shares it (PyTorch's grad_accumulator_), with
  // no cycle (the node holds the leaf) and no allocation per forward.
  template <typename F>
  auto with_grad_accumulator(F&& f) {
    std::lock_guard<std::mutex> lock(grad_mu_);
    return f(grad_accumulator_);
  }

  TensorImpl();
  ~TensorImpl();
  TensorImpl(const TensorImpl&) = delete;
  TensorImpl& operator=(const TensorImpl&) = delete;

  int64_t ndim() const { return shape.size(); }
  int64_t numel() const { return numel_of(shape); }
  int64_t itemsize() const { return dtype_size(dtype); }
  bool is_contiguous() const;
  bool is_leaf() const { return grad_fn == nullptr; }
  // Address of element [0, ..., 0].
  void* data() const { return storage ? static_cast<char*>(storage->data) + offset * itemsize() : nullptr; }
  template <typename T>
  T* data_as() const {
    return static_cast<T*>(data());
  }
  int64_t version() const { return storage ? storage->version.load() : 0; }
  void bump_version() const {
    if (storage) storage->version.fetch_add(1);
  }

 private:
  mutable std::mutex grad_mu_;
  Tensor grad_;
  std::weak_ptr<autograd::Node> grad_accumulator_;
};

// Throws unless op may write t's elements: TC_ERR_INVALID_ARGUMENT when t's
// storage is read-only (tc_tensor_set_readonly, a read-only DLPack import),
// or when two of t's elements share one memory location (a stride-0 dim of
// size > 1: an expanded view), which PyTorch refuses for in-place writes too.
void check_writable(const Tensor& t, const char* op);

// The bytes [first, last) t's elements span (empty, {0, 0}, for no elements).
std::pair<uintptr_t, uintptr_t> byte_span(const Tensor& t);

// t takes src's storage, offset, shape, strides, dtype and device (tc.h:
// tc_tensor_set_data); checks first, so a refused call changes nothing.
void set_data(const Tensor& t, const Tensor& src);

// Tensors alive now (the live_tensors flag).
int64_t live_tensor_count() noexcept;

// ---- creation (src/core/tensor.cpp, src/core/copy.cpp) ----
Tensor empty(const Dims& shape, DType dtype, Device device = kCPU);
Tensor full(const Dims& shape, double value, DType dtype, Device device = kCPU);
Tensor zeros(const Dims& shape, DType dtype, Device device = kCPU);
Tensor ones(const Dims& shape, DType dtype, Device device = kCPU);
Tensor empty_like(const Tensor& t);
Tensor zeros_like(const Tensor& t);
Tensor scalar_tensor(double value, DType dtype, Device device = kCPU);
Tensor arange(double start, double end, double step, DType dtype, Device device = kCPU);
// A view over base's storage with its own shape/strides/offset (no autograd).
Tensor make_view(const Tensor& base, const Dims& shape, const Dims& strides, int64_t offset);
// Complex tensors seen as real ones (no autograd; src/core/copy.cpp): the
// pairs view has a trailing dim of 2 (real, imaginary; PyTorch's
// view_as_real), the part view (part 0: real, 1: imaginary) t's shape; both
// of the part's dtype (float32 for complex64), over t's storage.
Tensor complex_pairs_view(const Tensor& t);
Tensor complex_part_view(const Tensor& t, int part);
// A tensor over a caller's buffer; the deleter runs once when it dies.
Tensor from_blob(void* data, const Dims& shape, const Dims& strides, DType dtype, Device device,
                 std::function<void(void*)> deleter);

// ---- copies and conversions (src/core/copy.cpp) ----
// dst[...] = src[...] elementwise with dtype conversion; shapes must match
// (src may be broadcast to dst with stride 0). Any strides. Bumps no version.
void copy_into(const Tensor& dst, const Tensor& src);
Tensor contiguous(const Tensor& t);            // t itself when contiguous
Tensor contiguous_on_device(const Tensor& t);  // same, for any device
Tensor clone_data(const Tensor& t);            // new contiguous storage
Tensor cast(const Tensor& t, DType dtype);     // t itself when dtype matches
Tensor to_device(const Tensor& t, Device device);
// Reads element i (row-major logical index) as double, any dtype/strides.
double read_element(const Tensor& t, int64_t index);

// Bool tensors hold bytes 0 or 1. Data copied in (tc_from_data) is
// normalized to that; borrowed data (from_blob, DLPack) is the caller's
// promise, and the core's readers (copies, printing) read any byte as
// `byte != 0`, so a broken promise gives a wrong value, never UB.
void normalize_bools(void* data, int64_t nbytes);

// ---- formatting (src/core/format.cpp) ----
std::string to_string(const Tensor& t);

}  // namespace tc
