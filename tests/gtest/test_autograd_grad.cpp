// tc_autograd_grad and tc_backward_ex (torch.autograd.grad / backward with
// options), and create_graph: gradients handed back without touching .grad,
// pruning to the inputs, several roots, second derivatives against hand
// computation and finite differences, and the not-implemented marker.
#include <cmath>

#include "autograd/engine.h"
#include "gradcheck.h"
#include "math/rows/unary_exp.h"
#include "math/rows/unary_tanh.h"
#include "tc_binary_ops.h"

using namespace tc_test;
using tc::DType;
using tc::Tensor;
namespace ops = tc::ops;
namespace ag = tc::autograd;

class AutogradGrad : public TcTest {};

namespace {
double scalar(const Tensor& t) { return tc::read_element(t, 0); }
}  // namespace

TEST_F(AutogradGrad, GradLeavesGradUntouched) {
  Tensor x = leaf({1, 2, 3}, {3});
  Tensor y = ops::sum(ops::mul(x, x), {}, false);
  std::vector<Tensor> g = ag::grad({y}, {}, {x}, false, false, false, false);
  ASSERT_EQ(g.size(), 1u);
  EXPECT_EQ(values(g[0]), (std::vector<double>{2, 4, 6}));
  EXPECT_EQ(x->grad(), nullptr);
}

TEST_F(AutogradGrad, SecondDerivativeOfCubeIsSixX) {
  // y = sum(x^3): dy/dx = 3x^2, d/dx sum(3x^2) = 6x
  Tensor x = leaf({0.5, -1.5, 2}, {3});
  Tensor y = ops::sum(ops::mul(ops::mul(x, x), x), {}, false);
  std::vector<Tensor> g = ag::grad({y}, {}, {x}, true, true, false, false);
  ASSERT_TRUE(g[0]->requires_grad);
  std::vector<Tensor> h = ag::grad({ops::sum(g[0], {}, false)}, {}, {x}, false, false, false, false);
  EXPECT_EQ(values(h[0]), (std::vector<double>{3, -9, 12}));
  EXPECT_EQ(x->grad(), nullptr);
}

TEST_F(AutogradGrad, ComposedFormulasMatchFiniteDifferences) {
  // d2/dx2 of tanh(x) * exp(x) summed, against central differences of the first derivative.
  auto first = [](double v) {
    Tensor x = leaf({v}, {1});
    Tensor y = ops::sum(ops::mul(ops::unary(ops::row::tanh, x), ops::unary(ops::row::exp, x)), {}, false);
    return scalar(ag::grad({y}, {}, {x}, false, false, false, false)[0]);
  };
  const double v = 0.3, eps = 1e-6;
  Tensor x = leaf({v}, {1});
  Tensor y = ops::sum(ops::mul(ops::unary(ops::row::tanh, x), ops::unary(ops::row::exp, x)), {}, false);
  Tensor g = ag::grad({y}, {}, {x}, true, true, false, false)[0];
  Tensor h = ag::grad({ops::sum(g, {}, false)}, {}, {x}, false, false, false, false)[0];
  EXPECT_NEAR(scalar(h), (first(v + eps) - first(v - eps)) / (2 * eps), 1e-6);
}

TEST_F(AutogradGrad, UnusedAndNotRequiringGrad) {
  Tensor x = leaf({1, 2}, {2}), z = leaf({3}, {1}), c = tensor({1, 1}, {2});
  Tensor y = ops::sum(ops::mul(x, x), {}, false);
  EXPECT_EQ(code_of([&] { ag::grad({y}, {}, {c}, true, false, false, false); }), TC_ERR_AUTOGRAD);
  EXPECT_EQ(code_of([&] { ag::grad({y}, {}, {x, z}, true, false, false, false); }), TC_ERR_AUTOGRAD);
  std::vector<Tensor> g = ag::grad({y}, {}, {x, z}, true, false, true, false);
  EXPECT_EQ(g[1], nullptr);
  g = ag::grad({y}, {}, {x, z}, true, false, false, true);  // materialized: zeros
  EXPECT_EQ(values(g[1]), (std::vector<double>{0}));
}

TEST_F(AutogradGrad, CumprodWithAZeroDifferentiatesTwice) {
  // y = x0 + x0 x1 + x0 x1 x2; sum(dy/dx) = 1 + x1 + x1 x2 + x0 + x0 x2 + x0 x1,
  // whose gradient at (1, 0, 4) is (1 + x1 + x2, 1 + x0 + x2, x0 + x1) = (5, 6, 1).
  Tensor x = leaf({1, 0, 4}, {3});
  Tensor y = ops::sum(ops::cumprod(x, 0), {}, false);
  Tensor g = ag::grad({y}, {}, {x}, true, true, false, false)[0];
  ASSERT_TRUE(g->requires_grad);
  EXPECT_EQ(values(g), (std::vector<double>{1, 5, 0}));
  Tensor h = ag::grad({ops::sum(g, {}, false)}, {}, {x}, false, false, false, false)[0];
  EXPECT_EQ(values(h), (std::vector<double>{5, 6, 1}));
}

TEST_F(AutogradGrad, NotImplementedIsNamed) {
  // scatter_reduce "prod" with two zeros of src scattered to one element:
  // src's gradient is marked (as PyTorch's), not differentiable twice.
  Tensor x = leaf({1.5, 2, -1}, {1, 3}), v = leaf({0, 0, 3}, {1, 3});
  Tensor index = tc::cast(tensor({1, 1, 2}, {1, 3}), DType::i64);
  Tensor y = ops::scatter_reduce(x, 1, index, v, TC_SCATTER_PROD, true);
  Tensor g = ag::grad({ops::sum(ops::mul(y, y), {}, false)}, {}, {v}, true, true, false, false)[0];
  ASSERT_TRUE(g->requires_grad);
  try {
    ag::grad({ops::sum(ops::mul(g, g), {}, false)}, {}, {v}, false, false, false, false);
    FAIL() << "no error";
  } catch (const tc::Error& e) {
    EXPECT_EQ(e.code(), TC_ERR_NOT_IMPLEMENTED);
    EXPECT_NE(std::string(e.what()).find("the derivative of 'scatter_reduce_backward' is not implemented"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(AutogradGrad, ThroughTheAbi) {
  int64_t shape[] = {3};
  tc_tensor x = nullptr, sq = nullptr, y = nullptr;
  ASSERT_TRUE(ok(tc_full(shape, 1, 2.0, TC_FLOAT64, TC_CPU, &x)));
  ASSERT_TRUE(ok(tc_tensor_set_requires_grad(x, 1)));
  ASSERT_TRUE(ok(tc_mul(x, x, &sq)));
  ASSERT_TRUE(ok(tc_sum(sq, nullptr, 0, 0, &y)));
  tc_grad_options o{sizeof(tc_grad_options), -1, 1, 0, 0};
  tc_tensor g = nullptr;
  ASSERT_TRUE(ok(tc_autograd_grad(&y, 1, nullptr, &x, 1, &o, &g)));
  double buf[3];
  ASSERT_TRUE(ok(tc_tensor_copy_to(g, buf, sizeof buf)));
  EXPECT_EQ(buf[0], 4.0);
  tc_tensor none = nullptr;
  ASSERT_TRUE(ok(tc_tensor_grad(x, &none)));
  EXPECT_EQ(none, nullptr);  // nothing accumulated
  // The gradient's graph: d/dx sum(2x) = 2, into .grad through tc_backward_ex with inputs.
  tc_tensor gs = nullptr;
  ASSERT_TRUE(ok(tc_sum(g, nullptr, 0, 0, &gs)));
  const tc_backward_options bo{sizeof(tc_backward_options), 0, 0, &x, 1};
  ASSERT_TRUE(ok(tc_backward_ex(&gs, 1, nullptr, &bo)));
  tc_tensor acc = nullptr;
  ASSERT_TRUE(ok(tc_tensor_grad(x, &acc)));
  ASSERT_TRUE(ok(tc_tensor_copy_to(acc, buf, sizeof buf)));
  EXPECT_EQ(buf[1], 2.0);
  // Errors leave out-params untouched.
  tc_tensor z = nullptr;  // a leaf that requires grad but that y does not use
  ASSERT_TRUE(ok(tc_full(shape, 1, 1.0, TC_FLOAT64, TC_CPU, &z)));
  ASSERT_TRUE(ok(tc_tensor_set_requires_grad(z, 1)));
  tc_tensor untouched = reinterpret_cast<tc_tensor>(uintptr_t(0x1234));
  EXPECT_EQ(tc_autograd_grad(&y, 1, nullptr, &z, 1, nullptr, &untouched), TC_ERR_AUTOGRAD);
  EXPECT_EQ(untouched, reinterpret_cast<tc_tensor>(uintptr_t(0x1234)));
  EXPECT_NE(last_error().find("tc_autograd_grad"), std::string::npos);
  EXPECT_NE(last_error().find("appears to not have been used in the graph"), std::string::npos);
  for (tc_tensor t : {x, sq, y, g, gs, acc, z}) tc_tensor_free(t);
}
