// Helpers for the linalg/nn/conv tests, written against the C ABI only: an
// owning handle, tensors from/to std::vector<double>, and a central
// finite-difference gradient check of any tensor function.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "tc.h"

namespace nntest {

// One owned tc_tensor, freed at scope exit.
class H {
 public:
  H() = default;
  explicit H(tc_tensor t) : h_(t) {}
  H(const H&) = delete;
  H& operator=(const H&) = delete;
  H(H&& o) noexcept : h_(o.h_) { o.h_ = nullptr; }
  H& operator=(H&& o) noexcept {
    reset();
    h_ = o.h_;
    o.h_ = nullptr;
    return *this;
  }
  ~H() { reset(); }
  void reset() {
    if (h_) {
      EXPECT_EQ(tc_tensor_free(h_), TC_OK);
    }
    h_ = nullptr;
  }
  tc_tensor get() const { return h_; }
  operator tc_tensor() const { return h_; }  // NOLINT: pass straight to tc_* calls
  tc_tensor* out() {
    reset();
    return &h_;
  }

 private:
  tc_tensor h_ = nullptr;
};

inline std::string last_error() {
  const char* m = "";
  tc_last_error(&m);
  return m;
}

inline H tensor(const std::vector<double>& v, const std::vector<int64_t>& shape, int32_t dtype = TC_FLOAT64) {
  H t;
  if (dtype == TC_FLOAT32) {
    std::vector<float> f(v.begin(), v.end());
    EXPECT_EQ(
        tc_from_data(f.data(), int64_t(f.size() * 4), shape.data(), int64_t(shape.size()), dtype, t.out()),
        TC_OK)
        << last_error();
  } else if (dtype == TC_INT64) {
    std::vector<int64_t> f(v.begin(), v.end());
    EXPECT_EQ(
        tc_from_data(f.data(), int64_t(f.size() * 8), shape.data(), int64_t(shape.size()), dtype, t.out()),
        TC_OK)
        << last_error();
  } else if (dtype == TC_INT32) {
    std::vector<int32_t> f(v.begin(), v.end());
    EXPECT_EQ(
        tc_from_data(f.data(), int64_t(f.size() * 4), shape.data(), int64_t(shape.size()), dtype, t.out()),
        TC_OK)
        << last_error();
  } else {
    EXPECT_EQ(
        tc_from_data(v.data(), int64_t(v.size() * 8), shape.data(), int64_t(shape.size()), dtype, t.out()),
        TC_OK)
        << last_error();
  }
  return t;
}

// Deterministic pseudo-random values in [-1, 1).
inline std::vector<double> values(int64_t n, uint64_t seed) {
  std::vector<double> v(static_cast<size_t>(n));
  uint64_t s = seed * 2654435761ULL + 12345;
  for (auto& x : v) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    x = double(s >> 11) / double(1ULL << 53) * 2.0 - 1.0;
  }
  return v;
}

inline int64_t numel(tc_tensor t) {
  int64_t n = -1;
  EXPECT_EQ(tc_tensor_numel(t, &n), TC_OK);
  return n;
}
inline std::vector<int64_t> shape(tc_tensor t) {
  int64_t nd = 0;
  EXPECT_EQ(tc_tensor_ndim(t, &nd), TC_OK);
  std::vector<int64_t> s(static_cast<size_t>(nd));
  EXPECT_EQ(tc_tensor_shape(t, s.data(), nd), TC_OK);
  return s;
}
inline H random(const std::vector<int64_t>& shape, uint64_t seed, int32_t dtype = TC_FLOAT64,
                bool requires_grad = false) {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  H t = tensor(values(n, seed), shape, dtype);
  if (requires_grad) {
    EXPECT_EQ(tc_tensor_set_requires_grad(t, 1), TC_OK);
  }
  return t;
}

// Elements in row-major order as doubles (float32, float64, int64).
inline std::vector<double> read(tc_tensor t) {
  int32_t dt = -1;
  EXPECT_EQ(tc_tensor_dtype(t, &dt), TC_OK);
  const int64_t n = numel(t);
  std::vector<double> out(static_cast<size_t>(n));
  if (dt == TC_FLOAT32) {
    std::vector<float> f(static_cast<size_t>(n));
    EXPECT_EQ(tc_tensor_copy_to(t, f.data(), n * 4), TC_OK) << last_error();
    out.assign(f.begin(), f.end());
  } else if (dt == TC_INT64) {
    std::vector<int64_t> f(static_cast<size_t>(n));
    EXPECT_EQ(tc_tensor_copy_to(t, f.data(), n * 8), TC_OK) << last_error();
    out.assign(f.begin(), f.end());
  } else {
    EXPECT_EQ(dt, TC_FLOAT64);
    EXPECT_EQ(tc_tensor_copy_to(t, out.data(), n * 8), TC_OK) << last_error();
  }
  return out;
}

inline void expect_near(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * (1 + std::fabs(want[i]))) << "at element " << i;
}

inline std::string grad_fn(tc_tensor t) {
  char buf[128];
  int64_t needed = 0;
  EXPECT_EQ(tc_tensor_grad_fn_name(t, buf, sizeof buf, &needed), TC_OK);
  return buf;
}

// Builds a tensor (owned handle) from the inputs.
using Fn = std::function<tc_tensor(const std::vector<tc_tensor>&)>;

// Compares the gradient backward gives for every input that requires grad
// with central differences of <f(inputs), v> for a fixed random v. Inputs
// must be float64; non-contiguous inputs are perturbed through their strides.
inline void gradcheck(const Fn& f, const std::vector<tc_tensor>& inputs, double eps = 1e-6,
                      double tol = 1e-6) {
  H out(f(inputs));
  ASSERT_NE(out.get(), nullptr) << last_error();
  const std::vector<int64_t> oshape = shape(out);
  const std::vector<double> v = values(numel(out), 99);
  H vt = tensor(v, oshape);
  ASSERT_EQ(tc_backward(out, vt, 0), TC_OK) << last_error();
  out.reset();
  auto objective = [&]() {
    H o(f(inputs));
    EXPECT_NE(o.get(), nullptr) << last_error();
    const std::vector<double> y = read(o);
    double s = 0;
    for (size_t i = 0; i < y.size(); ++i) s += y[i] * v[i];
    return s;
  };
  int32_t prev = 1;
  for (size_t k = 0; k < inputs.size(); ++k) {
    int32_t rg = 0;
    ASSERT_EQ(tc_tensor_requires_grad(inputs[k], &rg), TC_OK);
    if (!rg) continue;
    H g;
    ASSERT_EQ(tc_tensor_grad(inputs[k], g.out()), TC_OK);
    ASSERT_NE(g.get(), nullptr) << "input " << k << " got no gradient";
    const std::vector<double> analytic = read(g);
    const std::vector<int64_t> s = shape(inputs[k]);
    std::vector<int64_t> st(s.size());
    ASSERT_EQ(tc_tensor_strides(inputs[k], st.data(), int64_t(st.size())), TC_OK);
    void* base = nullptr;
    ASSERT_EQ(tc_tensor_data_ptr(inputs[k], &base), TC_OK);
    ASSERT_EQ(tc_set_grad_enabled(0, &prev), TC_OK);
    const int64_t n = numel(inputs[k]);
    for (int64_t i = 0; i < n; ++i) {
      int64_t off = 0, rem = i;
      for (int64_t d = int64_t(s.size()) - 1; d >= 0; --d) {
        off += (rem % s[d]) * st[d];
        rem /= s[d];
      }
      double* p = static_cast<double*>(base) + off;
      const double x0 = *p;
      *p = x0 + eps;
      const double fp = objective();
      *p = x0 - eps;
      const double fm = objective();
      *p = x0;
      const double numeric = (fp - fm) / (2 * eps);
      EXPECT_NEAR(analytic[size_t(i)], numeric, tol * (1 + std::fabs(numeric)))
          << "input " << k << " element " << i;
    }
    ASSERT_EQ(tc_set_grad_enabled(prev, nullptr), TC_OK);
    ASSERT_EQ(tc_tensor_clear_grad(inputs[k]), TC_OK);
  }
}

// Every test starts from tc_init and must end with no tensor alive.
class Fixture : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(tc_init(nullptr), TC_OK); }
  void TearDown() override {
    int64_t live = -1;
    EXPECT_EQ(tc_get_flag("live_tensors", &live), TC_OK);
    EXPECT_EQ(live, 0) << "tensors leaked";
    EXPECT_EQ(tc_shutdown(), TC_OK);
  }
};

}  // namespace nntest
