// libFuzzer harness: arbitrary bytes into everything in libtc that reads
// caller-made data: name parsers (tc_dtype_from_name, tc_device_from_name,
// flag names), code lookups (status, dtype, device, flag index), tc_init's
// options struct, DLPack import (legacy and versioned DLManagedTensor with
// fuzzed ndim, shape, strides, dtype code/bits/lanes, device, byte_offset,
// version), tc_from_blob shapes/strides, tc_from_data sizes, and the shape
// arrays of reshape/view/expand/permute.
//
// The harness never hands libtc a pointer it could not read itself: shape and
// strides arrays always hold 40 entries (more than TC_MAX_DIMS), and the data
// buffer is real; an imported tensor is only read when the harness has
// checked that its strides stay inside that buffer (a producer lying about
// its extent is outside libtc's contract).
//
// Oracle: known status codes, never TC_ERR_INTERNAL, a message naming the
// function on failure, deleters called exactly once (from_blob: always;
// DLPack: on success when the tensor dies, never on failure), and
// live_handles/live_tensors back to where they were after each input.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "abi/dlpack.h"
#include "tc.h"

namespace {

[[noreturn]] void die(const char* fn, const std::string& why) {
  const char* msg = "";
  tc_last_error(&msg);
  std::fprintf(stderr, "fuzz_parsers: %s: %s (last error: %s)\n", fn, why.c_str(), msg ? msg : "(null)");
  std::abort();
}

void check(const char* fn, int32_t rc) {
  if (rc < 0 || rc >= TC_STATUS_COUNT) die(fn, "unknown status " + std::to_string(rc));
  if (rc == TC_OK) return;
  if (rc == TC_ERR_INTERNAL) die(fn, "TC_ERR_INTERNAL");
  const char* msg = nullptr;
  tc_last_error(&msg);
  if (!msg || !std::strstr(msg, fn)) die(fn, "the message does not name the function");
}

constexpr int kArr = 40;
alignas(64) uint8_t g_buffer[4096];
int g_deletes = 0;

// Reads the tensor a little (printing and copying), if it is small.
void exercise(tc_tensor t) {
  int64_t numel = 0, size = 0;
  check("tc_tensor_numel", tc_tensor_numel(t, &numel));
  check("tc_tensor_element_size", tc_tensor_element_size(t, &size));
  if (numel > 512) return;
  char text[128];
  int64_t needed = 0;
  check("tc_tensor_to_string", tc_tensor_to_string(t, text, sizeof text, &needed));
  std::vector<uint8_t> out(size_t(numel * size) + 1);
  check("tc_tensor_copy_to", tc_tensor_copy_to(t, out.data(), numel * size));
  tc_tensor s = nullptr;
  if (tc_sum(t, nullptr, 0, 0, &s) == TC_OK) tc_tensor_free(s);
}

// Whether every element (shape, element strides, byte offset) lies in
// [g_buffer, g_buffer + sizeof g_buffer). 128-bit arithmetic: no overflow.
bool inside_buffer(const int64_t* shape, const int64_t* strides, int32_t ndim, int64_t itemsize,
                   uint64_t offset) {
  if (ndim < 0 || ndim > TC_MAX_DIMS) return false;
  __int128 lo = 0, hi = 0;
  for (int32_t i = 0; i < ndim; ++i) {
    if (shape[i] < 0) return false;
    if (shape[i] == 0) return true;  // no element at all
  }
  int64_t contiguous = 1;
  for (int32_t i = ndim - 1; i >= 0; --i) {
    const __int128 st = strides ? strides[i] : contiguous;
    const __int128 span = st * (__int128(shape[i]) - 1);
    (span < 0 ? lo : hi) += span;
    if (!strides) {
      if (__builtin_mul_overflow(contiguous, shape[i], &contiguous)) return false;
    }
  }
  const __int128 first = __int128(offset) + lo * itemsize;
  const __int128 last = __int128(offset) + hi * itemsize + itemsize;
  return first >= 0 && last <= __int128(sizeof g_buffer);
}

int64_t dl_itemsize(DLDataType t) { return t.bits / 8 > 0 ? t.bits / 8 : 1; }

void fuzz_dlpack(FuzzedDataProvider& in) {
  const bool versioned = in.ConsumeBool();
  int64_t shape[kArr], strides[kArr];
  for (int i = 0; i < kArr; ++i) {
    shape[i] = in.ConsumeIntegralInRange<int>(0, 7) ? in.ConsumeIntegralInRange<int64_t>(0, 8)
                                                    : in.ConsumeIntegral<int64_t>();
    strides[i] = in.ConsumeIntegralInRange<int>(0, 7) ? in.ConsumeIntegralInRange<int64_t>(-2, 16)
                                                      : in.ConsumeIntegral<int64_t>();
  }
  DLTensor dl{};
  dl.data = in.ConsumeIntegralInRange<int>(0, 15) ? static_cast<void*>(g_buffer) : nullptr;
  dl.device.device_type =
      DLDeviceType(in.ConsumeIntegralInRange<int>(0, 3) ? 1 : in.ConsumeIntegral<int32_t>());
  dl.device.device_id = in.ConsumeIntegralInRange<int>(0, 3) ? 0 : in.ConsumeIntegral<int32_t>();
  dl.ndim = in.ConsumeIntegralInRange<int>(0, 7) ? in.ConsumeIntegralInRange<int32_t>(0, 4)
                                                 : in.ConsumeIntegralInRange<int32_t>(-3, kArr);
  dl.dtype.code = in.ConsumeIntegral<uint8_t>() % 8;
  static const uint8_t bits[] = {8, 16, 32, 64, 1, 0, 24, 128};
  dl.dtype.bits = in.ConsumeIntegralInRange<int>(0, 7) ? bits[in.ConsumeIntegralInRange<int>(0, 3)]
                                                       : in.ConsumeIntegral<uint8_t>();
  dl.dtype.lanes = in.ConsumeIntegralInRange<int>(0, 7) ? 1 : in.ConsumeIntegral<uint16_t>();
  dl.shape = in.ConsumeIntegralInRange<int>(0, 15) ? shape : nullptr;
  dl.strides = in.ConsumeBool() ? strides : nullptr;
  dl.byte_offset = in.ConsumeIntegralInRange<int>(0, 7) ? in.ConsumeIntegralInRange<uint64_t>(0, 64)
                                                        : in.ConsumeIntegral<uint64_t>();

  g_deletes = 0;
  DLManagedTensor legacy{};
  DLManagedTensorVersioned ver{};
  void* managed;
  if (versioned) {
    ver.version.major = in.ConsumeIntegralInRange<int>(0, 7) ? 1 : in.ConsumeIntegral<uint32_t>();
    ver.version.minor = in.ConsumeIntegral<uint32_t>();
    ver.flags = in.ConsumeIntegral<uint64_t>();
    ver.dl_tensor = dl;
    ver.deleter = [](DLManagedTensorVersioned*) { ++g_deletes; };
    managed = &ver;
  } else {
    legacy.dl_tensor = dl;
    legacy.deleter = [](DLManagedTensor*) { ++g_deletes; };
    managed = &legacy;
  }
  tc_tensor t = nullptr;
  const int32_t rc = tc_from_dlpack(
      managed, in.ConsumeIntegralInRange<int>(0, 15) ? int32_t(versioned) : in.ConsumeIntegral<int32_t>(),
      &t);
  check("tc_from_dlpack", rc);
  if (rc != TC_OK) {
    if (g_deletes != 0) die("tc_from_dlpack", "called the deleter of a tensor it did not take");
    if (t != nullptr) die("tc_from_dlpack", "wrote its out-param on failure");
    return;
  }
  if (g_deletes != 0) die("tc_from_dlpack", "called the deleter too early");
  const bool readable =
      dl.data && dl.ndim >= 0 && dl.ndim <= TC_MAX_DIMS && (dl.ndim == 0 || dl.shape) &&
      inside_buffer(dl.shape ? dl.shape : shape, dl.strides, dl.ndim, dl_itemsize(dl.dtype), dl.byte_offset);
  if (readable) exercise(t);
  check("tc_tensor_free", tc_tensor_free(t));
  if (g_deletes != 1)
    die("tc_from_dlpack", "deleter called " + std::to_string(g_deletes) + " times after the tensor died");
}

void fuzz_blob(FuzzedDataProvider& in) {
  int64_t shape[kArr], strides[kArr];
  for (int i = 0; i < kArr; ++i) {
    shape[i] = in.ConsumeIntegralInRange<int>(0, 7) ? in.ConsumeIntegralInRange<int64_t>(0, 8)
                                                    : in.ConsumeIntegral<int64_t>();
    strides[i] = in.ConsumeIntegralInRange<int>(0, 7) ? in.ConsumeIntegralInRange<int64_t>(-1, 16)
                                                      : in.ConsumeIntegral<int64_t>();
  }
  const int64_t ndim = in.ConsumeIntegralInRange<int>(0, 7) ? in.ConsumeIntegralInRange<int64_t>(0, 4)
                                                            : in.ConsumeIntegralInRange<int64_t>(-3, kArr);
  const int32_t dtype = in.ConsumeIntegralInRange<int>(0, 7)
                            ? in.ConsumeIntegralInRange<int32_t>(0, TC_DTYPE_COUNT - 1)
                            : in.ConsumeIntegral<int32_t>();
  const bool with_strides = in.ConsumeBool();
  g_deletes = 0;
  tc_tensor t = nullptr;
  const int32_t rc = tc_from_blob(
      g_buffer, shape, with_strides ? strides : nullptr, ndim, dtype, [](void*, void*) { ++g_deletes; },
      nullptr, &t);
  check("tc_from_blob", rc);
  if (rc != TC_OK) {
    if (g_deletes != 1)
      die("tc_from_blob", "a failed call must call the deleter once, called " + std::to_string(g_deletes));
    return;
  }
  int64_t itemsize = 0;
  check("tc_dtype_size", tc_dtype_size(dtype, &itemsize));
  if (inside_buffer(shape, with_strides ? strides : nullptr, int32_t(ndim), itemsize, 0)) exercise(t);
  check("tc_tensor_free", tc_tensor_free(t));
  if (g_deletes != 1) die("tc_from_blob", "deleter called " + std::to_string(g_deletes) + " times");
}

void fuzz_from_data(FuzzedDataProvider& in) {
  int64_t shape[kArr];
  for (auto& s : shape)
    s = in.ConsumeIntegralInRange<int>(0, 7) ? in.ConsumeIntegralInRange<int64_t>(0, 8)
                                             : in.ConsumeIntegral<int64_t>();
  const int64_t ndim = in.ConsumeIntegralInRange<int64_t>(-1, 6);
  const int32_t dtype = in.ConsumeIntegralInRange<int32_t>(-1, TC_DTYPE_COUNT);
  const std::vector<uint8_t> bytes = in.ConsumeBytes<uint8_t>(in.ConsumeIntegralInRange<size_t>(0, 512));
  tc_tensor t = nullptr;
  // nbytes is what the harness really has: libtc must refuse any other size.
  const int32_t rc = tc_from_data(bytes.data(), int64_t(bytes.size()), shape, ndim, dtype, &t);
  check("tc_from_data", rc);
  if (rc == TC_OK) {
    exercise(t);
    check("tc_tensor_free", tc_tensor_free(t));
  }
}

void fuzz_shapes(FuzzedDataProvider& in) {
  static tc_tensor base = nullptr;
  if (!base) {
    const int64_t s[] = {2, 3, 4};
    if (tc_arange(0, 24, 1, TC_FLOAT32, TC_CPU, &base) != TC_OK) die("tc_arange", "failed");
    tc_tensor r = nullptr;
    if (tc_reshape(base, s, 3, &r) != TC_OK) die("tc_reshape", "failed");
    tc_tensor_free(base);
    base = r;
  }
  int64_t arr[kArr];
  for (auto& a : arr)
    a = in.ConsumeIntegralInRange<int>(0, 3) ? in.ConsumeIntegralInRange<int64_t>(-2, 24)
                                             : in.ConsumeIntegral<int64_t>();
  const int64_t n = in.ConsumeIntegralInRange<int>(0, 7) ? in.ConsumeIntegralInRange<int64_t>(0, 5)
                                                         : in.ConsumeIntegralInRange<int64_t>(-3, kArr);
  tc_tensor t = nullptr;
  int32_t rc;
  const char* fn;
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      fn = "tc_reshape";
      rc = tc_reshape(base, arr, n, &t);
      break;
    case 1:
      fn = "tc_view";
      rc = tc_view(base, arr, n, &t);
      break;
    case 2:
      // expand: keep the result small (a huge broadcast is valid but slow to read).
      for (int64_t i = 0; i < n && i < kArr; ++i)
        if (arr[i] > 24) arr[i] = 24;
      fn = "tc_expand";
      rc = tc_expand(base, arr, n, &t);
      break;
    default:
      fn = "tc_permute";
      rc = tc_permute(base, arr, n, &t);
      break;
  }
  check(fn, rc);
  if (rc == TC_OK) {
    exercise(t);
    tc_tensor_free(t);
  }
}

void fuzz_names(FuzzedDataProvider& in) {
  const std::string s = in.ConsumeRandomLengthString(64);
  int32_t v = 0;
  int64_t f = 0;
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0:
      check("tc_dtype_from_name", tc_dtype_from_name(s.c_str(), &v));
      break;
    case 1: {
      const int32_t rc = tc_device_from_name(s.c_str(), &v);
      check("tc_device_from_name", rc);
      if (rc == TC_OK) {
        char buf[32];
        int64_t needed = 0;
        check("tc_device_name", tc_device_name(v, buf, sizeof buf, &needed));
      }
      break;
    }
    case 2:
      check("tc_get_flag", tc_get_flag(s.c_str(), &f));
      break;
    default:
      // Any settable flag but the two that change more than this input:
      // num_threads (thread pools) and fail_alloc_at (later allocations).
      if (s == "num_threads" || s == "fail_alloc_at") break;
      check("tc_set_flag", tc_set_flag(s.c_str(), in.ConsumeIntegral<int64_t>()));
      tc_set_flag("grad_enabled", 1);
      tc_set_flag("deterministic", 0);
      tc_set_flag("default_dtype", TC_FLOAT32);
  }
}

void fuzz_codes(FuzzedDataProvider& in) {
  const int32_t c = in.ConsumeIntegral<int32_t>(), d = in.ConsumeIntegral<int32_t>();
  const int64_t i = in.ConsumeIntegral<int64_t>();
  const char* s = nullptr;
  int32_t v = 0;
  int64_t n = 0;
  char buf[32];
  check("tc_status_name", tc_status_name(c, &s));
  check("tc_dtype_name", tc_dtype_name(c, &s));
  check("tc_dtype_size", tc_dtype_size(c, &n));
  check("tc_promote_types", tc_promote_types(c, d, &v));
  if ((c >> 16) != TC_DEVICE_CUDA)
    check("tc_device_name", tc_device_name(c, buf, in.ConsumeIntegralInRange<int64_t>(-1, 32), &n));
  check("tc_flag_info", tc_flag_info(i, &s, &v));
  tc_stage_info st{};
  st.size = in.ConsumeIntegral<uint32_t>() % 128;
  check("tc_init_stage", tc_init_stage(i, &st));
}

void fuzz_init_options(FuzzedDataProvider& in) {
  alignas(8) uint8_t raw[4096 + 64] = {};
  const std::vector<uint8_t> bytes = in.ConsumeBytes<uint8_t>(sizeof raw);
  if (!bytes.empty()) std::memcpy(raw, bytes.data(), bytes.size());
  auto* o = reinterpret_cast<tc_init_options*>(raw);
  if (o->size > 4096 + 64) o->size %= 4096 + 64;  // the harness owns only this much
  // libtc is initialized: a valid call only counts a reference.
  const int32_t rc = tc_init(o);
  check("tc_init", rc);
  if (rc == TC_OK) check("tc_shutdown", tc_shutdown());
}

int64_t flag(const char* name) {
  int64_t v = -1;
  if (tc_get_flag(name, &v) != TC_OK) die("tc_get_flag", name);
  return v;
}
int64_t g_tensors0 = 0, g_handles0 = 0;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  tc_init_options o{};
  o.size = sizeof o;
  o.num_threads = 1;
  if (tc_init(&o) != TC_OK) die("tc_init", "failed");
  // Bytes 0 and 1 only: borrowed bool data must hold those (tc.h, tc_from_blob),
  // and every other dtype accepts any bit pattern.
  for (size_t i = 0; i < sizeof g_buffer; ++i) g_buffer[i] = uint8_t((i * 37) >> 3 & 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  static bool first = true;
  if (first) {  // after fuzz_shapes's base tensor exists
    first = false;
    fuzz_shapes(in);
    g_tensors0 = flag("live_tensors");
    g_handles0 = flag("live_handles");
    return 0;
  }
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0:
      fuzz_names(in);
      break;
    case 1:
      fuzz_codes(in);
      break;
    case 2:
      fuzz_dlpack(in);
      break;
    case 3:
      fuzz_blob(in);
      break;
    case 4:
      fuzz_from_data(in);
      break;
    case 5:
      fuzz_shapes(in);
      break;
    case 6:
      fuzz_init_options(in);
      break;
    default:
      fuzz_dlpack(in);
      break;
  }
  if (flag("live_handles") != g_handles0) die("live_handles", "a handle leaked");
  if (flag("live_tensors") != g_tensors0) die("live_tensors", "a tensor leaked");
  return 0;
}
