// matmul and linear: values against hand-computed and naive-loop results,
// gradients against finite differences (float64), and the error cases.
#include <gtest/gtest.h>

#include "nn_test_util.h"

using namespace nntest;

namespace {

class Linalg : public Fixture {};

tc_tensor matmul_of(const std::vector<tc_tensor>& in) {
  tc_tensor out = nullptr;
  EXPECT_EQ(tc_matmul(in[0], in[1], &out), TC_OK) << last_error();
  return out;
}

// The reference: out[b][i][j] = sum_k a[b][i][k] * bm[b][k][j] for contiguous
// operands already broadcast to the same batch count.
std::vector<double> naive_bmm(const std::vector<double>& a, const std::vector<double>& b, int64_t batch,
                              int64_t m, int64_t k, int64_t n, bool a_broadcast, bool b_broadcast) {
  std::vector<double> out(size_t(batch * m * n), 0.0);
  for (int64_t bi = 0; bi < batch; ++bi)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0;
        for (int64_t p = 0; p < k; ++p)
          s += a[(a_broadcast ? 0 : bi) * m * k + i * k + p] * b[(b_broadcast ? 0 : bi) * k * n + p * n + j];
        out[bi * m * n + i * n + j] = s;
      }
  return out;
}

TEST_F(Linalg, Matmul2dValuesBothDtypes) {
  for (int32_t dt : {TC_FLOAT32, TC_FLOAT64}) {
    H a = tensor({1, 2, 3, 4, 5, 6}, {2, 3}, dt), b = tensor({7, 8, 9, 10, 11, 12}, {3, 2}, dt);
    H c;
    ASSERT_EQ(tc_matmul(a, b, c.out()), TC_OK) << last_error();
    EXPECT_EQ(shape(c), (std::vector<int64_t>{2, 2}));
    expect_near(read(c), {58, 64, 139, 154}, 1e-6);
    int32_t odt;
    ASSERT_EQ(tc_tensor_dtype(c, &odt), TC_OK);
    EXPECT_EQ(odt, dt);
  }
}

TEST_F(Linalg, MatmulOneDimensionalRules) {
  H v = tensor({1, 2, 3}, {3}), w = tensor({4, 5, 6}, {3}), m = tensor({1, 0, 2, 0, 1, 1}, {3, 2});
  H mt = tensor({1, 0, 2, 0, 1, 1}, {2, 3});
  H dot, vm, mv;
  ASSERT_EQ(tc_matmul(v, w, dot.out()), TC_OK);
  EXPECT_TRUE(shape(dot).empty());
  expect_near(read(dot), {32}, 1e-12);
  ASSERT_EQ(tc_matmul(v, m, vm.out()), TC_OK);  // [3] @ [3, 2] -> [2]
  EXPECT_EQ(shape(vm), (std::vector<int64_t>{2}));
  expect_near(read(vm), {1 + 4 + 3, 0 + 0 + 3}, 1e-12);
  ASSERT_EQ(tc_matmul(mt, v, mv.out()), TC_OK);  // [2, 3] @ [3] -> [2]
  EXPECT_EQ(shape(mv), (std::vector<int64_t>{2}));
  expect_near(read(mv), {1 + 0 + 6, 0 + 2 + 3}, 1e-12);
}

TEST_F(Linalg, MatmulBatchedBroadcastMatchesNaive) {
  // a [2, 1, 3, 4] @ b [5, 4, 2] -> [2, 5, 3, 2]
  const std::vector<double> av = values(2 * 3 * 4, 1), bv = values(5 * 4 * 2, 2);
  H a = tensor(av, {2, 1, 3, 4}), b = tensor(bv, {5, 4, 2}), c;
  ASSERT_EQ(tc_matmul(a, b, c.out()), TC_OK) << last_error();
  EXPECT_EQ(shape(c), (std::vector<int64_t>{2, 5, 3, 2}));
  const std::vector<double> got = read(c);
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 5; ++j) {
      std::vector<double> ai(av.begin() + i * 12, av.begin() + (i + 1) * 12);
      std::vector<double> bj(bv.begin() + j * 8, bv.begin() + (j + 1) * 8);
      const std::vector<double> want = naive_bmm(ai, bj, 1, 3, 4, 2, false, false);
      for (int64_t e = 0; e < 6; ++e) EXPECT_NEAR(got[(i * 5 + j) * 6 + e], want[e], 1e-12);
    }
  // Batched a with a plain matrix b (the folded single-GEMM path).
  H m = tensor(bv, {4, 10}), d;
  ASSERT_EQ(tc_matmul(a, m, d.out()), TC_OK);
  EXPECT_EQ(shape(d), (std::vector<int64_t>{2, 1, 3, 10}));
  expect_near(read(d), naive_bmm(av, bv, 1, 6, 4, 10, false, false), 1e-12);
}

TEST_F(Linalg, MatmulTransposedAndSlicedOperands) {
  // A transposed view is handed to GEMM through its strides; a slice with a
  // step needs a copy. Both must give the naive result.
  const std::vector<double> av = values(67 * 33, 3), bv = values(67 * 29, 4);
  for (int32_t dt : {TC_FLOAT32, TC_FLOAT64}) {
    H a = tensor(av, {67, 33}, dt), b = tensor(bv, {67, 29}, dt), at, c;
    ASSERT_EQ(tc_transpose(a, 0, 1, at.out()), TC_OK);
    ASSERT_EQ(tc_matmul(at, b, c.out()), TC_OK) << last_error();  // [33, 67] @ [67, 29]
    std::vector<double> atv(33 * 67);
    for (int i = 0; i < 67; ++i)
      for (int j = 0; j < 33; ++j) atv[j * 67 + i] = av[i * 33 + j];
    expect_near(read(c), naive_bmm(atv, bv, 1, 33, 67, 29, false, false), dt == TC_FLOAT32 ? 1e-4 : 1e-12);
    H bs, d;
    ASSERT_EQ(tc_slice(b, 1, 0, 29, 2, bs.out()), TC_OK);  // [67, 15], column stride 2
    ASSERT_EQ(tc_matmul(at, bs, d.out()), TC_OK) << last_error();
    std::vector<double> bsv(67 * 15);
    for (int i = 0; i < 67; ++i)
      for (int j = 0; j < 15; ++j) bsv[i * 15 + j] = bv[i * 29 + 2 * j];
    expect_near(read(d), naive_bmm(atv, bsv, 1, 33, 67, 15, false, false), dt == TC_FLOAT32 ? 1e-4 : 1e-12);
  }
}

TEST_F(Linalg, MatmulEmptyInnerDimGivesZeros) {
  H a = tensor({}, {2, 0}), b = tensor({}, {0, 3}), c;
  ASSERT_EQ(tc_matmul(a, b, c.out()), TC_OK) << last_error();
  expect_near(read(c), std::vector<double>(6, 0.0), 0);
}

TEST_F(Linalg, MatmulGradients) {
  struct Case {
    std::vector<int64_t> a, b;
    const char* name;
  };
  for (const Case& cs :
       {Case{{3, 4}, {4, 2}, "MmBackward"}, Case{{4}, {4}, "DotBackward"}, Case{{3, 4}, {4}, "MvBackward"},
        Case{{4}, {4, 2}, "MatmulBackward"}, Case{{2, 1, 3, 4}, {5, 4, 2}, "MatmulBackward"},
        Case{{2, 3, 4}, {4, 2}, "MatmulBackward"}, Case{{3, 4}, {2, 4, 2}, "MatmulBackward"}}) {
    SCOPED_TRACE(cs.name);
    H a = random(cs.a, 5, TC_FLOAT64, true), b = random(cs.b, 6, TC_FLOAT64, true);
    H c;
    ASSERT_EQ(tc_matmul(a, b, c.out()), TC_OK);
    EXPECT_EQ(grad_fn(c), cs.name);
    c.reset();
    gradcheck(matmul_of, {a, b});
  }
}

TEST_F(Linalg, MatmulGradientThroughTransposedInput) {
  H base = random({4, 3}, 7, TC_FLOAT64, true), b = random({4, 5}, 8, TC_FLOAT64, true);
  gradcheck(
      [](const std::vector<tc_tensor>& in) {
        tc_tensor t = nullptr, out = nullptr;
        EXPECT_EQ(tc_transpose(in[0], 0, 1, &t), TC_OK);
        EXPECT_EQ(tc_matmul(t, in[1], &out), TC_OK) << last_error();
        tc_tensor_free(t);
        return out;
      },
      {base, b});
}

TEST_F(Linalg, MatmulErrors) {
  H a = random({2, 3}, 1), b = random({4, 2}, 2), f = random({3, 2}, 3, TC_FLOAT32);
  H i = tensor({1, 2, 3, 4, 5, 6}, {3, 2}, TC_INT64), s = tensor({1}, {});
  tc_tensor sentinel = reinterpret_cast<tc_tensor>(0x1234), out = sentinel;
  EXPECT_EQ(tc_matmul(a, b, &out), TC_ERR_SHAPE);
  EXPECT_NE(last_error().find("[2, 3]"), std::string::npos) << last_error();
  EXPECT_EQ(out, sentinel);
  EXPECT_EQ(tc_matmul(a, f, &out), TC_ERR_DTYPE);
  EXPECT_EQ(tc_matmul(a, i, &out), TC_ERR_DTYPE);
  EXPECT_EQ(tc_matmul(s, a, &out), TC_ERR_SHAPE);
  H b1 = random({2, 3, 2}, 4), b2 = random({3, 2, 2}, 5);  // batch 2 vs 3
  EXPECT_EQ(tc_matmul(b1, b2, &out), TC_ERR_SHAPE);
  EXPECT_EQ(tc_matmul(nullptr, a, &out), TC_ERR_INVALID_HANDLE);
  EXPECT_EQ(tc_matmul(a, a, nullptr), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(out, sentinel);
}

tc_tensor linear_of(const std::vector<tc_tensor>& in) {
  tc_tensor out = nullptr;
  EXPECT_EQ(tc_linear(in[0], in[1], in.size() > 2 ? in[2] : nullptr, &out), TC_OK) << last_error();
  return out;
}

TEST_F(Linalg, LinearValues) {
  for (int32_t dt : {TC_FLOAT32, TC_FLOAT64}) {
    H x = tensor({1, 2, 3, 4, 5, 6}, {2, 3}, dt), w = tensor({1, 0, -1, 2, 1, 0}, {2, 3}, dt);
    H b = tensor({10, 20}, {2}, dt), y, y0;
    ASSERT_EQ(tc_linear(x, w, b, y.out()), TC_OK) << last_error();
    expect_near(read(y), {1 - 3 + 10, 2 + 2 + 20, 4 - 6 + 10, 8 + 5 + 20}, 1e-6);
    ASSERT_EQ(tc_linear(x, w, nullptr, y0.out()), TC_OK);
    expect_near(read(y0), {-2, 4, -2, 13}, 1e-6);
  }
  // A 1-D x and a 3-D x keep their leading dims.
  H w = random({5, 4}, 1), x1 = random({4}, 2), x3 = random({2, 3, 4}, 3), y1, y3;
  ASSERT_EQ(tc_linear(x1, w, nullptr, y1.out()), TC_OK);
  EXPECT_EQ(shape(y1), (std::vector<int64_t>{5}));
  ASSERT_EQ(tc_linear(x3, w, nullptr, y3.out()), TC_OK);
  EXPECT_EQ(shape(y3), (std::vector<int64_t>{2, 3, 5}));
}

TEST_F(Linalg, LinearGradients) {
  H x = random({4, 3}, 1, TC_FLOAT64, true), w = random({5, 3}, 2, TC_FLOAT64, true);
  H b = random({5}, 3, TC_FLOAT64, true), y;
  ASSERT_EQ(tc_linear(x, w, b, y.out()), TC_OK);
  EXPECT_EQ(grad_fn(y), "LinearBackward");
  y.reset();
  gradcheck(linear_of, {x, w, b});
  gradcheck(linear_of, {x, w});
  H x3 = random({2, 3, 3}, 4, TC_FLOAT64, true);
  gradcheck(linear_of, {x3, w, b});
  // Non-contiguous x (a transposed view) and weight.
  H xt = random({3, 4}, 5, TC_FLOAT64, true), wt = random({3, 5}, 6, TC_FLOAT64, true);
  gradcheck(
      [](const std::vector<tc_tensor>& in) {
        tc_tensor a = nullptr, c = nullptr, out = nullptr;
        EXPECT_EQ(tc_transpose(in[0], 0, 1, &a), TC_OK);
        EXPECT_EQ(tc_transpose(in[1], 0, 1, &c), TC_OK);
        EXPECT_EQ(tc_linear(a, c, in[2], &out), TC_OK) << last_error();
        tc_tensor_free(a);
        tc_tensor_free(c);
        return out;
      },
      {xt, wt, b});
}

TEST_F(Linalg, LinearErrors) {
  H x = random({4, 3}, 1), w = random({5, 3}, 2), b = random({5}, 3), bad_w = random({5, 2}, 4);
  H bad_b = random({4}, 5), w1 = random({3}, 6), wf = random({5, 3}, 7, TC_FLOAT32);
  tc_tensor out = nullptr;
  EXPECT_EQ(tc_linear(x, bad_w, b, &out), TC_ERR_SHAPE);
  EXPECT_EQ(tc_linear(x, w, bad_b, &out), TC_ERR_SHAPE);
  EXPECT_EQ(tc_linear(x, w1, nullptr, &out), TC_ERR_SHAPE);
  EXPECT_EQ(tc_linear(x, wf, nullptr, &out), TC_ERR_DTYPE);
  EXPECT_EQ(tc_linear(x, w, b, nullptr), TC_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(out, nullptr);
}

}  // namespace
