// tc_to_dlpack / tc_from_dlpack: zero-copy exchange with any DLPack producer
// or consumer (numpy, PyTorch, JAX, CuPy...). Export gives a DLPack 1.0
// DLManagedTensorVersioned that holds one reference to the tensor; import
// wraps the producer's buffer in a borrowed Storage whose deleter calls the
// producer's deleter exactly once, when the last tensor using it dies (libtc's
// own export, unedited, comes back as a view of its storage instead).
#include "abi/dlpack.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>

#include "abi/api.h"

using namespace tc;

namespace {

// One allocation per export: the managed tensor first, then what it points
// to (shape and strides arrays) and the reference that keeps the data alive.
struct Exported {
  DLManagedTensorVersioned managed;
  Tensor tensor;
  int64_t shape[TC_MAX_DIMS];
  int64_t strides[TC_MAX_DIMS];
};
static_assert(offsetof(Exported, managed) == 0, "the deleter casts self to Exported");

void delete_exported(DLManagedTensorVersioned* self) noexcept {
  delete reinterpret_cast<Exported*>(self);  // drops the tensor reference
}

// The data pointer an export of x carries (NULL for no elements).
void* exported_data(const Tensor& x) { return x->numel() > 0 ? x->data() : nullptr; }

DLDataType to_dl_dtype(DType d) {
  DLDataType t;
  t.lanes = 1;
  t.bits = uint8_t(dtype_size(d) * 8);
  switch (d) {
    case DType::f32:
    case DType::f64:
    case DType::f16:
      t.code = kDLFloat;
      break;
    case DType::bf16:
      t.code = kDLBfloat;
      break;
    case DType::i8:
    case DType::i16:
    case DType::i32:
    case DType::i64:
      t.code = kDLInt;
      break;
    case DType::u8:
      t.code = kDLUInt;
      break;
    case DType::b8:
      t.code = kDLBool;
      break;
    case DType::c64:
    case DType::c128:
      t.code = kDLComplex;
      break;
  }
  return t;
}

DType from_dl_dtype(DLDataType t) {
  TC_CHECK(t.lanes == 1, TC_ERR_DTYPE, "DLPack dtype with ", t.lanes, " lanes is not supported (only 1)");
  const int c = t.code, b = t.bits;
  if (c == kDLFloat && b == 32) return DType::f32;
  if (c == kDLFloat && b == 64) return DType::f64;
  if (c == kDLFloat && b == 16) return DType::f16;
  if (c == kDLBfloat && b == 16) return DType::bf16;
  if (c == kDLInt && b == 8) return DType::i8;
  if (c == kDLInt && b == 16) return DType::i16;
  if (c == kDLInt && b == 32) return DType::i32;
  if (c == kDLInt && b == 64) return DType::i64;
  if (c == kDLUInt && b == 8) return DType::u8;
  if (c == kDLBool && b == 8) return DType::b8;
  if (c == kDLComplex && b == 64) return DType::c64;
  if (c == kDLComplex && b == 128) return DType::c128;
  fail(TC_ERR_DTYPE, str("DLPack dtype (code ", c, ", bits ", b, ") has no libtc dtype"));
}

Device from_dl_device(DLDevice d) {
  // Read the enum as the int it is stored as: a producer may put any value
  // there, and loading an out-of-range enum value is undefined behaviour.
  int32_t type = 0;
  static_assert(sizeof(d.device_type) == sizeof(type), "DLDeviceType is an int");
  std::memcpy(&type, &d.device_type, sizeof type);
  if (type == kDLCPU) return kCPU;
  if (type == kDLCUDA) {
    TC_CHECK(d.device_id >= 0 && d.device_id <= 0xFFFF, TC_ERR_INVALID_ARGUMENT, "DLPack device_id ",
             d.device_id, " is out of range");
    return check_device(TC_DEVICE(TC_DEVICE_CUDA, d.device_id), "DLPack device");
  }
  fail(TC_ERR_NOT_IMPLEMENTED,
       str("DLPack device type ", type, " is not supported (only kDLCPU and kDLCUDA)"));
}

// Wraps a DLTensor's buffer; release() runs once when the storage dies, but
// only after arm() (so a failed import leaves the producer's tensor alone).
Tensor wrap(const DLTensor& dl, std::function<void()> release,
            const std::shared_ptr<std::atomic<bool>>& armed) {
  TC_CHECK(dl.ndim >= 0 && dl.ndim <= TC_MAX_DIMS, TC_ERR_INVALID_ARGUMENT, "DLPack tensor has ndim ",
           dl.ndim, " (libtc allows 0..", TC_MAX_DIMS, ")");
  TC_CHECK(dl.ndim == 0 || dl.shape != nullptr, TC_ERR_INVALID_ARGUMENT, "DLPack tensor has a NULL shape");
  const DType dtype = from_dl_dtype(dl.dtype);
  const Device device = from_dl_device(dl.device);
  const Dims shape = shape_arg(dl.shape, dl.ndim, "DLPack shape");
  const int64_t numel = checked_numel(shape, "DLPack shape");
  Dims strides = contiguous_strides(shape);
  if (dl.strides) {
    strides = Dims(dl.strides, dl.ndim);
    for (int64_t i = 0; i < dl.ndim; ++i)
      TC_CHECK(strides[i] >= 0 || shape[i] <= 1, TC_ERR_NOT_IMPLEMENTED, "DLPack strides[", i, "] is ",
               strides[i], "; negative strides are not supported");
    for (int64_t i = 0; i < dl.ndim; ++i)
      if (strides[i] < 0) strides[i] = 0;  // a size-0/1 dim: the stride is never used
  }
  TC_CHECK(dl.data != nullptr || numel == 0, TC_ERR_INVALID_ARGUMENT, "DLPack tensor has NULL data");
  // A byte_offset that runs past the address space is malformed (found by fuzz_parsers).
  TC_CHECK(!dl.data || dl.byte_offset <= UINTPTR_MAX - reinterpret_cast<uintptr_t>(dl.data),
           TC_ERR_INVALID_ARGUMENT, "DLPack tensor has byte_offset ", dl.byte_offset,
           ", past the end of the address space from data");
  void* data = dl.data ? static_cast<char*>(dl.data) + dl.byte_offset : nullptr;
  auto del = [release = std::move(release), armed](void*) {
    if (armed->load()) release();
  };
  return from_blob(data, shape, strides, dtype, device, std::move(del));
}

// libtc's own export coming back, as it was exported: a view of the
// exported tensor's storage, not a wrapper. A wrapper's deleter would keep
// the exported tensor alive from the new tensor's storage, and the exported
// tensor may come to hold the new one (as its .grad, say): a reference cycle
// that nothing frees. NULL when m is another producer's, or when a consumer
// edited the fields (that one takes the general path).
Tensor view_of_own_export(const DLManagedTensorVersioned* m) {
  if (m->deleter != delete_exported) return nullptr;
  const auto* e = reinterpret_cast<const Exported*>(m);
  const Tensor& x = e->tensor;
  const DLTensor& dl = m->dl_tensor;
  const DLDataType dt = to_dl_dtype(x->dtype);
  const bool read_only = x->storage && x->storage->read_only.load();
  if (dl.data != exported_data(x) || dl.byte_offset != 0 || dl.ndim != x->ndim() || dl.shape != e->shape ||
      dl.strides != e->strides || dl.dtype.code != dt.code || dl.dtype.bits != dt.bits ||
      dl.dtype.lanes != dt.lanes || ((m->flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0) != read_only)
    return nullptr;
  for (int64_t i = 0; i < x->ndim(); ++i)
    if (e->shape[i] != x->shape[i] || e->strides[i] != x->strides[i]) return nullptr;
  if (from_dl_device(dl.device) != x->device) return nullptr;
  return make_view(x, x->shape, x->strides, x->offset);
}

}  // namespace

TC_API int32_t tc_to_dlpack(tc_tensor t, void** out) {
  return api("tc_to_dlpack", [&] {
    out_ptr(out, "out");
    Tensor x = get_tensor(t, "t");
    auto e = std::make_unique<Exported>();
    e->tensor = x;
    for (int64_t i = 0; i < x->ndim(); ++i) {
      e->shape[i] = x->shape[i];
      e->strides[i] = x->strides[i];
    }
    DLManagedTensorVersioned& m = e->managed;
    m.version.major = DLPACK_MAJOR_VERSION;
    m.version.minor = DLPACK_MINOR_VERSION;
    m.manager_ctx = e.get();
    m.deleter = delete_exported;
    m.flags = x->storage && x->storage->read_only.load() ? DLPACK_FLAG_BITMASK_READ_ONLY : 0;
    m.dl_tensor.data = exported_data(x);
    m.dl_tensor.device.device_type = device_type(x->device) == TC_DEVICE_CUDA ? kDLCUDA : kDLCPU;
    m.dl_tensor.device.device_id = device_index(x->device);
    m.dl_tensor.ndim = int32_t(x->ndim());
    m.dl_tensor.dtype = to_dl_dtype(x->dtype);
    m.dl_tensor.shape = e->shape;
    m.dl_tensor.strides = e->strides;
    m.dl_tensor.byte_offset = 0;
    *out = &e.release()->managed;
  });
}

TC_API int32_t tc_from_dlpack(void* managed, int32_t versioned, tc_tensor* out) {
  return api("tc_from_dlpack", [&] {
    out_ptr(out, "out");
    TC_CHECK(managed != nullptr, TC_ERR_INVALID_ARGUMENT, "managed must not be NULL");
    TC_CHECK(versioned == 0 || versioned == 1, TC_ERR_INVALID_ARGUMENT, "versioned must be 0 or 1, got ",
             versioned);
    auto armed = std::make_shared<std::atomic<bool>>(false);
    Tensor t;
    if (versioned) {
      auto* m = static_cast<DLManagedTensorVersioned*>(managed);
      TC_CHECK(m->version.major == DLPACK_MAJOR_VERSION, TC_ERR_NOT_IMPLEMENTED, "DLPack major version ",
               m->version.major, " is not supported (libtc reads ", DLPACK_MAJOR_VERSION, ".x)");
      if (Tensor v = view_of_own_export(m)) {
        tc_tensor h = new_handle(v);
        v.reset();
        delete_exported(m);  // libtc owned it from the handle on; the view keeps the storage
        *out = h;
        return;
      }
      t = wrap(
          m->dl_tensor,
          [m] {
            if (m->deleter) m->deleter(m);
          },
          armed);
      // The producer's memory must not be written (a read-only numpy array,
      // an immutable buffer): libtc's writes into it are refused.
      if ((m->flags & DLPACK_FLAG_BITMASK_READ_ONLY) && t->storage) t->storage->read_only.store(true);
    } else {
      auto* m = static_cast<DLManagedTensor*>(managed);
      t = wrap(
          m->dl_tensor,
          [m] {
            if (m->deleter) m->deleter(m);
          },
          armed);
    }
    tc_tensor h = new_handle(t);
    armed->store(true);  // from here on libtc owns `managed`
    t.reset();
    *out = h;
  });
}
