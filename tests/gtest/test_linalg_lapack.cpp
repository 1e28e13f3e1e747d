// torch.linalg's LAPACK-backed ops (src/ops/linalg_lapack.cpp): the defining
// identities of each factorization on random batches (A = P L U, Q R, U S Vh,
// V diag(L) V^T, L L^T, A A^-1 = I), the errors and infos of singular and
// non-positive-definite inputs, NaN inputs, and every backward formula
// (src/ops/linalg_backward.cpp) against finite differences in float64.
// PyTorch parity of values and gradients is tests/python/test_linalg.py's.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "gradcheck.h"
#include "math/rows/unary_exp.h"
#include "ops/linalg_ops.h"

namespace {

using namespace tc_test;
namespace la = tc::ops::linalg;
using tc::Tensor;

class LinalgLapack : public TcTest {
 protected:
  void SetUp() override {
    TcTest::SetUp();
    int64_t has = 0;
    ASSERT_EQ(tc_get_flag("has_lapack", &has), TC_OK);
    if (!has) GTEST_SKIP() << "libtc was built without LAPACK";
  }
};

Tensor mT(const Tensor& t) { return tc::ops::transpose(t, -2, -1); }
Tensor mm(const Tensor& a, const Tensor& b) { return tc::ops::matmul(a, b); }
// Well-conditioned square matrices: random plus n on the diagonal.
Tensor well_conditioned(const tc::Dims& shape) {
  const int64_t n = shape[shape.size() - 1];
  return tc::ops::add(randn(shape),
                      tc::ops::mul_scalar(tc::ops::eye(n, n, tc::DType::f64, tc::kCPU), double(n)));
}
// Symmetric positive-definite: B B^T + n I.
Tensor spd(const tc::Dims& shape) {
  const int64_t n = shape[shape.size() - 1];
  Tensor b = randn(shape);
  return tc::ops::add(mm(b, mT(b)),
                      tc::ops::mul_scalar(tc::ops::eye(n, n, tc::DType::f64, tc::kCPU), double(n)));
}
double max_abs_diff(const Tensor& a, const Tensor& b) {
  const std::vector<double> x = values(tc::contiguous(tc::ops::sub(a, b)));
  double m = 0;
  for (double v : x) m = std::max(m, std::abs(v));
  return m;
}
Tensor identity_like(const Tensor& a) {
  const int64_t n = a->shape[a->ndim() - 1];
  return tc::ops::eye(n, n, a->dtype, tc::kCPU);
}
Tensor sym(const Tensor& a) { return tc::ops::mul_scalar(tc::ops::add(a, mT(a)), 0.5); }

TEST_F(LinalgLapack, FactorizationsReproduceTheirInput) {
  const Tensor a = well_conditioned({3, 4, 4});
  EXPECT_LT(max_abs_diff(mm(a, la::inv_ex(a, true).first), identity_like(a)), 1e-10);
  auto [p, l, u] = la::lu(a, true);
  EXPECT_LT(max_abs_diff(mm(p, mm(l, u)), a), 1e-10);
  auto [q, r] = la::qr(randn({2, 5, 3}), la::kQrReduced);
  EXPECT_LT(max_abs_diff(mm(mT(q), q), identity_like(q)), 1e-10);
  const Tensor w = randn({2, 3, 5});
  auto [uu, s, vh] = la::svd(w, false);
  EXPECT_LT(max_abs_diff(mm(tc::ops::mul(uu, tc::ops::unsqueeze(s, -2)), vh), w), 1e-10);
  const Tensor c = spd({2, 4, 4});
  const Tensor lc = la::cholesky_ex(c, false, true).first;
  EXPECT_LT(max_abs_diff(mm(lc, mT(lc)), c), 1e-10);
  auto [ev, vec] = la::eigh(c, false);
  EXPECT_LT(max_abs_diff(mm(tc::ops::mul(vec, tc::ops::unsqueeze(ev, -2)), mT(vec)), c), 1e-10);
  const Tensor b = randn({3, 4, 2});
  EXPECT_LT(max_abs_diff(mm(a, la::solve_ex(a, b, true, true).first), b), 1e-10);
  // det = the product of the eigenvalues of an SPD matrix; slogdet agrees.
  const double d = tc::read_element(la::det(c), 0);
  double prod = 1;
  for (int64_t i = 0; i < 4; ++i) prod *= tc::read_element(ev, i);
  EXPECT_NEAR(d, prod, 1e-8 * std::abs(prod));
  EXPECT_NEAR(tc::read_element(la::slogdet(c).second, 0), std::log(prod), 1e-10);
}

TEST_F(LinalgLapack, SingularMatricesNameTheBatchElementAndPivot) {
  // Batch element 1 has a zero third column: U[2, 2] is zero.
  Tensor a = well_conditioned({2, 3, 3});
  for (int64_t i = 0; i < 3; ++i) *element(a, 9 + i * 3 + 2) = 0.0;
  try {
    la::inv_ex(a, true);
    FAIL() << "inv of a singular matrix succeeded";
  } catch (const tc::Error& e) {
    EXPECT_NE(
        std::string(e.what()).find("linalg.inv: (Batch element 1): The diagonal element 3 is zero, the "
                                   "inversion could not be completed because the input matrix is singular."),
        std::string::npos)
        << e.what();
  }
  auto [x, info] = la::inv_ex(a, false);
  EXPECT_EQ(values(tc::cast(info, tc::DType::f64)), (std::vector<double>{0, 3}));
  EXPECT_THROW(la::solve_ex(a, randn({2, 3, 1}), true, true), tc::Error);
  EXPECT_EQ(tc::read_element(la::det(a), 1), 0.0);
  Tensor notpd = tc::ops::mul_scalar(spd({3, 3}), -1.0);
  auto [l, info2] = la::cholesky_ex(notpd, false, false);
  EXPECT_EQ(tc::read_element(info2, 0), 1.0);
  EXPECT_THROW(la::cholesky_ex(notpd, false, true), tc::Error);
}

TEST_F(LinalgLapack, NanInputsFinish) {
  Tensor a = well_conditioned({3, 3});
  *element(a, 4) = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isnan(tc::read_element(la::inv_ex(a, false).first, 0)));
  EXPECT_TRUE(std::isnan(tc::read_element(la::det(a), 0)));
  EXPECT_THROW(la::svd(a, false), tc::Error);
  EXPECT_THROW(la::eigh(a, false), tc::Error);
}

TEST_F(LinalgLapack, ShapeAndDtypeErrors) {
  EXPECT_THROW(la::inv_ex(randn({2, 3}), false), tc::Error);
  EXPECT_THROW(la::det(randn({3})), tc::Error);
  EXPECT_THROW(la::inv_ex(tc::ones({2, 2}, tc::DType::i64), false), tc::Error);
  EXPECT_THROW(la::solve_ex(randn({3, 3}), randn({2, 1}), true, false), tc::Error);
}

TEST_F(LinalgLapack, Gradients) {
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return la::inv_ex(x[0], false).first; },
                        {well_conditioned({2, 3, 3})}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return la::det(x[0]); }, {well_conditioned({2, 3, 3})}));
  EXPECT_TRUE(
      gradcheck([](const Inputs& x) { return la::slogdet(x[0]).second; }, {well_conditioned({3, 3})}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return la::solve_ex(x[0], x[1], true, false).first; },
                        {well_conditioned({2, 3, 3}), randn({3, 2})}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return la::solve_ex(x[0], x[1], false, false).first; },
                        {well_conditioned({3, 3}), randn({2, 3})}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return la::solve_triangular(x[0], x[1], true, true, false); },
                        {well_conditioned({3, 3}), randn({3, 2})}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return la::solve_triangular(x[0], x[1], false, false, true); },
                        {well_conditioned({3, 3}), randn({2, 3})}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return la::cholesky_ex(sym(x[0]), false, false).first; },
                        {spd({2, 3, 3})}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return la::cholesky_ex(sym(x[0]), true, false).first; },
                        {spd({3, 3})}));
  for (const tc::Dims& shape : {tc::Dims{4, 3}, tc::Dims{3, 3}, tc::Dims{3, 5}}) {
    EXPECT_TRUE(gradcheck(
        [](const Inputs& x) {
          auto [q, r] = la::qr(x[0], la::kQrReduced);
          return tc::ops::cat({tc::ops::flatten(q, 0, -1), tc::ops::flatten(r, 0, -1)}, 0);
        },
        {randn(shape)}))
        << shape;
    // A gauge-invariant function of the SVD: U diag(S) S Vh-ish products.
    EXPECT_TRUE(gradcheck(
        [](const Inputs& x) {
          auto [u, s, vh] = la::svd(x[0], false);
          return tc::ops::add(mm(tc::ops::mul(u, tc::ops::unsqueeze(tc::ops::mul(s, s), -2)), vh),
                              tc::ops::mul_scalar(x[0], 0.0));
        },
        {randn(shape)}))
        << shape;
    EXPECT_TRUE(gradcheck([](const Inputs& x) { return la::svdvals(x[0]); }, {randn(shape)})) << shape;
  }
  EXPECT_TRUE(gradcheck(
      [](const Inputs& x) {
        auto [w, v] = la::eigh(sym(x[0]), false);
        // v v^T-weighted: independent of the eigenvectors' signs.
        return tc::ops::add(
            mm(tc::ops::mul(v, tc::ops::unsqueeze(tc::ops::unary(tc::ops::row::exp, w), -2)), mT(v)),
            tc::ops::unsqueeze(w, -1));
      },
      {randn({2, 3, 3})}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return la::eigvalsh(sym(x[0]), true); }, {randn({3, 3})}));
  EXPECT_TRUE(gradcheck(
      [](const Inputs& x) {
        auto [p, l, u] = la::lu(x[0], true);
        return tc::ops::add(l, u);
      },
      {well_conditioned({2, 3, 3})}));
  EXPECT_TRUE(gradcheck([](const Inputs& x) { return std::get<0>(la::lu_factor_ex(x[0], true, false)); },
                        {well_conditioned({3, 3})}));
  EXPECT_TRUE(gradcheck(
      [](const Inputs& x) {
        auto [lu, piv, info] = la::lu_factor_ex(x[0], true, false);
        return tc::ops::add(la::lu_solve(lu, piv, x[1], true, false),
                            la::lu_solve(lu, piv, x[1], true, true));
      },
      {well_conditioned({3, 3}), randn({3, 2})}));
}

TEST_F(LinalgLapack, DetGradientAtSingularMatrices) {
  // A zero last row: det = 0 exactly, and the gradient (the cofactor matrix)
  // is zero but for the last row, whose entries are the signed 2x2 minors.
  Tensor a = tensor({1, 2, 3, 4, 5, 7, 0, 0, 0}, {3, 3});
  a->requires_grad = true;
  Tensor d = la::det(a);
  EXPECT_EQ(tc::read_element(d, 0), 0.0);
  tc::autograd::backward(d, nullptr, false);
  const Tensor g = a->grad();
  ASSERT_TRUE(g);
  const std::vector<double> expected = {0, 0, 0, 0, 0, 0, 2 * 7 - 3 * 5, -(1 * 7 - 3 * 4), 1 * 5 - 2 * 4};
  const std::vector<double> got = values(g);
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(got[i], expected[i], 1e-10) << i;
  a->set_grad(nullptr);
}

}  // namespace
