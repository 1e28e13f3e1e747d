// The misuse suite: every tc_* function of tc.h, called the wrong way.
//
// A table (kTable below) names each function with
//  - a signature string, one letter per argument (and per element of an
//    array argument), saying which misuses apply to it:
//      H  tensor handle         NULL, freed, stale, garbage, wrong-kind handle
//      h  optional tensor       freed, stale, garbage, wrong-kind (NULL is fine)
//      Z  optimizer handle      NULL, freed, stale, garbage, wrong-kind handle
//      D  tensor dict handle    NULL, freed, stale, garbage, wrong-kind handle
//      K  hook handle           NULL, freed (removed), stale, garbage, wrong-kind handle
//      N  node handle           NULL, freed, stale, garbage, wrong-kind handle
//      G  process group handle  NULL, freed, stale, garbage, wrong-kind handle
//      W  work handle           NULL, freed, stale, garbage, wrong-kind handle
//      L  library handle        NULL, freed (unloaded), stale, garbage, wrong-kind handle
//      Q  op handle             NULL, freed, stale, garbage, wrong-kind handle
//      O  handle out-param      NULL
//      P  required pointer      NULL (in-pointers and plain out-params)
//      p  optional pointer      nothing (NULL is documented as allowed)
//      -  a value               only through the entry's extra cases
//  - one call that is valid with the fixtures (checked to succeed, so every
//    failure below is due to the one argument that was spoiled),
//  - extra cases: out-of-range dtype/device/reduction codes and dims, int64
//    overflowing shapes, mismatched buffer sizes, wrong dtypes and shapes.
// Every function is also called after tc_shutdown (stale handles) and, in a
// fresh process (a gtest death-test child), before the first tc_init.
//
// Each failing case must return the expected status, leave a message that
// names the function (tc_last_error) and the same code (tc_last_error_code),
// and leave every out-param untouched (handle out-params included).
// TableCoversEveryFunction parses include/tc.h (TC_HEADER_PATH) at run time.
//
// Functions are reached through weak references so that this file builds
// while the ABI is being filled in; EveryFunctionIsLinked fails for any
// function declared in tc.h that libtc does not define.
//
// The shared parts are in misuse_harness.h, the rows in misuse_table_*.cpp.

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "misuse_harness.h"
#include "tc_scalar_ops.h"

namespace misuse {

std::vector<Entry> build_table() {
  std::vector<Entry> t;
  add_core_rows(t);
  add_creation_rows(t);
  add_views_rows(t);
  add_generated_rows(t);
  add_nn_rows(t);
  add_shape_indexing_rows(t);
  add_shape_creation_rows(t);
  add_autograd_rows(t);
  add_op_library_rows(t);
  add_optim_rows(t);
  add_io_rows(t);
  add_dlpack_rows(t);
  add_dist_rows(t);
  add_cuda_rows(t);
  return t;
}

const std::vector<Entry>& table() {
  static const std::vector<Entry> t = build_table();
  return t;
}

// ---- the driver ----

const uint8_t kPattern = 0xA5;
tc_tensor sentinel_handle() {
  uintptr_t v;
  std::memset(&v, kPattern, sizeof v);
  return reinterpret_cast<tc_tensor>(v);
}

int64_t live_handles() {
  int64_t v = -1;
  tc_get_flag("live_handles", &v);
  return v;
}

std::string codes_str(const std::vector<int32_t>& codes) {
  std::string s;
  for (int32_t c : codes) {
    const char* n = "?";
    tc_status_name(c, &n);
    s += (s.empty() ? "" : " or ") + std::string(n ? n : "?");
  }
  return s;
}
std::string code_str(int32_t c) {
  const char* n = nullptr;
  if (tc_status_name(c, &n) == TC_OK && n) return n;
  return "status " + std::to_string(c);
}

// Frees whatever a successful call handed out.
void cleanup_success(const Entry& e, M& m) {
  for (tc_tensor* p : m.used_h)
    if (*p && *p != sentinel_handle()) tc_tensor_free(*p);
  for (tc_optimizer* p : m.used_opt)
    if (*p && reinterpret_cast<tc_tensor>(*p) != sentinel_handle()) tc_optimizer_free(*p);
  for (tc_tensor_dict* p : m.used_dict)
    if (*p && reinterpret_cast<tc_tensor>(*p) != sentinel_handle()) tc_tensor_dict_free(*p);
  if (m.hs_used) {
    const int64_t n = m.o.i64[0];
    for (int64_t i = 0; i < n && i < 8; ++i)
      if (m.o.hs[i] && m.o.hs[i] != sentinel_handle()) tc_tensor_free(m.o.hs[i]);
  }
  if (e.cleanup) e.cleanup(m);
}

// Runs one case and checks everything a failing call promises. Returns the
// status so callers can count.
void run_case(const Entry& e, const std::string& what, M& m, const Call& call,
              const std::vector<int32_t>& expected, bool initialized = true) {
  SCOPED_TRACE(std::string(e.name) + ": " + what);
  m.reset();
  const int64_t handles_before = initialized ? live_handles() : 0;
  const int32_t rc = call(m);
  int32_t code = -1;
  std::string msg;
  if (m.snap) {
    code = m.snap_code;
    msg = m.snap_msg;
  } else {
    tc_last_error_code(&code);
    const char* p = nullptr;
    tc_last_error(&p);
    msg = p ? p : "";
  }
  bool ok_expected = false;
  for (int32_t c : expected) ok_expected |= (c == rc);
  EXPECT_TRUE(ok_expected) << e.name << " (" << what << ") returned " << code_str(rc) << ", expected "
                           << codes_str(expected) << "; message: " << msg;
  if (rc == TC_OK) {
    cleanup_success(e, m);
  } else {
    EXPECT_EQ(code, rc) << "tc_last_error_code after " << e.name;
    EXPECT_FALSE(msg.empty()) << e.name << " failed without a message";
    EXPECT_NE(msg.find(e.name), std::string::npos) << "the message does not name " << e.name << ": " << msg;
    // Out-params untouched (tc.h), handle out-params included: a caller
    // that initialized its handle to NULL sees NULL.
    Outs rest = m.o;
    auto blank = [&](const void* field, size_t n) {
      std::memset(reinterpret_cast<char*>(&rest) +
                      (static_cast<const char*>(field) - reinterpret_cast<const char*>(&m.o)),
                  kPattern, n);
    };
    for (tc_tensor* p : m.used_h)
      EXPECT_EQ(*p, sentinel_handle()) << "a failed " << e.name << " wrote its handle out-param";
    for (tc_optimizer* p : m.used_opt)
      EXPECT_EQ(reinterpret_cast<tc_tensor>(*p), sentinel_handle())
          << "a failed " << e.name << " wrote its optimizer out-param";
    for (tc_tensor_dict* p : m.used_dict)
      EXPECT_EQ(reinterpret_cast<tc_tensor>(*p), sentinel_handle())
          << "a failed " << e.name << " wrote its dict out-param";
    if (m.hs_used) {
      for (tc_tensor& h : m.o.hs)
        EXPECT_EQ(h, sentinel_handle()) << "a failed " << e.name << " wrote a handle";
    }
    blank(&m.o.stage.size, sizeof m.o.stage.size);  // inputs, set by the call's lambda
    blank(&m.o.cms.size, sizeof m.o.cms.size);
    const auto* bytes = reinterpret_cast<const uint8_t*>(&rest);
    size_t changed = sizeof rest;
    for (size_t i = 0; i < sizeof rest; ++i)
      if (bytes[i] != kPattern) {
        changed = i;
        break;
      }
    EXPECT_EQ(changed, sizeof rest) << "a failed " << e.name << " wrote an out-param (byte " << changed
                                    << " of the out-param block)";
  }
  if (initialized) {
    EXPECT_EQ(live_handles(), handles_before) << e.name << " (" << what << ") leaked or lost a handle";
  }
}

// Fixture values for runs where libtc is not initialized: plausible-looking
// handles that were never made.
void fake_fixtures(Fixtures& f) {
  tc_tensor* ts[] = {&f.a,   &f.b,   &f.bt,   &f.v,     &f.s,     &f.cond,    &f.ia,   &f.cls,
                     &f.img, &f.w,   &f.bias, &f.emb,   &f.p,     &f.leaf,    &f.lw,   &f.lb,
                     &f.t3,  &f.i32, &f.piv,  &f.freed, &f.stale, &f.garbage, &f.wrong};
  uint64_t v = (uint64_t(7) << 32) | (uint64_t(1) << 24) | 1;
  for (tc_tensor* t : ts) *t = reinterpret_cast<tc_tensor>(v++);
  f.opt = f.opt_freed = f.opt_stale = f.opt_garbage = f.opt_wrong =
      reinterpret_cast<tc_optimizer>((uint64_t(7) << 32) | (uint64_t(2) << 24) | 1);
  f.dict = f.dict_freed = f.dict_stale = f.dict_garbage = f.dict_wrong =
      reinterpret_cast<tc_tensor_dict>((uint64_t(7) << 32) | (uint64_t(3) << 24) | 1);
  f.np = reinterpret_cast<tc_tensor>(v++);
  f.hook = f.hook_freed = f.hook_stale = f.hook_garbage = f.hook_wrong =
      reinterpret_cast<tc_hook>((uint64_t(7) << 32) | (uint64_t(4) << 24) | 1);
  f.node = f.node_freed = f.node_stale = f.node_garbage = f.node_wrong =
      reinterpret_cast<tc_node>((uint64_t(7) << 32) | (uint64_t(5) << 24) | 1);
  f.pg = f.pg_freed = f.pg_stale = f.pg_garbage = f.pg_wrong =
      reinterpret_cast<tc_process_group>((uint64_t(7) << 32) | (uint64_t(8) << 24) | 1);
  f.work = f.work_freed = f.work_stale = f.work_garbage = f.work_wrong =
      reinterpret_cast<tc_work>((uint64_t(7) << 32) | (uint64_t(9) << 24) | 1);
  f.op = f.op_freed = f.op_stale = f.op_garbage = f.op_wrong =
      reinterpret_cast<tc_op>((uint64_t(7) << 32) | (uint64_t(6) << 24) | 1);
  f.lib = f.lib_freed = f.lib_stale = f.lib_garbage = f.lib_wrong =
      reinterpret_cast<tc_library>((uint64_t(7) << 32) | (uint64_t(7) << 24) | 1);
}

const Bad kHandleMisuses[] = {Bad::null, Bad::freed, Bad::stale, Bad::garbage, Bad::pointer, Bad::wrong_kind};

// The number of cases the table makes (for the report in docs/RELIABILITY.md).
size_t case_count(const Entry& e) {
  size_t n = 1 + e.extras.size() + 2;  // valid, extras, after shutdown, before init
  for (char c : e.sig) {
    if (c == 'H' || c == 'Z' || c == 'D' || c == 'K' || c == 'N' || c == 'G' || c == 'W' || c == 'L' ||
        c == 'Q')
      n += 6;
    if (c == 'h') n += 5;
    if (c == 'O' || c == 'P') n += 1;
  }
  return n;
}

class MisuseFn : public ::testing::TestWithParam<size_t> {
 protected:
  M m;
  void SetUp() override {
    int32_t init = -1;
    tc_is_initialized(&init);
    ASSERT_EQ(init, 0) << "a previous test left libtc initialized";
    // A tensor (and optimizer) from before a shutdown: stale afterwards.
    ASSERT_EQ(tc_init(nullptr), TC_OK);
    m.f.stale = make(TC_FLOAT32, {2, 3});
    tc_tensor sp = make(TC_FLOAT32, {2});
    if (HAVE(tc_tensor_set_requires_grad) && tc_tensor_set_requires_grad(sp, 1) == TC_OK)
      m.f.opt_stale = make_sgd(sp);
    if (HAVE(tc_tensor_dict_create)) tc_tensor_dict_create(&m.f.dict_stale);
    if (HAVE(tc_tensor_register_hook) && HAVE(tc_tensor_grad_fn) && HAVE(tc_mul_scalar)) {
      tc_tensor sq = nullptr;
      tc_tensor_register_hook(sp, noop_grad_hook, nullptr, nullptr, &m.f.hook_stale);
      tc_mul_scalar(sp, 2, &sq);
      tc_tensor_grad_fn(sq, &m.f.node_stale);
    }
    const bool group = needs_group(table()[GetParam()]);
    if (group) {
      m.f.pg_stale = make_group();
      m.f.work_stale = make_work(m.f.pg_stale);
    }
    if (HAVE(tc_load_library) && HAVE(tc_op_find)) {
      tc_load_library(TC_EXAMPLE_OP_LIBRARY, &m.f.lib_stale);
      tc_op_find("myops::scaled_square", &m.f.op_stale);
    }
    ASSERT_EQ(tc_shutdown(), TC_OK);
    ASSERT_EQ(tc_init(nullptr), TC_OK);

    Fixtures& f = m.f;
    f.a = make_f32({2, 3});
    f.b = make_f32({2, 3}, 1.0f);
    f.bt = make_f32({3, 2});
    f.v = make_f32({3});
    f.s = make_f32({});
    f.img = make_f32({1, 2, 4, 4});
    f.w = make_f32({3, 2, 3, 3});
    f.bias = make_f32({3});
    f.emb = make_f32({4, 3});
    f.p = make_f32({2, 3});
    f.leaf = make_f32({2, 3});
    f.lw = make_f32({4, 3});
    f.lb = make_f32({4});
    f.t3 = make_f32({2, 4, 4});
    f.cond = make(TC_BOOL, {2, 3});
    f.i32 = make(TC_INT32, {2, 3});
    f.piv = make(TC_INT32, {2, 4});
    f.z = make(TC_COMPLEX64, {2, 3});
    f.pairs = make_f32({3, 2});
    f.ia = make_i64({2, 3}, {0, 1, 0, 1, 1, 0});
    f.cls = make_i64({2}, {0, 2});
    ASSERT_TRUE(f.a && f.b && f.bt && f.v && f.s && f.img && f.w && f.bias && f.emb && f.p && f.leaf &&
                f.lw && f.lb && f.t3 && f.cond && f.i32 && f.piv && f.ia && f.cls && f.z && f.pairs);
    if (HAVE(tc_tensor_set_requires_grad)) {
      ASSERT_EQ(tc_tensor_set_requires_grad(f.p, 1), TC_OK);
    }
    f.opt = make_sgd(f.p);

    f.freed = make(TC_FLOAT32, {2});
    tc_tensor_free(f.freed);
    const uint64_t live = reinterpret_cast<uint64_t>(f.a);
    f.garbage = reinterpret_cast<tc_tensor>(live + (uint64_t(1000) << 32));  // same slot, other generation
    if (f.opt) {
      f.wrong = reinterpret_cast<tc_tensor>(f.opt);
      f.opt_garbage =
          reinterpret_cast<tc_optimizer>(reinterpret_cast<uint64_t>(f.opt) + (uint64_t(1000) << 32));
      f.opt_freed = make_sgd(f.p);
      tc_optimizer_free(f.opt_freed);
    } else {
      // No optimizers yet: flip the kind bits of a live tensor handle.
      f.wrong = reinterpret_cast<tc_tensor>((live & ~(uint64_t(0xff) << 24)) | (uint64_t(2) << 24));
      f.opt_garbage = reinterpret_cast<tc_optimizer>((uint64_t(1000) << 32) | (uint64_t(2) << 24) | 1);
      f.opt_freed = reinterpret_cast<tc_optimizer>((uint64_t(1) << 32) | (uint64_t(2) << 24) | 0xfffff0);
    }
    if (!f.opt_stale)
      f.opt_stale = reinterpret_cast<tc_optimizer>((uint64_t(2) << 32) | (uint64_t(2) << 24) | 0xfffff1);
    f.opt_wrong = reinterpret_cast<tc_optimizer>(f.a);
    f.dict = make_dict(f.a);
    if (f.dict) {
      f.dict_garbage =
          reinterpret_cast<tc_tensor_dict>(reinterpret_cast<uint64_t>(f.dict) + (uint64_t(1000) << 32));
      f.dict_freed = make_dict(f.a);
      tc_tensor_dict_free(f.dict_freed);
    } else {
      f.dict_garbage = reinterpret_cast<tc_tensor_dict>((uint64_t(1000) << 32) | (uint64_t(3) << 24) | 1);
      f.dict_freed = reinterpret_cast<tc_tensor_dict>((uint64_t(1) << 32) | (uint64_t(3) << 24) | 0xfffff0);
    }
    if (!f.dict_stale)
      f.dict_stale = reinterpret_cast<tc_tensor_dict>((uint64_t(2) << 32) | (uint64_t(3) << 24) | 0xfffff1);
    f.dict_wrong = reinterpret_cast<tc_tensor_dict>(f.a);
    if (HAVE(tc_tensor_register_hook) && HAVE(tc_tensor_grad_fn) && HAVE(tc_mul_scalar)) {
      ASSERT_EQ(tc_mul_scalar(f.p, 2, &f.np), TC_OK);
      ASSERT_EQ(tc_tensor_grad_fn(f.np, &f.node), TC_OK);
      ASSERT_EQ(tc_tensor_register_hook(f.p, noop_grad_hook, nullptr, nullptr, &f.hook), TC_OK);
      tc_tensor_register_hook(f.p, noop_grad_hook, nullptr, nullptr, &f.hook_freed);
      tc_hook_remove(f.hook_freed);
      tc_tensor_grad_fn(f.np, &f.node_freed);
      tc_node_free(f.node_freed);
      f.hook_garbage = reinterpret_cast<tc_hook>(reinterpret_cast<uint64_t>(f.hook) + (uint64_t(1000) << 32));
      f.node_garbage = reinterpret_cast<tc_node>(reinterpret_cast<uint64_t>(f.node) + (uint64_t(1000) << 32));
      f.hook_wrong = reinterpret_cast<tc_hook>(f.node);
      f.node_wrong = reinterpret_cast<tc_node>(f.hook);
    }
    if (group && (f.pg = make_group()) != nullptr) {
      f.work = make_work(f.pg);
      f.pg_freed = make_group();
      tc_process_group_free(f.pg_freed);
      f.work_freed = make_work(f.pg);
      tc_work_free(f.work_freed);
      f.pg_garbage =
          reinterpret_cast<tc_process_group>(reinterpret_cast<uint64_t>(f.pg) + (uint64_t(1000) << 32));
      f.work_garbage = reinterpret_cast<tc_work>(reinterpret_cast<uint64_t>(f.work) + (uint64_t(1000) << 32));
      f.pg_wrong = reinterpret_cast<tc_process_group>(f.work);
      f.work_wrong = reinterpret_cast<tc_work>(f.pg);
    }
    if (HAVE(tc_load_library) && HAVE(tc_op_find)) {
      ASSERT_EQ(tc_load_library(TC_EXAMPLE_OP_LIBRARY, &f.lib), TC_OK);
      ASSERT_EQ(tc_op_find("myops::scaled_square", &f.op), TC_OK);
      tc_load_library(TC_EXAMPLE_OP_LIBRARY, &f.lib_freed);
      tc_library_unload(f.lib_freed);
      tc_op_find("myops::scaled_square", &f.op_freed);
      tc_op_free(f.op_freed);
      f.lib_garbage =
          reinterpret_cast<tc_library>(reinterpret_cast<uint64_t>(f.lib) + (uint64_t(1000) << 32));
      f.op_garbage = reinterpret_cast<tc_op>(reinterpret_cast<uint64_t>(f.op) + (uint64_t(1000) << 32));
      f.lib_wrong = reinterpret_cast<tc_library>(f.op);
      f.op_wrong = reinterpret_cast<tc_op>(f.lib);
    }
  }
  void TearDown() override {
    int32_t init = 0;
    tc_is_initialized(&init);
    if (!init) return;
    Fixtures& f = m.f;
    if (f.opt) tc_optimizer_free(f.opt);
    if (f.dict) tc_tensor_dict_free(f.dict);
    if (f.hook) tc_hook_remove(f.hook);
    if (f.node) tc_node_free(f.node);
    if (f.np) tc_tensor_free(f.np);
    if (f.work) tc_work_free(f.work);
    if (f.pg) tc_process_group_free(f.pg);
    if (f.op) tc_op_free(f.op);
    if (f.lib) tc_library_unload(f.lib);
    for (tc_tensor t : {f.a, f.b,    f.bt,  f.v, f.s,    f.cond, f.i32, f.piv, f.ia, f.cls,  f.img,
                        f.w, f.bias, f.emb, f.p, f.leaf, f.lw,   f.lb,  f.t3,  f.z,  f.pairs})
      if (t) tc_tensor_free(t);
    int64_t handles = -1;
    tc_get_flag("live_handles", &handles);
    EXPECT_EQ(handles, 0) << "handles left after the misuse cases of " << table()[GetParam()].name;
    EXPECT_EQ(tc_shutdown(), TC_OK);
  }
};

TEST_P(MisuseFn, EveryMisuse) {
  const Entry& e = table()[GetParam()];
  if (!e.addr) GTEST_SKIP() << e.name << " is declared in tc.h but not defined (see EveryFunctionIsLinked)";
  if (needs_group(e) && !m.f.pg)
    GTEST_SKIP() << e.name << ": no \"mpi\" process group can be made here (libtc built without MPI, or MPI "
                 << "unusable); its misuses need one";
  // The valid call first: every failure below is then due to the spoiled argument.
  run_case(e, "valid call", m, e.call, e.ok);
  for (size_t i = 0; i < e.sig.size(); ++i) {
    const char c = e.sig[i];
    const std::string pos = "argument " + std::to_string(i);
    if (c == 'H' || c == 'h' || c == 'Z' || c == 'D' || c == 'K' || c == 'N' || c == 'G' || c == 'W' ||
        c == 'L' || c == 'Q') {
      for (Bad how : kHandleMisuses) {
        if (how == Bad::null && c == 'h') continue;
        m.bad_arg = int(i);
        m.how = how;
        run_case(e, pos + ": " + bad_name(how), m, e.call, {TC_ERR_INVALID_HANDLE});
      }
    } else if (c == 'O' || c == 'P') {
      m.bad_arg = int(i);
      m.how = Bad::null;
      run_case(e, pos + ": NULL", m, e.call, {TC_ERR_INVALID_ARGUMENT});
    }
    m.bad_arg = -1;
    m.how = Bad::none;
  }
  for (const Extra& x : e.extras) run_case(e, x.what, m, x.call, x.expected);
  // After the last tc_shutdown: every handle is stale, every call refused.
  int32_t init = -1;
  ASSERT_EQ(tc_shutdown(), TC_OK);
  tc_is_initialized(&init);
  ASSERT_EQ(init, 0);
  run_case(e, "after tc_shutdown", m, e.call, e.pre, false);
  ASSERT_EQ(tc_init(nullptr), TC_OK);  // (fixture handles stay stale; TearDown ignores them)
  m.f = Fixtures();
}

std::string param_name(const ::testing::TestParamInfo<size_t>& info) { return table()[info.param].name; }

INSTANTIATE_TEST_SUITE_P(Abi, MisuseFn, ::testing::Range<size_t>(0, table().size()), param_name);

// Every function in a process that never called tc_init (a re-executed
// child, so nothing earlier in this binary initialized libtc).
void run_all_before_first_init() {
  int failures = 0;
  int32_t init = -1;
  tc_is_initialized(&init);
  if (init != 0) {
    std::fprintf(stderr, "libtc is initialized in a fresh process\n");
    std::exit(2);
  }
  M m;
  for (const Entry& e : table()) {
    if (!e.addr) continue;
    fake_fixtures(m.f);
    m.reset();
    const int32_t rc = e.call(m);
    bool ok = false;
    for (int32_t c : e.pre) ok |= c == rc;
    const char* msg = "";
    tc_last_error(&msg);
    if (!ok || (rc != TC_OK && (!msg || !std::strstr(msg, e.name)))) {
      std::fprintf(stderr, "%s before tc_init: returned %d (expected %s), message '%s'\n", e.name, rc,
                   codes_str(e.pre).c_str(), msg ? msg : "(null)");
      ++failures;
    }
    if (rc == TC_OK) cleanup_success(e, m);
    tc_is_initialized(&init);
    if (init != 0) {
      std::fprintf(stderr, "%s left libtc initialized\n", e.name);
      ++failures;
      while (tc_shutdown() == TC_OK) {
      }
    }
  }
  if (failures == 0) std::fprintf(stderr, "all before-init cases passed\n");
  std::exit(failures == 0 ? 0 : 1);
}

TEST(MisuseFresh, EveryFunctionBeforeTheFirstInit) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(run_all_before_first_init(), ::testing::ExitedWithCode(0), "all before-init cases passed");
}

// ---- the table against the header ----

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// tc.h's text with the headers it includes from its own folder (tc_*.h: the
// elementwise families' declarations) appended.
std::string header_text() {
  const std::string path = TC_HEADER_PATH;
  std::string text = read_file(path);
  const std::string dir = path.substr(0, path.find_last_of('/') + 1);
  const std::regex part(R"re(#include "(tc_\w+\.h)")re");
  std::string parts;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), part); it != std::sregex_iterator(); ++it)
    parts += read_file(dir + (*it)[1].str());
  return text + parts;
}

std::set<std::string> header_functions() {
  const std::string text = header_text();
  std::set<std::string> names;
  const std::regex decl(R"(TC_API\s+int32_t\s+(tc_\w+)\s*\()");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), decl); it != std::sregex_iterator(); ++it)
    names.insert((*it)[1].str());
  return names;
}

TEST(MisuseTable, CoversEveryFunctionInTheHeader) {
  const std::set<std::string> declared = header_functions();
  ASSERT_GT(declared.size(), 100u) << "could not parse " << TC_HEADER_PATH;
  std::set<std::string> tabled;
  for (const Entry& e : table()) {
    EXPECT_TRUE(tabled.insert(e.name).second) << e.name << " is in the table twice";
    EXPECT_TRUE(declared.count(e.name)) << e.name << " is in the table but not declared in tc.h";
  }
  for (const std::string& d : declared)
    EXPECT_TRUE(tabled.count(d)) << d << " is declared in tc.h but has no misuse entry";
}

TEST(MisuseTable, EveryFunctionIsLinked) {
  std::string missing;
  for (const Entry& e : table())
    if (!e.addr) missing += std::string(missing.empty() ? "" : ", ") + e.name;
  EXPECT_TRUE(missing.empty()) << "declared in tc.h but not defined by libtc: " << missing;
}

TEST(MisuseTable, Summary) {
  size_t cases = 0, functions = 0, extras = 0;
  for (const Entry& e : table()) {
    ++functions;
    cases += case_count(e);
    extras += e.extras.size();
  }
  std::printf("misuse table: %zu functions, %zu cases (%zu function-specific)\n", functions, cases, extras);
  EXPECT_EQ(functions, header_functions().size());
}

// tc_split/tc_chunk with too small a cap: *count is set, no handle is made.
TEST(MisuseSplit, CapTooSmallSetsCountAndMakesNoHandles) {
  if (!HAVE(tc_split) || !HAVE(tc_chunk)) GTEST_SKIP() << "tc_split/tc_chunk not defined yet";
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  tc_tensor a = make_f32({2, 6});
  const int64_t before = live_handles();
  tc_tensor outs[2] = {sentinel_handle(), sentinel_handle()};
  int64_t count = -1;
  EXPECT_EQ(tc_split(a, 2, 1, outs, 2, &count), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(count, 3);
  EXPECT_EQ(live_handles(), before);
  count = -1;
  EXPECT_EQ(tc_chunk(a, 3, 1, outs, 1, &count), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(count, 3);
  EXPECT_EQ(live_handles(), before);
  for (tc_tensor h : outs) EXPECT_EQ(h, sentinel_handle());
  tc_tensor_free(a);
  EXPECT_EQ(tc_shutdown(), TC_OK);
}

// Regression: bad thread counts are the caller's error, not TC_ERR_INTERNAL,
// and a failed first tc_init leaves libtc uninitialized.
TEST(MisuseInit, BadThreadCountsAreInvalidArguments) {
  int32_t init = -1;
  tc_is_initialized(&init);
  ASSERT_EQ(init, 0);
  tc_init_options o{};
  o.size = sizeof o;
  o.num_threads = 100000;
  EXPECT_EQ(tc_init(&o), TC_ERR_INVALID_ARGUMENT);
  tc_is_initialized(&init);
  EXPECT_EQ(init, 0);
  const char* saved = std::getenv("TC_NUM_THREADS");
  const std::string saved_value = saved ? saved : "";
  ASSERT_EQ(setenv("TC_NUM_THREADS", "lots", 1), 0);
  EXPECT_EQ(tc_init(nullptr), TC_ERR_INVALID_ARGUMENT);
  const char* msg = "";
  tc_last_error(&msg);
  EXPECT_NE(std::string(msg).find("TC_NUM_THREADS"), std::string::npos) << msg;
  tc_is_initialized(&init);
  EXPECT_EQ(init, 0);
  if (saved) {
    setenv("TC_NUM_THREADS", saved_value.c_str(), 1);
  } else {
    unsetenv("TC_NUM_THREADS");
  }
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  EXPECT_EQ(tc_shutdown(), TC_OK);
}

}  // namespace misuse
