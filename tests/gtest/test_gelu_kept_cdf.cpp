// The exact GELU's fast path (CPU float32, contiguous input that requires
// grad): the forward keeps Phi(x) and the backward reads it instead of
// evaluating erfc again. It must give the bytes of the gelu row's formulas,
// which a strided (transposed) input still takes (the formula's fused map),
// forward and backward, in every kernel set this CPU runs, special values
// included.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cpu/kernels.h"
#include "tc.h"
#include "tc_binary_ops.h"
#include "tc_unary_ops.h"

namespace {

struct Init {
  Init() { EXPECT_EQ(tc_init(nullptr), TC_OK); }
  ~Init() { tc_shutdown(); }
};

std::vector<float> floats_of(tc_tensor t) {
  int64_t n = 0;
  EXPECT_EQ(tc_tensor_numel(t, &n), TC_OK);
  tc_tensor c = nullptr;
  EXPECT_EQ(tc_contiguous(t, &c), TC_OK);
  std::vector<float> out(static_cast<size_t>(n));
  EXPECT_EQ(tc_tensor_copy_to(c, out.data(), int64_t(out.size() * sizeof(float))), TC_OK);
  tc_tensor_free(c);
  return out;
}

tc_tensor from(const std::vector<float>& v, int64_t rows, int64_t cols) {
  const int64_t shape[2] = {rows, cols};
  tc_tensor t = nullptr;
  EXPECT_EQ(tc_from_data(v.data(), int64_t(v.size() * sizeof(float)), shape, 2, TC_FLOAT32, &t), TC_OK);
  return t;
}

bool same_bytes(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// gelu(x) and d(sum(gelu(x) * g))/dx for x [rows, cols], through the
// contiguous (kept Phi) path, and through a transposed leaf (the formula's
// path) transposed back.
struct Results {
  std::vector<float> y, gx;
};
Results run(const std::vector<float>& xs, const std::vector<float>& gs, int64_t rows, int64_t cols,
            bool transposed, std::string* node) {
  // For the transposed run the leaf holds x^T, so that its transpose is x.
  std::vector<float> xv = xs, gv = gs;
  if (transposed) {
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) xv[size_t(j * rows + i)] = xs[size_t(i * cols + j)];
  }
  tc_tensor leaf = transposed ? from(xv, cols, rows) : from(xv, rows, cols);
  EXPECT_EQ(tc_tensor_set_requires_grad(leaf, 1), TC_OK);
  tc_tensor x = leaf;
  if (transposed) {
    EXPECT_EQ(tc_transpose(leaf, 0, 1, &x), TC_OK);
  }
  tc_tensor g = from(gv, rows, cols), y = nullptr, prod = nullptr, loss = nullptr, gl = nullptr;
  EXPECT_EQ(tc_gelu(x, &y), TC_OK);
  if (node) {
    char buf[64] = {};
    int64_t needed = 0;
    EXPECT_EQ(tc_tensor_grad_fn_name(y, buf, sizeof buf, &needed), TC_OK);
    *node = buf;
  }
  EXPECT_EQ(tc_mul(y, g, &prod), TC_OK);
  EXPECT_EQ(tc_sum(prod, nullptr, 0, 0, &loss), TC_OK);
  EXPECT_EQ(tc_backward(loss, nullptr, 0), TC_OK);
  EXPECT_EQ(tc_tensor_grad(leaf, &gl), TC_OK);
  Results r;
  r.y = floats_of(y);
  tc_tensor glx = gl;
  if (transposed) {
    EXPECT_EQ(tc_transpose(gl, 0, 1, &glx), TC_OK);
  }
  r.gx = floats_of(glx);
  if (glx != gl) tc_tensor_free(glx);
  if (x != leaf) tc_tensor_free(x);
  for (tc_tensor t : {leaf, g, y, prod, loss, gl}) tc_tensor_free(t);
  return r;
}

TEST(GeluKeptCdf, GivesTheRowFormulasBytesInEveryKernelSet) {
  Init init;
  const int64_t rows = 37, cols = 1031;  // past the vector widths, with tails
  std::vector<float> xs(size_t(rows * cols)), gs(xs.size());
  uint32_t s = 12345;
  auto next = [&] {
    s = s * 1664525u + 1013904223u;
    return float(s >> 8) / float(1u << 24);  // [0, 1)
  };
  for (size_t i = 0; i < xs.size(); ++i) {
    xs[i] = (next() - 0.5f) * 24.0f;  // both tails, past x = -10 where Phi(x) is tiny
    gs[i] = next() * 2.0f - 1.0f;
  }
  const float inf = std::numeric_limits<float>::infinity();
  const float special[] = {0.0f,  -0.0f, 1e-30f, -1e-30f, 1e-45f, -5.9f, -13.0f, -20.0f,       -88.0f,
                           30.0f, 1e4f,  -1e4f,  7e4f,    -7e4f,  inf,   -inf,   std::nanf("")};
  for (size_t i = 0; i < std::size(special); ++i) xs[i * 7] = special[i];

  const tc::cpu::KernelSet* avail[4];
  const int n = tc::cpu::available_kernel_sets(avail, 4);
  const std::string in_use = tc::cpu::kernels().name;
  ASSERT_TRUE(tc::cpu::select_kernels("baseline"));
  const Results formula = run(xs, gs, rows, cols, true, nullptr);
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE(tc::cpu::select_kernels(avail[i]->name));
    std::string node;
    const Results kept = run(xs, gs, rows, cols, false, &node);
    EXPECT_EQ(node, "GeluBackward");
    EXPECT_TRUE(same_bytes(kept.y, formula.y)) << avail[i]->name << ": forward differs from the formula's";
    EXPECT_TRUE(same_bytes(kept.gx, formula.gx)) << avail[i]->name << ": backward differs from the formula's";
    // The strided (formula) path of this set too.
    const Results strided = run(xs, gs, rows, cols, true, nullptr);
    EXPECT_TRUE(same_bytes(strided.y, formula.y)) << avail[i]->name;
    EXPECT_TRUE(same_bytes(strided.gx, formula.gx)) << avail[i]->name;
  }
  tc::cpu::select_kernels(in_use.c_str());
  // Not vacuous: the values are GELU's (torch.nn.functional.gelu(-1.), its
  // gradient Phi(-1) - phi(-1)), and the special values' gradients are finite
  // except at NaN/-inf.
  const std::vector<float> one = {-1.0f}, g1 = {1.0f};
  const Results r = run(one, g1, 1, 1, false, nullptr);
  EXPECT_NEAR(r.y[0], -0.15865525393145702, 1e-7);  // torch, float64
  EXPECT_NEAR(r.gx[0], -0.08331547058768635, 1e-7);
  EXPECT_EQ(formula.gx[0 * 7], gs[0] * 0.5f);  // gelu'(0) = 1/2
  EXPECT_TRUE(std::isnan(formula.y[16 * 7]));
}

// Empty and 0-d inputs: the kept path skips empty tensors (the formula's
// path has nothing to do either), and a 0-d input takes it.
TEST(GeluKeptCdf, EmptyAndScalarInputs) {
  Init init;
  tc_tensor e = nullptr, y = nullptr, loss = nullptr, g = nullptr;
  const int64_t empty_shape[2] = {0, 5};
  EXPECT_EQ(tc_zeros(empty_shape, 2, TC_FLOAT32, TC_CPU, &e), TC_OK);
  EXPECT_EQ(tc_tensor_set_requires_grad(e, 1), TC_OK);
  EXPECT_EQ(tc_gelu(e, &y), TC_OK);
  EXPECT_EQ(tc_sum(y, nullptr, 0, 0, &loss), TC_OK);
  EXPECT_EQ(tc_backward(loss, nullptr, 0), TC_OK);
  EXPECT_EQ(tc_tensor_grad(e, &g), TC_OK);
  int64_t numel = -1;
  EXPECT_EQ(tc_tensor_numel(g, &numel), TC_OK);
  EXPECT_EQ(numel, 0);
  for (tc_tensor t : {e, y, loss, g}) tc_tensor_free(t);

  const float v = 0.5f;
  tc_tensor s = nullptr;
  EXPECT_EQ(tc_from_data(&v, sizeof v, nullptr, 0, TC_FLOAT32, &s), TC_OK);
  EXPECT_EQ(tc_tensor_set_requires_grad(s, 1), TC_OK);
  EXPECT_EQ(tc_gelu(s, &y), TC_OK);
  EXPECT_EQ(tc_backward(y, nullptr, 0), TC_OK);
  EXPECT_EQ(tc_tensor_grad(s, &g), TC_OK);
  const std::vector<float> gv = floats_of(g), yv = floats_of(y);
  EXPECT_NEAR(yv[0], 0.34573123063700656, 1e-7);  // torch, float64
  EXPECT_NEAR(gv[0], 0.8674951246561629, 1e-7);
  for (tc_tensor t : {s, y, g}) tc_tensor_free(t);
}

}  // namespace
