// tc_tensor_new (the general constructor), custom autograd functions through
// the C ABI (gradchecked), tensor hooks (order, replacement, removal) and the
// graph's nodes; callbacks that fail or misuse libtc.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "abi/api.h"
#include "gradcheck.h"
#include "tc_binary_ops.h"
#include "tc_scalar_ops.h"

using namespace tc_test;

namespace {

int64_t live_handles() {
  int64_t v = -1;
  tc_get_flag("live_handles", &v);
  return v;
}

std::vector<double> vals(tc_tensor h) { return values(tc::get_tensor(h, "h")); }

class TensorNew : public TcTest {};

tc_tensor_options opts(std::vector<int64_t>& shape, int32_t fill, int32_t dtype = TC_FLOAT64) {
  tc_tensor_options o{};
  o.size = sizeof o;
  o.shape = shape.data();
  o.ndim = int64_t(shape.size());
  o.dtype = dtype;
  o.device = TC_CPU;
  o.fill = fill;
  return o;
}

TEST_F(TensorNew, EveryFillMatchesItsShorthand) {
  std::vector<int64_t> s = {2, 3};
  tc_tensor a = nullptr, b = nullptr;
  auto same = [&](const char* what) {
    ASSERT_TRUE(a && b) << what;
    EXPECT_EQ(vals(a), vals(b)) << what;
    tc_tensor_free(a);
    tc_tensor_free(b);
    a = b = nullptr;
  };
  tc_tensor_options o = opts(s, TC_FILL_ZEROS);
  ASSERT_TRUE(ok(tc_tensor_new(&o, &a)));
  ASSERT_TRUE(ok(tc_zeros(s.data(), 2, TC_FLOAT64, TC_CPU, &b)));
  same("zeros");
  o = opts(s, TC_FILL_ONES);
  ASSERT_TRUE(ok(tc_tensor_new(&o, &a)));
  ASSERT_TRUE(ok(tc_ones(s.data(), 2, TC_FLOAT64, TC_CPU, &b)));
  same("ones");
  o = opts(s, TC_FILL_VALUE, TC_INT32);
  o.value = -7.9;
  ASSERT_TRUE(ok(tc_tensor_new(&o, &a)));
  ASSERT_TRUE(ok(tc_full(s.data(), 2, -7.9, TC_INT32, TC_CPU, &b)));
  same("full (truncates like tc_full)");
  const double data[6] = {1, 2, 3, 4, 5, 6};
  o = opts(s, TC_FILL_DATA);
  o.data = data;
  o.nbytes = sizeof data;
  ASSERT_TRUE(ok(tc_tensor_new(&o, &a)));
  ASSERT_TRUE(ok(tc_from_data(data, sizeof data, s.data(), 2, TC_FLOAT64, &b)));
  same("from_data");
  o = opts(s, TC_FILL_UNIFORM);
  o.low = 0;
  o.high = 1;
  tc_manual_seed(7);
  ASSERT_TRUE(ok(tc_tensor_new(&o, &a)));
  tc_manual_seed(7);
  ASSERT_TRUE(ok(tc_rand(s.data(), 2, TC_FLOAT64, TC_CPU, &b)));
  same("rand");
  o = opts(s, TC_FILL_NORMAL);
  o.std = 1;
  tc_manual_seed(9);
  ASSERT_TRUE(ok(tc_tensor_new(&o, &a)));
  tc_manual_seed(9);
  ASSERT_TRUE(ok(tc_randn(s.data(), 2, TC_FLOAT64, TC_CPU, &b)));
  same("randn");
  o = opts(s, TC_FILL_UNINITIALIZED, TC_INT8);
  ASSERT_TRUE(ok(tc_tensor_new(&o, &a)));
  int32_t dt = -1;
  tc_tensor_dtype(a, &dt);
  EXPECT_EQ(dt, TC_INT8);
  tc_tensor_free(a);
}

TEST_F(TensorNew, RangesRequiresGradAndOldSizes) {
  std::vector<int64_t> s = {1000};
  tc_tensor t = nullptr;
  tc_tensor_options o = opts(s, TC_FILL_UNIFORM, TC_FLOAT32);
  o.low = -3;
  o.high = -2;
  o.requires_grad = 1;
  ASSERT_TRUE(ok(tc_tensor_new(&o, &t)));
  for (double v : vals(t)) {
    EXPECT_GE(v, -3);
    EXPECT_LT(v, -2);
  }
  int32_t rg = 0, leaf = 0;
  tc_tensor_requires_grad(t, &rg);
  tc_tensor_is_leaf(t, &leaf);
  EXPECT_EQ(rg, 1);
  EXPECT_EQ(leaf, 1);
  tc_tensor_free(t);
  o = opts(s, TC_FILL_NORMAL);
  o.mean = 5;
  o.std = 0;
  ASSERT_TRUE(ok(tc_tensor_new(&o, &t)));
  for (double v : vals(t)) EXPECT_EQ(v, 5);
  tc_tensor_free(t);
  // A caller built against a header that ended at .fill: value etc. read as 0.
  o = opts(s, TC_FILL_VALUE);
  o.value = 3;
  o.size = offsetof(tc_tensor_options, fill) + sizeof(int32_t);
  ASSERT_TRUE(ok(tc_tensor_new(&o, &t)));
  EXPECT_EQ(vals(t)[0], 0);
  tc_tensor_free(t);
}

TEST_F(TensorNew, BadOptionsAreErrorsAndWriteNothing) {
  std::vector<int64_t> s = {2};
  tc_tensor t = nullptr;
  auto expect = [&](tc_tensor_options o, int32_t code, const char* what) {
    EXPECT_EQ(tc_tensor_new(&o, &t), code) << what << ": " << last_error();
    EXPECT_EQ(t, nullptr) << what;
  };
  tc_tensor_options o = opts(s, 99);
  expect(o, TC_ERR_INVALID_ARGUMENT, "fill 99");
  o = opts(s, TC_FILL_ZEROS);
  o.size = 4;
  expect(o, TC_ERR_INVALID_ARGUMENT, "size 4");
  o = opts(s, TC_FILL_ZEROS);
  o.reserved0 = 1;
  expect(o, TC_ERR_INVALID_ARGUMENT, "reserved0");
  o = opts(s, TC_FILL_ZEROS, TC_INT64);
  o.requires_grad = 1;
  expect(o, TC_ERR_DTYPE, "int64 requires_grad");
  o = opts(s, TC_FILL_VALUE, TC_INT8);
  o.value = 300;
  expect(o, TC_ERR_INVALID_ARGUMENT, "300 into int8");
  o = opts(s, TC_FILL_UNIFORM);
  o.low = 1;
  o.high = 0;
  expect(o, TC_ERR_INVALID_ARGUMENT, "low > high");
  o = opts(s, TC_FILL_NORMAL);
  o.std = -1;
  expect(o, TC_ERR_INVALID_ARGUMENT, "std < 0");
  o = opts(s, TC_FILL_NORMAL, TC_INT32);
  expect(o, TC_ERR_DTYPE, "normal int32");
  o = opts(s, TC_FILL_DATA);
  o.nbytes = 8;
  expect(o, TC_ERR_INVALID_ARGUMENT, "data: nbytes 8 for 16");
  o = opts(s, TC_FILL_ZEROS);
  o.dtype = 42;
  expect(o, TC_ERR_DTYPE, "dtype 42");
}

// ---- custom functions ----

// f(x, w) = x * x * w, saving x and w. counts[0]: forwards, [1]: backwards, [2]: releases.
struct SquareCtx {
  int forwards = 0, backwards = 0, releases = 0;
};

int32_t sq_forward(void* c, const tc_tensor* in, int64_t n, const int32_t* needs, tc_tensor* out,
                   int64_t* n_out, tc_tensor* saved, int64_t* n_saved) {
  (void)needs;
  static_cast<SquareCtx*>(c)->forwards++;
  if (n != 2)
    return tc_set_last_error(TC_ERR_INVALID_ARGUMENT, "square wants 2 inputs"), TC_ERR_INVALID_ARGUMENT;
  tc_tensor xx = nullptr;
  int32_t rc = tc_mul(in[0], in[0], &xx);
  if (rc) return rc;
  rc = tc_mul(xx, in[1], &out[0]);
  tc_tensor_free(xx);
  if (rc) return rc;
  *n_out = 1;
  tc_tensor_retain(in[0], &saved[0]);
  tc_tensor_retain(in[1], &saved[1]);
  *n_saved = 2;
  return TC_OK;
}

int32_t sq_backward(void* c, const tc_tensor* saved, int64_t, const tc_tensor* g, int64_t,
                    const int32_t* needs, tc_tensor* gin, int64_t) {
  static_cast<SquareCtx*>(c)->backwards++;
  tc_tensor xg = nullptr, xw = nullptr, xx = nullptr;
  tc_mul(saved[0], g[0], &xg);
  if (needs[0]) {
    tc_mul(xg, saved[1], &xw);
    tc_mul_scalar(xw, 2.0, &gin[0]);
    tc_tensor_free(xw);
  }
  if (needs[1]) {
    tc_mul(saved[0], saved[0], &xx);
    tc_mul(xx, g[0], &gin[1]);
    tc_tensor_free(xx);
  }
  tc_tensor_free(xg);
  return TC_OK;
}

void sq_release(void*, void* c) { static_cast<SquareCtx*>(c)->releases++; }

tc_function_def square_def(SquareCtx* ctx) {
  tc_function_def d{};
  d.size = sizeof d;
  d.name = "SquareTimesBackward";
  d.forward = sq_forward;
  d.backward = sq_backward;
  d.context = ctx;
  d.release = sq_release;
  return d;
}

tc::Tensor apply_one(const tc_function_def& d, const std::vector<tc::Tensor>& xs) {
  std::vector<tc_tensor> hs;
  for (const auto& x : xs) hs.push_back(tc::new_handle(x));
  tc_tensor out[2] = {nullptr, nullptr};
  int64_t n = -1;
  const int32_t rc = tc_function_apply(&d, hs.data(), int64_t(hs.size()), out, 2, &n);
  for (tc_tensor h : hs) tc_tensor_free(h);
  EXPECT_EQ(rc, TC_OK) << last_error();
  if (rc != TC_OK) return nullptr;
  EXPECT_EQ(n, 1);
  tc::Tensor t = tc::get_tensor(out[0], "out");
  tc_tensor_free(out[0]);
  return t;
}

class CustomFunction : public TcTest {};

TEST_F(CustomFunction, Gradcheck) {
  SquareCtx ctx;
  {
    const tc_function_def d = square_def(&ctx);
    EXPECT_TRUE(gradcheck([&](const Inputs& x) { return apply_one(d, x); }, {randn({3, 4}), randn({3, 4})}));
    EXPECT_TRUE(gradcheck([&](const Inputs& x) { return apply_one(d, x); }, {randn({2, 3}), randn({2, 3})}));
  }
  EXPECT_GT(ctx.forwards, 0);
  EXPECT_GT(ctx.backwards, 0);
  EXPECT_EQ(ctx.releases, ctx.forwards) << "every apply releases its context exactly once";
  EXPECT_EQ(live_handles(), 0);
}

TEST_F(CustomFunction, NodeNameNeedsInputGradAndNoRecordWithoutGrad) {
  SquareCtx ctx;
  const tc_function_def d = square_def(&ctx);
  tc::Tensor x = randn({3}), w = randn({3});
  x->requires_grad = true;
  {
    tc::Tensor y = apply_one(d, {x, w});
    ASSERT_TRUE(y && y->grad_fn);
    EXPECT_STREQ(y->grad_fn->name(), "SquareTimesBackward");
    EXPECT_EQ(ctx.releases, 0) << "the node holds the context";
    tc::autograd::backward(tc::ops::sum(y, {}, false), nullptr, false);
    EXPECT_EQ(ctx.backwards, 1);
    EXPECT_FALSE(w->grad());
    ASSERT_TRUE(x->grad());
  }
  EXPECT_EQ(ctx.releases, 1) << "released with its graph";
  tc::NoGradGuard ng;
  tc::Tensor z = apply_one(d, {x, w});
  EXPECT_FALSE(z->grad_fn);
  EXPECT_EQ(ctx.releases, 2);
}

int32_t failing_backward(void*, const tc_tensor*, int64_t, const tc_tensor*, int64_t, const int32_t*,
                         tc_tensor*, int64_t) {
  tc_set_last_error(TC_ERR_CALLBACK, "ValueError: no gradient today");
  return TC_ERR_CALLBACK;
}
int32_t odd_status_forward(void*, const tc_tensor*, int64_t, const int32_t*, tc_tensor*, int64_t*, tc_tensor*,
                           int64_t*) {
  return 12345;
}
// Misbehaving forwards: frees the handle it was lent, stores one past the call, writes garbage.
tc_tensor g_stored = nullptr;
int32_t freeing_forward(void*, const tc_tensor* in, int64_t, const int32_t*, tc_tensor* out, int64_t* n_out,
                        tc_tensor*, int64_t*) {
  tc_tensor_retain(in[0], &out[0]);
  *n_out = 1;
  g_stored = in[0];
  return tc_tensor_free(in[0]);
}
int32_t garbage_forward(void*, const tc_tensor*, int64_t, const int32_t*, tc_tensor* out, int64_t* n_out,
                        tc_tensor* saved, int64_t* n_saved) {
  out[0] = reinterpret_cast<tc_tensor>(uintptr_t(0x1234567));
  *n_out = 1;
  *n_saved = 1;  // saved[0] left NULL: a NULL saved tensor is allowed
  (void)saved;
  return TC_OK;
}
int32_t too_many_forward(void*, const tc_tensor*, int64_t, const int32_t*, tc_tensor*, int64_t* n_out,
                         tc_tensor*, int64_t*) {
  *n_out = TC_FUNCTION_MAX_OUTPUTS + 1;
  return TC_OK;
}
int32_t shutdown_forward(void*, const tc_tensor* in, int64_t, const int32_t*, tc_tensor* out, int64_t* n_out,
                         tc_tensor*, int64_t*) {
  tc_tensor_retain(in[0], &out[0]);
  *n_out = 1;
  return tc_shutdown();
}

TEST_F(CustomFunction, CallbackFailuresAreStatusesWithMessages) {
  SquareCtx ctx;
  tc_function_def d = square_def(&ctx);
  d.backward = failing_backward;
  tc::Tensor x = randn({3}), w = randn({3});
  x->requires_grad = true;
  tc::Tensor y = apply_one(d, {x, w});
  tc_tensor root = tc::new_handle(tc::ops::sum(y, {}, false));
  EXPECT_EQ(tc_backward(root, nullptr, 1), TC_ERR_CALLBACK);
  EXPECT_NE(last_error().find("ValueError: no gradient today"), std::string::npos) << last_error();
  EXPECT_NE(last_error().find("tc_backward"), std::string::npos) << last_error();
  tc_tensor_free(root);

  tc_tensor hx = tc::new_handle(x), out[2] = {nullptr, nullptr};
  int64_t n = -5;
  auto expect_fail = [&](tc_function_forward fwd, int32_t code, const char* what) {
    tc_function_def e = square_def(&ctx);
    e.forward = fwd;
    const int before = ctx.releases;
    const int64_t handles = live_handles();
    EXPECT_EQ(tc_function_apply(&e, &hx, 1, out, 2, &n), code) << what << ": " << last_error();
    EXPECT_EQ(out[0], nullptr) << what;
    EXPECT_EQ(n, -5) << what;
    EXPECT_EQ(ctx.releases, before + 1) << what << ": released once on failure";
    EXPECT_EQ(live_handles(), handles) << what << ": no handle lost or leaked";
  };
  expect_fail(odd_status_forward, TC_ERR_CALLBACK, "an unknown status");
  {
    // Freeing a lent handle is the callback's business (libtc's own free of it
    // then finds nothing); storing one past the call leaves a dead handle.
    tc_function_def f = square_def(&ctx);
    f.forward = freeing_forward;
    const int64_t handles = live_handles();
    EXPECT_EQ(tc_function_apply(&f, &hx, 1, out, 2, &n), TC_OK) << last_error();
    EXPECT_EQ(n, 1);
    EXPECT_EQ(tc_tensor_free(out[0]), TC_OK);
    EXPECT_EQ(live_handles(), handles);
    EXPECT_EQ(tc_tensor_free(g_stored), TC_ERR_INVALID_HANDLE) << "a lent handle is dead after the call";
    out[0] = nullptr;
    n = -5;
  }
  expect_fail(garbage_forward, TC_ERR_INVALID_HANDLE, "writes a forged handle");
  expect_fail(too_many_forward, TC_ERR_CALLBACK, "too many outputs");
  // cap too small
  tc_function_def e = square_def(&ctx);
  tc_tensor two[2] = {hx, tc::new_handle(w)};
  EXPECT_EQ(tc_function_apply(&e, two, 2, out, 0, &n), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(n, -5);
  tc_tensor_free(two[1]);
  tc_tensor_free(hx);
}

TEST(CustomFunctionShutdown, ShutdownInsideForwardFailsTheCall) {
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  SquareCtx ctx;
  tc_function_def d = square_def(&ctx);
  d.forward = shutdown_forward;
  std::vector<int64_t> s = {2};
  tc_tensor x = nullptr, out[1] = {nullptr};
  ASSERT_EQ(tc_ones(s.data(), 1, TC_FLOAT32, TC_CPU, &x), TC_OK);
  int64_t n = -1;
  EXPECT_EQ(tc_function_apply(&d, &x, 1, out, 1, &n), TC_ERR_NOT_INITIALIZED) << last_error();
  EXPECT_EQ(out[0], nullptr);
  EXPECT_EQ(ctx.releases, 1);
  int32_t up = -1;
  tc_is_initialized(&up);
  EXPECT_EQ(up, 0);
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  EXPECT_EQ(live_handles(), 0);
  EXPECT_EQ(tc_shutdown(), TC_OK);
}

// ---- hooks ----

struct HookLog {
  std::vector<std::string> calls;
  double scale = 1;
  int releases = 0;
};
struct HookArg {
  HookLog* log;
  std::string name;
  double scale;
};
int32_t log_hook(void* c, tc_tensor g, tc_tensor* replacement) {
  auto* a = static_cast<HookArg*>(c);
  double first = 0;
  tc_tensor flat = nullptr;
  tc_reshape(g, std::vector<int64_t>{-1}.data(), 1, &flat);
  tc_tensor e = nullptr;
  tc_select(flat, 0, 0, &e);
  tc_tensor_item(e, &first);
  tc_tensor_free(e);
  tc_tensor_free(flat);
  a->log->calls.push_back(a->name + ":" + std::to_string(int(first)));
  if (a->scale != 1) return tc_mul_scalar(g, a->scale, replacement);
  return TC_OK;
}
int32_t post_hook(void* c, tc_tensor t) {
  auto* a = static_cast<HookArg*>(c);
  tc_tensor g = nullptr;
  tc_tensor_grad(t, &g);
  double v = -1;
  tc_tensor e = nullptr;
  tc_select(g, 0, 0, &e);
  tc_tensor_item(e, &v);
  tc_tensor_free(e);
  tc_tensor_free(g);
  a->log->calls.push_back(a->name + ":" + std::to_string(int(v)));
  return TC_OK;
}
void hook_release(void*, void* c) { static_cast<HookArg*>(c)->log->releases++; }

class Hooks : public TcTest {};

TEST_F(Hooks, OrderReplacementRemovalAndPostAccumulate) {
  HookLog log;
  HookArg a{&log, "a", 2}, b{&log, "b", 1}, c{&log, "c", 3}, p{&log, "post", 1}, n{&log, "nonleaf", 1};
  std::vector<int64_t> s = {2};
  tc_tensor x = nullptr;
  ASSERT_TRUE(ok(tc_ones(s.data(), 1, TC_FLOAT32, TC_CPU, &x)));
  ASSERT_TRUE(ok(tc_tensor_set_requires_grad(x, 1)));
  tc_hook ha = nullptr, hb = nullptr, hc = nullptr, hp = nullptr, hn = nullptr;
  ASSERT_TRUE(ok(tc_tensor_register_hook(x, log_hook, &a, hook_release, &ha)));
  ASSERT_TRUE(ok(tc_tensor_register_post_accumulate_grad_hook(x, post_hook, &p, hook_release, &hp)));
  ASSERT_TRUE(ok(tc_tensor_register_hook(x, log_hook, &b, hook_release, &hb)));
  ASSERT_TRUE(ok(tc_tensor_register_hook(x, log_hook, &c, hook_release, &hc)));
  auto step = [&] {
    tc_tensor y = nullptr, z = nullptr;
    tc_mul_scalar(x, 5, &y);  // dL/dy = 1, dL/dx = 5
    tc_hook h = nullptr;
    ASSERT_TRUE(ok(tc_tensor_register_hook(y, log_hook, &n, hook_release, &h)));
    tc_sum(y, nullptr, 0, 0, &z);
    ASSERT_TRUE(ok(tc_backward(z, nullptr, 0)));
    tc_hook_remove(h);
    tc_tensor_free(y);
    tc_tensor_free(z);
  };
  step();
  // Registration order, each on the previous one's result; post after accumulation.
  EXPECT_EQ(log.calls, (std::vector<std::string>{"nonleaf:1", "a:5", "b:10", "c:10", "post:30"}));
  tc_tensor g = nullptr;
  tc_tensor_grad(x, &g);
  EXPECT_EQ(vals(g), (std::vector<double>{30, 30}));
  tc_tensor_free(g);
  EXPECT_EQ(log.releases, 1) << "the non-leaf hook was released on removal";
  ASSERT_TRUE(ok(tc_hook_remove(hb)));
  EXPECT_EQ(tc_hook_remove(hb), TC_ERR_INVALID_HANDLE) << "removed twice";
  EXPECT_NE(last_error().find("tc_hook_remove"), std::string::npos);
  EXPECT_EQ(log.releases, 2);
  tc_tensor_clear_grad(x);
  log.calls.clear();
  step();
  EXPECT_EQ(log.calls, (std::vector<std::string>{"nonleaf:1", "a:5", "c:10", "post:30"}));
  ASSERT_TRUE(ok(tc_hook_remove(ha)));
  ASSERT_TRUE(ok(tc_hook_remove(hc)));
  // The post hook dies with its tensor even if never removed; its handle stays removable.
  tc_tensor_free(x);
  EXPECT_EQ(log.releases, 6);
  EXPECT_EQ(tc_hook_remove(hp), TC_OK);
  EXPECT_EQ(tc_hook_remove(hp), TC_ERR_INVALID_HANDLE);
  (void)hn;
  EXPECT_EQ(live_handles(), 0);
}

int32_t bad_shape_hook(void*, tc_tensor, tc_tensor* replacement) {
  std::vector<int64_t> s = {7};
  return tc_zeros(s.data(), 1, TC_FLOAT32, TC_CPU, replacement);
}
int32_t failing_hook(void*, tc_tensor, tc_tensor*) { return TC_ERR_INVALID_ARGUMENT; }
int32_t shutdown_hook(void*, tc_tensor) { return tc_shutdown(); }

TEST_F(Hooks, MisuseGivesErrors) {
  std::vector<int64_t> s = {2};
  tc_tensor x = nullptr, y = nullptr, z = nullptr;
  ASSERT_TRUE(ok(tc_ones(s.data(), 1, TC_FLOAT32, TC_CPU, &x)));
  tc_hook h = nullptr;
  EXPECT_EQ(tc_tensor_register_hook(x, log_hook, nullptr, nullptr, &h), TC_ERR_AUTOGRAD)
      << "no requires_grad";
  EXPECT_EQ(h, nullptr);
  tc_tensor_set_requires_grad(x, 1);
  tc_mul_scalar(x, 2, &y);
  EXPECT_EQ(tc_tensor_register_post_accumulate_grad_hook(y, post_hook, nullptr, nullptr, &h),
            TC_ERR_AUTOGRAD);
  ASSERT_TRUE(ok(tc_tensor_register_hook(x, bad_shape_hook, nullptr, nullptr, &h)));
  tc_sum(y, nullptr, 0, 0, &z);
  EXPECT_EQ(tc_backward(z, nullptr, 1), TC_ERR_AUTOGRAD) << last_error();
  tc_hook_remove(h);
  ASSERT_TRUE(ok(tc_tensor_register_hook(x, failing_hook, nullptr, nullptr, &h)));
  EXPECT_EQ(tc_backward(z, nullptr, 1), TC_ERR_INVALID_ARGUMENT) << last_error();
  EXPECT_NE(last_error().find("no message"), std::string::npos) << last_error();
  tc_hook_remove(h);
  ASSERT_TRUE(ok(tc_backward(z, nullptr, 1)));
  for (tc_tensor t : {x, y, z}) tc_tensor_free(t);
}

TEST(HooksShutdown, ShutdownInsideAHookFailsTheBackward) {
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  std::vector<int64_t> s = {2};
  tc_tensor x = nullptr, z = nullptr;
  tc_hook h = nullptr;
  ASSERT_EQ(tc_ones(s.data(), 1, TC_FLOAT32, TC_CPU, &x), TC_OK);
  tc_tensor_set_requires_grad(x, 1);
  ASSERT_EQ(tc_tensor_register_post_accumulate_grad_hook(x, shutdown_hook, nullptr, nullptr, &h), TC_OK);
  tc_sum(x, nullptr, 0, 0, &z);
  EXPECT_EQ(tc_backward(z, nullptr, 0), TC_ERR_NOT_INITIALIZED) << last_error();
  EXPECT_EQ(tc_hook_remove(h), TC_ERR_NOT_INITIALIZED);
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  EXPECT_EQ(live_handles(), 0);
  EXPECT_EQ(tc_hook_remove(h), TC_ERR_INVALID_HANDLE) << "stale";
  EXPECT_EQ(tc_shutdown(), TC_OK);
}

// ---- the graph ----

std::string node_name(tc_node n) {
  char buf[64] = {};
  tc_node_name(n, buf, sizeof buf, nullptr);
  return buf;
}

TEST_F(Hooks, GraphNodesAndNextFunctions) {
  std::vector<int64_t> s = {2};
  tc_tensor x = nullptr, c = nullptr, y = nullptr, z = nullptr;
  tc_ones(s.data(), 1, TC_FLOAT32, TC_CPU, &x);
  tc_ones(s.data(), 1, TC_FLOAT32, TC_CPU, &c);
  tc_tensor_set_requires_grad(x, 1);
  tc_mul(x, c, &y);
  tc_sum(y, nullptr, 0, 0, &z);
  tc_node leafn = reinterpret_cast<tc_node>(1), root = nullptr, mul = nullptr, acc = nullptr, none = nullptr,
          mul2 = nullptr;
  ASSERT_TRUE(ok(tc_tensor_grad_fn(x, &leafn)));
  EXPECT_EQ(leafn, nullptr);
  ASSERT_TRUE(ok(tc_tensor_grad_fn(z, &root)));
  EXPECT_EQ(node_name(root), "SumBackward");
  int64_t count = -1, nr = -1;
  ASSERT_TRUE(ok(tc_node_next_count(root, &count)));
  EXPECT_EQ(count, 1);
  ASSERT_TRUE(ok(tc_node_next(root, 0, &mul, &nr)));
  EXPECT_EQ(node_name(mul), "MulBackward");
  EXPECT_EQ(nr, 0);
  tc_node_next_count(mul, &count);
  EXPECT_EQ(count, 2);
  ASSERT_TRUE(ok(tc_node_next(mul, 0, &acc, &nr)));
  EXPECT_EQ(node_name(acc), "AccumulateGrad");
  ASSERT_TRUE(ok(tc_node_next(mul, 1, &none, &nr)));
  EXPECT_EQ(none, nullptr) << "c needs no gradient";
  EXPECT_EQ(tc_node_next(mul, 2, &none, &nr), TC_ERR_INDEX);
  tc_tensor_grad_fn(y, &mul2);
  int32_t same = -1;
  ASSERT_TRUE(ok(tc_node_same(mul, mul2, &same)));
  EXPECT_EQ(same, 1);
  tc_node_same(mul, root, &same);
  EXPECT_EQ(same, 0);
  for (tc_node n : {root, mul, acc, mul2}) EXPECT_EQ(tc_node_free(n), TC_OK);
  EXPECT_EQ(tc_node_free(root), TC_ERR_INVALID_HANDLE);
  for (tc_tensor t : {x, c, y, z}) tc_tensor_free(t);
}

}  // namespace
