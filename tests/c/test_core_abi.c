/* The core ABI from plain C11, using nothing but tc.h: staged init, flags,
 * errors, registries, tensor creation and accessors, checked handles, and
 * bad input. Each CHECK prints the failing line and the last error. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tc.h"

static int failures = 0;
static int checks = 0;

#define CHECK(cond)                                                                                  \
  do {                                                                                               \
    ++checks;                                                                                        \
    if (!(cond)) {                                                                                   \
      const char* msg_ = "";                                                                         \
      tc_last_error(&msg_);                                                                          \
      fprintf(stderr, "%s:%d: CHECK(%s) failed; last error: %s\n", __FILE__, __LINE__, #cond, msg_); \
      ++failures;                                                                                    \
    }                                                                                                \
  } while (0)
#define OK(call) CHECK((call) == TC_OK)

/* The last error message contains every given fragment. */
static int last_error_has(const char* a, const char* b) {
  const char* msg = NULL;
  if (tc_last_error(&msg) != TC_OK || !msg) return 0;
  return strstr(msg, a) != NULL && (b == NULL || strstr(msg, b) != NULL);
}

static int64_t flag(const char* name) {
  int64_t v = -12345;
  OK(tc_get_flag(name, &v));
  return v;
}

static void test_before_init(void) {
  int32_t v = 0;
  const char* text = NULL;
  OK(tc_version(&v, &text));
  CHECK(v == TC_VERSION_MAJOR * 10000 + TC_VERSION_MINOR * 100 + TC_VERSION_PATCH);
  CHECK(text && strcmp(text, "0.1.0") == 0);
  OK(tc_abi_version(&v));
  CHECK(v == TC_ABI_VERSION);
  int32_t inited = 7;
  OK(tc_is_initialized(&inited));
  CHECK(inited == 0);
  int64_t n = 99;
  CHECK(tc_get_flag("num_threads", &n) == TC_ERR_NOT_INITIALIZED);
  CHECK(n == 99); /* out-param untouched on failure */
  CHECK(last_error_has("tc_get_flag", "tc_init"));
  tc_tensor t = NULL;
  int64_t shape[1] = {3};
  CHECK(tc_zeros(shape, 1, TC_FLOAT32, TC_CPU, &t) == TC_ERR_NOT_INITIALIZED);
  CHECK(t == NULL);
  CHECK(tc_shutdown() == TC_ERR_NOT_INITIALIZED);
  int32_t code = -1;
  OK(tc_last_error_code(&code));
  CHECK(code == TC_ERR_NOT_INITIALIZED);
  /* Status names are stable and known before init. */
  const char* name = NULL;
  OK(tc_status_name(TC_ERR_SHAPE, &name));
  CHECK(strcmp(name, "TC_ERR_SHAPE") == 0);
  for (int32_t c = 0; c < TC_STATUS_COUNT; ++c) {
    OK(tc_status_name(c, &name));
    CHECK(name && strncmp(name, "TC_", 3) == 0);
  }
  CHECK(tc_status_name(TC_STATUS_COUNT, &name) == TC_ERR_INVALID_ARGUMENT);
}

static void test_init_stages(void) {
  tc_init_options o;
  memset(&o, 0, sizeof o);
  o.size = sizeof o;
  o.num_threads = 2;
  o.use_seed = 1;
  o.seed = 42;
  OK(tc_init(&o));
  OK(tc_init(NULL)); /* reference-counted */
  int64_t count = 0;
  OK(tc_init_stage_count(&count));
  CHECK(count == 5);
  const char* expected[] = {"core", "cpu", "random", "autograd", "cuda"};
  for (int64_t i = 0; i < count && i < 5; ++i) {
    tc_stage_info info;
    memset(&info, 0, sizeof info);
    info.size = sizeof info;
    OK(tc_init_stage(i, &info));
    CHECK(strcmp(info.name, expected[i]) == 0);
    if (i < 4) {
      CHECK(info.state == TC_STAGE_OK);
      CHECK(info.required == 1);
      CHECK(info.duration_ms >= 0);
    } else {
      CHECK(info.state == TC_STAGE_LAZY || info.state == TC_STAGE_SKIPPED || info.state == TC_STAGE_FAILED);
      CHECK(info.required == 0);
      CHECK(strlen(info.message) > 0);
    }
  }
  tc_stage_info bad;
  memset(&bad, 0, sizeof bad);
  bad.size = sizeof bad;
  CHECK(tc_init_stage(5, &bad) == TC_ERR_INDEX);
  bad.size = 4;
  CHECK(tc_init_stage(0, &bad) == TC_ERR_INVALID_ARGUMENT);
  int64_t needed = 0;
  OK(tc_init_report(NULL, 0, &needed));
  CHECK(needed > 10);
  char* report = malloc((size_t)needed);
  OK(tc_init_report(report, needed, &needed));
  CHECK(strstr(report, "core") && strstr(report, "autograd") && strstr(report, "cuda") &&
        strstr(report, "ms"));
  /* Truncation keeps a terminated prefix and still reports the full size. */
  char small[8];
  int64_t needed2 = 0;
  OK(tc_init_report(small, sizeof small, &needed2));
  CHECK(needed2 == needed && strlen(small) == 7);
  free(report);
  CHECK(flag("num_threads") == 2);
  uint64_t seed = 0;
  OK(tc_initial_seed(&seed));
  CHECK(seed == 42);
  /* A bad options struct is rejected. */
  o.size = 2;
  OK(tc_shutdown());
  OK(tc_shutdown());
  CHECK(tc_init(&o) == TC_ERR_INVALID_ARGUMENT);
  int32_t inited = 1;
  OK(tc_is_initialized(&inited));
  CHECK(inited == 0);
}

static void test_flags(void) {
  int64_t n = 0;
  OK(tc_flag_count(&n));
  CHECK(n >= 16);
  const char* required[] = {"has_cuda",      "cuda_available", "cuda_initialized", "cuda_device_count",
                            "has_cublas",    "has_onednn",     "has_openmp",       "has_mkl",
                            "has_lapack",    "cxx11_abi",      "num_threads",      "grad_enabled",
                            "deterministic", "default_dtype",  "live_tensors"};
  for (size_t r = 0; r < sizeof required / sizeof required[0]; ++r) {
    int found = 0;
    for (int64_t i = 0; i < n; ++i) {
      const char* name = NULL;
      int32_t settable = -1;
      OK(tc_flag_info(i, &name, &settable));
      if (strcmp(name, required[r]) == 0) found = 1;
    }
    CHECK(found);
    int64_t v = -1;
    OK(tc_get_flag(required[r], &v));
  }
  CHECK(flag("has_onednn") == 1 && flag("has_openmp") == 1);
  int64_t v = 5;
  CHECK(tc_get_flag("no_such_flag", &v) == TC_ERR_INVALID_ARGUMENT && v == 5);
  CHECK(last_error_has("no_such_flag", "known:"));
  CHECK(tc_get_flag(NULL, &v) == TC_ERR_INVALID_ARGUMENT);
  CHECK(tc_get_flag("num_threads", NULL) == TC_ERR_INVALID_ARGUMENT);
  CHECK(tc_set_flag("has_cuda", 1) == TC_ERR_INVALID_ARGUMENT);
  CHECK(last_error_has("read-only", NULL));
  CHECK(tc_set_flag("num_threads", 0) == TC_ERR_INVALID_ARGUMENT);
  CHECK(tc_set_flag("grad_enabled", 2) == TC_ERR_INVALID_ARGUMENT);
  CHECK(tc_set_flag("default_dtype", TC_INT32) == TC_ERR_INVALID_ARGUMENT);
  OK(tc_set_flag("num_threads", 1));
  CHECK(flag("num_threads") == 1);
  OK(tc_set_flag("deterministic", 1));
  CHECK(flag("deterministic") == 1);
  OK(tc_set_flag("default_dtype", TC_FLOAT64));
  CHECK(flag("default_dtype") == TC_FLOAT64);
  OK(tc_set_flag("default_dtype", TC_FLOAT32));
  int32_t prev = -1;
  OK(tc_set_grad_enabled(0, &prev));
  CHECK(prev == 1 && flag("grad_enabled") == 0);
  OK(tc_set_grad_enabled(prev, NULL));
  CHECK(flag("grad_enabled") == 1);
  /* CUDA: built or not, the answer is consistent and explained. */
  if (flag("cuda_available") == 0) {
    CHECK(flag("cuda_device_count") == 0);
    CHECK(flag("cuda_initialized") == 0);
    int64_t needed = 0;
    OK(tc_config(NULL, 0, &needed));
    char* cfg = malloc((size_t)needed);
    OK(tc_config(cfg, needed, &needed));
    CHECK(strstr(cfg, "unavailable") != NULL && strstr(cfg, "oneDNN") != NULL);
    free(cfg);
    int32_t rc = tc_backend_init("cuda");
    CHECK(rc == TC_ERR_NOT_COMPILED || rc == TC_ERR_UNAVAILABLE);
    tc_tensor t = NULL;
    int64_t shape[1] = {2};
    rc = tc_zeros(shape, 1, TC_FLOAT32, TC_DEVICE(TC_DEVICE_CUDA, 0), &t);
    CHECK((rc == TC_ERR_NOT_COMPILED || rc == TC_ERR_UNAVAILABLE) && t == NULL);
  }
  CHECK(tc_backend_init("opencl") == TC_ERR_INVALID_ARGUMENT);
}

static void test_registries(void) {
  const char* names[TC_DTYPE_COUNT] = {"float32", "float64", "float16",   "bfloat16",
                                       "int8",    "int16",   "int32",     "int64",
                                       "uint8",   "bool",    "complex64", "complex128"};
  const int64_t sizes[TC_DTYPE_COUNT] = {4, 8, 2, 2, 1, 2, 4, 8, 1, 1, 8, 16};
  for (int32_t d = 0; d < TC_DTYPE_COUNT; ++d) {
    const char* name = NULL;
    int64_t size = 0;
    int32_t back = -1;
    OK(tc_dtype_name(d, &name));
    OK(tc_dtype_size(d, &size));
    OK(tc_dtype_from_name(name, &back));
    CHECK(strcmp(name, names[d]) == 0 && size == sizes[d] && back == d);
  }
  const char* name = NULL;
  CHECK(tc_dtype_name(TC_DTYPE_COUNT, &name) == TC_ERR_DTYPE);
  CHECK(tc_dtype_name(-1, &name) == TC_ERR_DTYPE);
  int32_t d = -1;
  CHECK(tc_dtype_from_name("complex32", &d) == TC_ERR_DTYPE && d == -1);
  OK(tc_promote_types(TC_INT32, TC_FLOAT32, &d));
  CHECK(d == TC_FLOAT32);
  OK(tc_promote_types(TC_UINT8, TC_INT8, &d));
  CHECK(d == TC_INT16);
  OK(tc_promote_types(TC_BOOL, TC_INT64, &d));
  CHECK(d == TC_INT64);
  OK(tc_promote_types(TC_FLOAT16, TC_BFLOAT16, &d));
  CHECK(d == TC_FLOAT32);
  OK(tc_promote_types(TC_FLOAT64, TC_COMPLEX64, &d));
  CHECK(d == TC_COMPLEX128);
  OK(tc_promote_types(TC_INT64, TC_COMPLEX64, &d));
  CHECK(d == TC_COMPLEX64);
  char buf[32];
  int64_t needed = 0;
  OK(tc_device_name(TC_CPU, buf, sizeof buf, &needed));
  CHECK(strcmp(buf, "cpu") == 0 && needed == 4);
  OK(tc_device_name(TC_DEVICE(TC_DEVICE_CUDA, 3), buf, sizeof buf, &needed));
  CHECK(strcmp(buf, "cuda:3") == 0);
  int32_t dev = -1;
  OK(tc_device_from_name("cuda:1", &dev));
  CHECK(TC_DEVICE_TYPE(dev) == TC_DEVICE_CUDA && TC_DEVICE_INDEX(dev) == 1);
  OK(tc_device_from_name("cpu", &dev));
  CHECK(dev == TC_CPU);
  CHECK(tc_device_from_name("tpu", &dev) == TC_ERR_INVALID_ARGUMENT);
  CHECK(tc_device_name(7 << 16, buf, sizeof buf, &needed) == TC_ERR_INVALID_ARGUMENT);
}

static int deleter_calls = 0;
static void count_deleter(void* data, void* context) {
  (void)data;
  ++*(int*)context;
}

static void test_tensors(void) {
  const int64_t shape[2] = {2, 3};
  tc_tensor z = NULL, o = NULL, f = NULL, a = NULL, e = NULL;
  OK(tc_zeros(shape, 2, TC_FLOAT32, TC_CPU, &z));
  OK(tc_ones(shape, 2, TC_INT32, TC_CPU, &o));
  OK(tc_full(shape, 2, 2.5, TC_FLOAT64, TC_CPU, &f));
  OK(tc_arange(0, 10, 3, TC_INT64, TC_CPU, &a));
  OK(tc_empty(shape, 2, TC_UINT8, TC_CPU, &e));
  int64_t ndim = 0, numel = 0, got[TC_MAX_DIMS], es = 0, off = -1;
  int32_t dtype = -1, device = -1, contig = -1;
  OK(tc_tensor_ndim(f, &ndim));
  OK(tc_tensor_numel(f, &numel));
  OK(tc_tensor_shape(f, got, TC_MAX_DIMS));
  OK(tc_tensor_dtype(f, &dtype));
  OK(tc_tensor_device(f, &device));
  OK(tc_tensor_element_size(f, &es));
  OK(tc_tensor_is_contiguous(f, &contig));
  OK(tc_tensor_storage_offset(f, &off));
  CHECK(ndim == 2 && numel == 6 && got[0] == 2 && got[1] == 3 && dtype == TC_FLOAT64 && device == TC_CPU &&
        es == 8 && contig == 1 && off == 0);
  OK(tc_tensor_strides(f, got, 2));
  CHECK(got[0] == 3 && got[1] == 1);
  CHECK(tc_tensor_shape(f, got, 1) == TC_ERR_INVALID_ARGUMENT);
  double values[6];
  OK(tc_tensor_copy_to(f, values, sizeof values));
  CHECK(values[0] == 2.5 && values[5] == 2.5);
  CHECK(tc_tensor_copy_to(f, values, 8) == TC_ERR_INVALID_ARGUMENT);
  CHECK(last_error_has("nbytes", "48"));
  int64_t ar[4];
  OK(tc_tensor_copy_to(a, ar, sizeof ar));
  CHECK(ar[0] == 0 && ar[1] == 3 && ar[2] == 6 && ar[3] == 9);
  int32_t iv[6];
  OK(tc_tensor_copy_to(o, iv, sizeof iv));
  CHECK(iv[0] == 1 && iv[5] == 1);
  double item = 0;
  CHECK(tc_tensor_item(f, &item) == TC_ERR_SHAPE);

  /* from_data copies; dtype conversion through copy_to of another dtype. */
  const float src[4] = {1.5f, -2.0f, 3.25f, 65504.0f};
  const int64_t s4[1] = {4};
  tc_tensor d = NULL, h = NULL, b = NULL;
  OK(tc_from_data(src, sizeof src, s4, 1, TC_FLOAT32, &d));
  CHECK(tc_from_data(src, 12, s4, 1, TC_FLOAT32, &b) == TC_ERR_INVALID_ARGUMENT && b == NULL);
  OK(tc_to_dtype(d, TC_FLOAT16, &h));
  OK(tc_to_dtype(d, TC_BFLOAT16, &b));
  uint16_t hb[4], bb[4];
  OK(tc_tensor_copy_to(h, hb, sizeof hb));
  OK(tc_tensor_copy_to(b, bb, sizeof bb));
  CHECK(hb[0] == 0x3e00 && hb[1] == 0xc000 && hb[3] == 0x7bff); /* 1.5, -2, 65504 in IEEE half */
  CHECK(bb[0] == 0x3fc0 && bb[1] == 0xc000);                    /* 1.5, -2 in bfloat16 */
  tc_tensor back = NULL;
  OK(tc_to_dtype(h, TC_FLOAT32, &back));
  float fb[4];
  OK(tc_tensor_copy_to(back, fb, sizeof fb));
  CHECK(fb[0] == 1.5f && fb[2] == 3.25f && fb[3] == 65504.0f);

  /* from_blob: no copy, the deleter runs exactly once, at the last free. */
  float* buf = malloc(6 * sizeof(float));
  for (int i = 0; i < 6; ++i) buf[i] = (float)i;
  tc_tensor blob = NULL, blob2 = NULL;
  deleter_calls = 0;
  OK(tc_from_blob(buf, shape, NULL, 2, TC_FLOAT32, count_deleter, &deleter_calls, &blob));
  void* ptr = NULL;
  OK(tc_tensor_data_ptr(blob, &ptr));
  CHECK(ptr == buf);
  OK(tc_tensor_retain(blob, &blob2));
  int32_t same = 0;
  OK(tc_tensor_same(blob, blob2, &same));
  CHECK(same == 1);
  OK(tc_tensor_free(blob));
  CHECK(deleter_calls == 0);
  OK(tc_tensor_free(blob2));
  CHECK(deleter_calls == 1);
  /* ...and also when the call fails. */
  deleter_calls = 0;
  blob = NULL;
  CHECK(tc_from_blob(buf, shape, NULL, 2, 99, count_deleter, &deleter_calls, &blob) == TC_ERR_DTYPE);
  CHECK(deleter_calls == 1 && blob == NULL);
  free(buf);

  /* rand/randn: reproducible with the seed, in range. */
  const int64_t big[1] = {1000};
  tc_tensor r1 = NULL, r2 = NULL, n1 = NULL;
  OK(tc_manual_seed(7));
  OK(tc_rand(big, 1, TC_FLOAT32, TC_CPU, &r1));
  OK(tc_randn(big, 1, TC_FLOAT64, TC_CPU, &n1));
  OK(tc_manual_seed(7));
  OK(tc_rand(big, 1, TC_FLOAT32, TC_CPU, &r2));
  float x1[1000], x2[1000];
  double nv[1000];
  OK(tc_tensor_copy_to(r1, x1, sizeof x1));
  OK(tc_tensor_copy_to(r2, x2, sizeof x2));
  OK(tc_tensor_copy_to(n1, nv, sizeof nv));
  CHECK(memcmp(x1, x2, sizeof x1) == 0);
  double mean = 0, var = 0;
  int in_range = 1;
  for (int i = 0; i < 1000; ++i) {
    in_range &= x1[i] >= 0.0f && x1[i] < 1.0f;
    mean += nv[i] / 1000;
  }
  for (int i = 0; i < 1000; ++i) var += (nv[i] - mean) * (nv[i] - mean) / 999;
  CHECK(in_range && fabs(mean) < 0.15 && fabs(var - 1) < 0.15);
  tc_tensor ri = NULL;
  CHECK(tc_rand(big, 1, TC_INT32, TC_CPU, &ri) == TC_ERR_DTYPE);

  /* to_string looks like PyTorch's. */
  char text[256];
  int64_t needed = 0;
  OK(tc_tensor_to_string(f, text, sizeof text, &needed));
  CHECK(strcmp(text,
               "tensor([[2.5000, 2.5000, 2.5000],\n        [2.5000, 2.5000, 2.5000]], dtype=float64)") == 0);
  OK(tc_tensor_to_string(a, text, sizeof text, &needed));
  CHECK(strcmp(text, "tensor([0, 3, 6, 9])") == 0);
  OK(tc_tensor_to_string(z, text, sizeof text, &needed));
  CHECK(strcmp(text, "tensor([[0., 0., 0.],\n        [0., 0., 0.]])") == 0);

  tc_tensor all[] = {z, o, f, a, e, d, h, b, back, r1, r2, n1};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i) OK(tc_tensor_free(all[i]));
  CHECK(flag("live_tensors") == 0);
}

static void test_bad_input(void) {
  tc_tensor t = NULL;
  int64_t neg[2] = {2, -1};
  CHECK(tc_zeros(neg, 2, TC_FLOAT32, TC_CPU, &t) == TC_ERR_INVALID_ARGUMENT && t == NULL);
  CHECK(last_error_has("tc_zeros", "negative"));
  int64_t many[TC_MAX_DIMS + 1];
  for (int i = 0; i <= TC_MAX_DIMS; ++i) many[i] = 1;
  CHECK(tc_zeros(many, TC_MAX_DIMS + 1, TC_FLOAT32, TC_CPU, &t) == TC_ERR_INVALID_ARGUMENT);
  CHECK(tc_zeros(many, -1, TC_FLOAT32, TC_CPU, &t) == TC_ERR_INVALID_ARGUMENT);
  int64_t overflow[3] = {INT64_MAX / 2, 3, 5};
  CHECK(tc_zeros(overflow, 3, TC_FLOAT32, TC_CPU, &t) == TC_ERR_OUT_OF_MEMORY);
  int64_t huge[1] = {INT64_C(1) << 50};
  CHECK(tc_empty(huge, 1, TC_FLOAT64, TC_CPU, &t) == TC_ERR_OUT_OF_MEMORY);
  CHECK(last_error_has("out of memory", "bytes"));
  int64_t ok_shape[1] = {3};
  CHECK(tc_zeros(ok_shape, 1, 42, TC_CPU, &t) == TC_ERR_DTYPE);
  CHECK(last_error_has("dtype", "42"));
  CHECK(tc_zeros(ok_shape, 1, TC_FLOAT32, 9 << 16, &t) == TC_ERR_INVALID_ARGUMENT);
  CHECK(tc_zeros(ok_shape, 1, TC_FLOAT32, TC_DEVICE(TC_DEVICE_CPU, 1), &t) == TC_ERR_INVALID_ARGUMENT);
  CHECK(tc_zeros(NULL, 1, TC_FLOAT32, TC_CPU, &t) == TC_ERR_INVALID_ARGUMENT);
  CHECK(tc_zeros(ok_shape, 1, TC_FLOAT32, TC_CPU, NULL) == TC_ERR_INVALID_ARGUMENT);
  CHECK(last_error_has("out", "NULL"));
  CHECK(tc_arange(0, 1, 0, TC_FLOAT32, TC_CPU, &t) == TC_ERR_INVALID_ARGUMENT);
  CHECK(t == NULL);
  /* A scalar (0-dim) tensor is fine. */
  OK(tc_full(NULL, 0, 3.0, TC_FLOAT32, TC_CPU, &t));
  double v = 0;
  OK(tc_tensor_item(t, &v));
  CHECK(v == 3.0);
  OK(tc_tensor_free(t));
}

static void test_handles(void) {
  int64_t shape[1] = {4};
  tc_tensor t = NULL, u = NULL;
  OK(tc_ones(shape, 1, TC_FLOAT32, TC_CPU, &t));
  int64_t n = 0;
  CHECK(tc_tensor_numel(NULL, &n) == TC_ERR_INVALID_HANDLE);
  CHECK(last_error_has("tc_tensor_numel", "NULL"));
  OK(tc_tensor_retain(t, &u));
  OK(tc_tensor_free(t));
  CHECK(tc_tensor_free(t) == TC_ERR_INVALID_HANDLE); /* double free is reported */
  CHECK(last_error_has("freed", NULL));
  CHECK(tc_tensor_numel(t, &n) == TC_ERR_INVALID_HANDLE);
  OK(tc_tensor_numel(u, &n)); /* the other handle still works */
  CHECK(n == 4);
  /* Forged handles: garbage, a wrong kind. */
  CHECK(tc_tensor_numel((tc_tensor)(uintptr_t)0xdeadbeef, &n) == TC_ERR_INVALID_HANDLE);
  CHECK(tc_optimizer_step((tc_optimizer)u) == TC_ERR_INVALID_HANDLE);
  CHECK(last_error_has("tensor handle", NULL));
  /* Stale: from before a shutdown. */
  OK(tc_shutdown());
  OK(tc_init(NULL));
  CHECK(tc_tensor_numel(u, &n) == TC_ERR_INVALID_HANDLE);
  CHECK(tc_tensor_free(u) == TC_ERR_INVALID_HANDLE);
  CHECK(flag("live_tensors") == 0 && flag("live_handles") == 0);
}

static void test_cycles(void) {
  /* init/shutdown cycles leave nothing behind. */
  for (int i = 0; i < 50; ++i) {
    OK(tc_init(NULL));
    int64_t shape[2] = {3, 3};
    tc_tensor t = NULL;
    OK(tc_randn(shape, 2, TC_FLOAT32, TC_CPU, &t)); /* left alive on purpose: shutdown frees it */
    CHECK(flag("live_tensors") == 1);
    OK(tc_shutdown());
  }
  OK(tc_init(NULL));
  CHECK(flag("live_tensors") == 0);
  OK(tc_shutdown());
}

int main(void) {
  test_before_init();
  test_init_stages();
  OK(tc_init(NULL));
  test_flags();
  test_registries();
  test_tensors();
  test_bad_input();
  test_handles();
  OK(tc_shutdown());
  test_cycles();
  printf("%d checks, %d failed\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
