// Custom op libraries through the C ABI: the example library
// (examples/op_library: myops::scaled_square, gradchecked), and the failure
// paths of tc_load_library with the small broken libraries of
// tests/op_libraries: all of a library's ops or none, never an abort.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "abi/api.h"
#include "gradcheck.h"

using namespace tc_test;

namespace {

std::string bad_library(const char* variant) {
  return std::string(TC_TEST_OP_LIBRARY_DIR) + "/libbad_" + variant + ".so";
}

int64_t op_count() {
  int64_t n = -1;
  EXPECT_EQ(tc_op_count(&n), TC_OK);
  return n;
}

bool has_op(const char* name) {
  tc_op op = nullptr;
  if (tc_op_find(name, &op) != TC_OK) return false;
  tc_op_free(op);
  return true;
}

std::string copied(int32_t (*fn)(char*, int64_t, int64_t*)) {
  int64_t needed = 0;
  fn(nullptr, 0, &needed);
  std::string s(size_t(needed), '\0');
  fn(&s[0], needed, &needed);
  s.resize(needed > 0 ? size_t(needed - 1) : 0);
  return s;
}

std::string schema_of(tc_op op) {
  char buf[256];
  int64_t needed = 0;
  EXPECT_EQ(tc_op_schema(op, buf, sizeof buf, &needed), TC_OK);
  return buf;
}

// Runs op on xs with scalars; null on failure.
tc::Tensor call_one(tc_op op, const std::vector<tc::Tensor>& xs, const std::vector<double>& scalars) {
  std::vector<tc_tensor> hs;
  for (const auto& x : xs) hs.push_back(tc::new_handle(x));
  tc_tensor out[2] = {nullptr, nullptr};
  int64_t n = -1;
  const int32_t rc =
      tc_op_call(op, hs.data(), int64_t(hs.size()), scalars.data(), int64_t(scalars.size()), out, 2, &n);
  for (tc_tensor h : hs) tc_tensor_free(h);
  EXPECT_EQ(rc, TC_OK) << last_error();
  if (rc != TC_OK) return nullptr;
  EXPECT_EQ(n, 1);
  tc::Tensor t = tc::get_tensor(out[0], "out");
  tc_tensor_free(out[0]);
  return t;
}

class OpLibrary : public TcTest {};

TEST_F(OpLibrary, ExampleLoadsAndGradchecks) {
  tc_library lib = nullptr;
  ASSERT_TRUE(ok(tc_load_library(TC_EXAMPLE_OP_LIBRARY, &lib)));
  EXPECT_EQ(op_count(), 1);
  char name[64];
  int64_t needed = 0;
  ASSERT_TRUE(ok(tc_op_name_at(0, name, sizeof name, &needed)));
  EXPECT_STREQ(name, "myops::scaled_square");
  EXPECT_EQ(tc_op_name_at(1, name, sizeof name, &needed), TC_ERR_INDEX);
  tc_op op = nullptr;
  ASSERT_TRUE(ok(tc_op_find("myops::scaled_square", &op)));
  EXPECT_EQ(schema_of(op), "myops::scaled_square(Tensor x, float alpha) -> Tensor");
  char path[1024];
  ASSERT_TRUE(ok(tc_op_library_path(op, path, sizeof path, &needed)));
  EXPECT_STREQ(path, TC_EXAMPLE_OP_LIBRARY);

  // alpha * x^2, and its gradient 2 * alpha * x * g.
  tc::Tensor y = call_one(op, {tensor({1, -2, 3}, {3})}, {2.5});
  ASSERT_TRUE(y);
  EXPECT_EQ(values(y), (std::vector<double>{2.5, 10, 22.5}));
  for (double alpha : {2.0, -0.75}) {
    EXPECT_TRUE(gradcheck([&](const Inputs& x) { return call_one(op, x, {alpha}); }, {randn({3, 4})}));
    EXPECT_TRUE(gradcheck([&](const Inputs& x) { return call_one(op, x, {alpha}); }, {randn({5})}));
  }
  // The node's name, and the by-name form.
  tc::Tensor x = randn({2});
  x->requires_grad = true;
  tc_tensor hx = tc::new_handle(x), out = nullptr;
  const double alpha = 3.0;
  int64_t n = 0;
  ASSERT_TRUE(ok(tc_op_call_by_name("myops::scaled_square", &hx, 1, &alpha, 1, &out, 1, &n)));
  char node[64];
  ASSERT_TRUE(ok(tc_tensor_grad_fn_name(out, node, sizeof node, &needed)));
  EXPECT_STREQ(node, "myops::scaled_squareBackward");
  tc_tensor_free(out);
  tc_tensor_free(hx);

  // Listed in tc_config with its library.
  const std::string config = copied(tc_config);
  EXPECT_NE(config.find("myops::scaled_square(Tensor x, float alpha) -> Tensor"), std::string::npos)
      << config;
  EXPECT_NE(config.find(TC_EXAMPLE_OP_LIBRARY), std::string::npos) << config;
  tc_op_free(op);
  EXPECT_TRUE(ok(tc_library_unload(lib)));
  EXPECT_EQ(op_count(), 0);
}

TEST_F(OpLibrary, WrongArgumentsAreErrors) {
  tc_library lib = nullptr;
  ASSERT_TRUE(ok(tc_load_library(TC_EXAMPLE_OP_LIBRARY, &lib)));
  tc_op op = nullptr;
  ASSERT_TRUE(ok(tc_op_find("myops::scaled_square", &op)));
  tc_tensor x = tc::new_handle(randn({2}));
  tc_tensor out[1] = {nullptr};
  int64_t n = -7;
  const double s[2] = {1.0, 2.0};
  EXPECT_EQ(tc_op_call(op, &x, 1, s, 2, out, 1, &n), TC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("takes 1 scalars"), std::string::npos) << last_error();
  EXPECT_EQ(tc_op_call(op, &x, 0, s, 1, out, 1, &n), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(tc_op_call(op, &x, 1, s, 1, out, 0, &n), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(n, -7);
  EXPECT_EQ(out[0], nullptr);
  EXPECT_EQ(tc_op_find("myops::nope", &op), TC_ERR_INDEX);
  EXPECT_EQ(tc_op_call_by_name("nope::nope", &x, 1, s, 1, out, 1, &n), TC_ERR_INDEX);
  tc_tensor_free(x);
  tc_op_free(op);
  tc_library_unload(lib);
}

TEST_F(OpLibrary, LoadingTwiceGivesAnotherHandle) {
  tc_library a = nullptr, b = nullptr;
  ASSERT_TRUE(ok(tc_load_library(TC_EXAMPLE_OP_LIBRARY, &a)));
  ASSERT_TRUE(ok(tc_load_library(TC_EXAMPLE_OP_LIBRARY, &b)));
  EXPECT_NE(a, b);
  EXPECT_EQ(op_count(), 1);
  EXPECT_TRUE(ok(tc_library_unload(a)));
  EXPECT_TRUE(has_op("myops::scaled_square"));  // b still holds it
  EXPECT_EQ(tc_library_unload(a), TC_ERR_INVALID_HANDLE);
  EXPECT_TRUE(ok(tc_library_unload(b)));
  EXPECT_FALSE(has_op("myops::scaled_square"));
  // Loads again after an unload.
  ASSERT_TRUE(ok(tc_load_library(TC_EXAMPLE_OP_LIBRARY, &a)));
  EXPECT_TRUE(has_op("myops::scaled_square"));
  EXPECT_TRUE(ok(tc_library_unload(a)));
}

// An op handle and a graph keep the library mapped after its unload.
TEST_F(OpLibrary, UnloadWhileInUseIsSafe) {
  tc_library lib = nullptr;
  ASSERT_TRUE(ok(tc_load_library(TC_EXAMPLE_OP_LIBRARY, &lib)));
  tc_op op = nullptr;
  ASSERT_TRUE(ok(tc_op_find("myops::scaled_square", &op)));
  tc::Tensor x = tensor({1, 2}, {2});
  x->requires_grad = true;
  tc::Tensor y = call_one(op, {x}, {0.5});
  ASSERT_TRUE(y);
  ASSERT_TRUE(ok(tc_library_unload(lib)));
  EXPECT_FALSE(has_op("myops::scaled_square"));
  tc::Tensor y2 = call_one(op, {x}, {1.0});  // the handle still works
  ASSERT_TRUE(y2);
  tc_op_free(op);
  // The graph's node still runs the library's backward.
  tc_tensor hy = tc::new_handle(y), hx = tc::new_handle(x), g = nullptr;
  tc_tensor ones = nullptr;
  const int64_t shape[] = {2};
  ASSERT_TRUE(ok(tc_ones(shape, 1, TC_FLOAT64, TC_CPU, &ones)));
  ASSERT_TRUE(ok(tc_backward(hy, ones, 0)));
  ASSERT_TRUE(ok(tc_tensor_grad(hx, &g)));
  EXPECT_EQ(values(tc::get_tensor(g, "g")), (std::vector<double>{1, 2}));  // 2 * 0.5 * x
  for (tc_tensor h : {hy, hx, g, ones}) tc_tensor_free(h);
}

// ---- failure paths ----

void expect_load_fails(const std::string& path, int32_t code, const char* words) {
  const int64_t before = op_count();
  tc_library lib = reinterpret_cast<tc_library>(uintptr_t(0xA5));
  EXPECT_EQ(tc_load_library(path.c_str(), &lib), code) << path << ": " << last_error();
  EXPECT_EQ(lib, reinterpret_cast<tc_library>(uintptr_t(0xA5)));
  EXPECT_NE(last_error().find(words), std::string::npos) << path << ": " << last_error();
  EXPECT_NE(last_error().find("tc_load_library"), std::string::npos) << last_error();
  EXPECT_EQ(op_count(), before) << path;
}

TEST_F(OpLibrary, BrokenLibrariesLoadNothing) {
  expect_load_fails(bad_library("no_entry"), TC_ERR_IO, "exports no tc_op_library_init");
  expect_load_fails(bad_library("abi"), TC_ERR_INVALID_ARGUMENT, "op library ABI version 2");
  expect_load_fails(bad_library("dup_within"), TC_ERR_INVALID_ARGUMENT, "'bad::twice' is registered twice");
  expect_load_fails(bad_library("halfway"), TC_ERR_IO, "bad_halfway cannot find its data file");
  EXPECT_FALSE(has_op("bad::one"));
  EXPECT_FALSE(has_op("bad::two"));
  expect_load_fails(bad_library("ignores_failure"), TC_ERR_INVALID_ARGUMENT, "bad op schema");
  EXPECT_FALSE(has_op("bad::good"));
  expect_load_fails("/nonexistent/libnothing.so", TC_ERR_IO, "cannot load the op library");
  const std::string text = "/tmp/tc_not_a_library_" + std::to_string(::getpid()) + ".so";
  std::ofstream(text) << "not an ELF file\n";
  expect_load_fails(text, TC_ERR_IO, "cannot load the op library");
  std::remove(text.c_str());
  // A duplicate of an op another library registered: the first op of the
  // second library is not registered either.
  tc_library lib = nullptr;
  ASSERT_TRUE(ok(tc_load_library(TC_EXAMPLE_OP_LIBRARY, &lib)));
  expect_load_fails(bad_library("dup_example"), TC_ERR_INVALID_ARGUMENT,
                    "'myops::scaled_square' is already registered");
  EXPECT_FALSE(has_op("bad::first"));
  EXPECT_TRUE(has_op("myops::scaled_square"));
  tc_library_unload(lib);
  // The broken ones load nothing on a second try either.
  expect_load_fails(bad_library("halfway"), TC_ERR_IO, "bad_halfway cannot find its data file");
}

TEST_F(OpLibrary, FailingCallbacksAreStatuses) {
  tc_library lib = nullptr;
  ASSERT_TRUE(ok(tc_load_library(bad_library("callbacks").c_str(), &lib)));
  EXPECT_EQ(op_count(), 6);
  tc_tensor x = tc::new_handle(randn({3}));
  tc_tensor out[2] = {nullptr, nullptr};
  int64_t n = -7;
  EXPECT_EQ(tc_op_call_by_name("bad::fail_forward", &x, 1, nullptr, 0, out, 2, &n), TC_ERR_SHAPE);
  EXPECT_NE(last_error().find("bad::fail_forward refuses"), std::string::npos) << last_error();
  EXPECT_NE(last_error().find("the forward of op 'bad::fail_forward'"), std::string::npos) << last_error();
  EXPECT_EQ(n, -7);
  // register_op outside registration: an error, nothing registered.
  EXPECT_EQ(tc_op_call_by_name("bad::late_register", &x, 1, nullptr, 0, out, 2, &n), TC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("outside registration"), std::string::npos) << last_error();
  EXPECT_FALSE(has_op("bad::too_late"));
  // int arguments must be integers.
  const double half = 0.5, three = 3;
  EXPECT_EQ(tc_op_call_by_name("bad::identity", &x, 1, &half, 1, out, 2, &n), TC_ERR_INVALID_ARGUMENT);
  EXPECT_NE(last_error().find("must be an integer"), std::string::npos) << last_error();
  EXPECT_TRUE(ok(tc_op_call_by_name("bad::identity", &x, 1, &three, 1, out, 2, &n)));
  tc_tensor_free(out[0]);
  // Two outputs.
  EXPECT_TRUE(ok(tc_op_call_by_name("bad::pair", &x, 1, nullptr, 0, out, 2, &n)));
  EXPECT_EQ(n, 2);
  tc_tensor_free(out[0]);
  tc_tensor_free(out[1]);
  EXPECT_EQ(tc_op_call_by_name("bad::pair", &x, 1, nullptr, 0, out, 1, &n), TC_ERR_INVALID_ARGUMENT);
  // A failing backward fails tc_backward with its message.
  ASSERT_TRUE(ok(tc_tensor_set_requires_grad(x, 1)));
  ASSERT_TRUE(ok(tc_op_call_by_name("bad::fail_backward", &x, 1, nullptr, 0, out, 2, &n)));
  tc_tensor sum = nullptr;
  ASSERT_TRUE(ok(tc_sum(out[0], nullptr, 0, 0, &sum)));
  EXPECT_EQ(tc_backward(sum, nullptr, 0), TC_ERR_CALLBACK);
  EXPECT_NE(last_error().find("bad::fail_backward refuses"), std::string::npos) << last_error();
  EXPECT_NE(last_error().find("the backward of op 'bad::fail_backward'"), std::string::npos) << last_error();
  for (tc_tensor h : {sum, out[0], x}) tc_tensor_free(h);
  tc_library_unload(lib);
}

// Loads, calls and unloads from several threads at once: every call either
// works or fails cleanly (the op is unregistered between a thread's unload
// and another's load), and nothing leaks.
TEST_F(OpLibrary, ConcurrentLoadsCallsAndUnloads) {
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t, &failures] {
      for (int i = 0; i < 50; ++i) {
        tc_library lib = nullptr;
        if (tc_load_library(TC_EXAMPLE_OP_LIBRARY, &lib) != TC_OK) {
          ++failures[size_t(t)];
          continue;
        }
        tc_tensor x = nullptr, y = nullptr;
        const int64_t shape[] = {3};
        const double alpha = 2.0;
        int64_t n = 0;
        tc_ones(shape, 1, TC_FLOAT64, TC_CPU, &x);
        tc_tensor_set_requires_grad(x, 1);
        // This thread's handle keeps the op registered.
        if (tc_op_call_by_name("myops::scaled_square", &x, 1, &alpha, 1, &y, 1, &n) != TC_OK)
          ++failures[size_t(t)];
        if (tc_library_unload(lib) != TC_OK) ++failures[size_t(t)];
        if (y) {
          tc_tensor s = nullptr;
          tc_sum(y, nullptr, 0, 0, &s);
          if (tc_backward(s, nullptr, 0) != TC_OK) ++failures[size_t(t)];
          tc_tensor_free(s);
          tc_tensor_free(y);
        }
        tc_tensor_free(x);
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0)) << last_error();
  EXPECT_EQ(op_count(), 0);
}

// The last tc_shutdown unloads every library: after a new tc_init no op is
// registered, and the libraries load again.
TEST(OpLibraryLifetime, ShutdownUnloads) {
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  tc_library lib = nullptr;
  ASSERT_TRUE(ok(tc_load_library(TC_EXAMPLE_OP_LIBRARY, &lib)));
  tc_op op = nullptr;
  ASSERT_TRUE(ok(tc_op_find("myops::scaled_square", &op)));
  ASSERT_EQ(tc_shutdown(), TC_OK);
  EXPECT_EQ(tc_op_free(op), TC_ERR_NOT_INITIALIZED);
  ASSERT_EQ(tc_init(nullptr), TC_OK);
  EXPECT_EQ(op_count(), 0);
  EXPECT_EQ(tc_library_unload(lib), TC_ERR_INVALID_HANDLE);  // stale
  EXPECT_EQ(tc_op_free(op), TC_ERR_INVALID_HANDLE);
  ASSERT_TRUE(ok(tc_load_library(TC_EXAMPLE_OP_LIBRARY, &lib)));
  EXPECT_EQ(op_count(), 1);
  ASSERT_EQ(tc_shutdown(), TC_OK);
  // Closed: the dynamic loader no longer has it.
  EXPECT_EQ(dlopen(TC_EXAMPLE_OP_LIBRARY, RTLD_NOW | RTLD_NOLOAD), nullptr);
}

}  // namespace
