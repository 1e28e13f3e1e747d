// CUDA reductions, softmax family, losses and indexing ops against the CPU
// backend: forward and backward, contiguous and strided inputs, index errors
// and determinism. Every test skips with the reason when no usable GPU is there.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "autograd/node.h"
#include "gradcheck.h"

using namespace tc_test;
using tc::DType;
using tc::Tensor;
namespace ops = tc::ops;

namespace {

const tc::Device kCuda = TC_DEVICE(TC_DEVICE_CUDA, 0);

class CudaReduce : public CudaTest {};

Tensor host(const Tensor& t) { return tc::to_device(t, tc::kCPU); }

// t's values on the GPU: contiguous, or (strided) in a non-contiguous layout.
Tensor dev(const Tensor& t, bool strided = false) {
  if (!strided || t->ndim() == 0) return tc::to_device(t, kCuda);
  Tensor nc = noncontiguous(t);
  const int64_t elems = nc->storage->nbytes / nc->itemsize();
  Tensor flat = tc::to_device(tc::make_view(nc, tc::Dims{elems}, tc::Dims{1}, 0), kCuda);
  return tc::make_view(flat, nc->shape, nc->strides, nc->offset);
}

::testing::AssertionResult close(const Tensor& want, const Tensor& got_dev, double tol) {
  if (got_dev->device != kCuda) return ::testing::AssertionFailure() << "result is not on cuda";
  const Tensor got = host(got_dev);
  if (want->shape != got->shape)
    return ::testing::AssertionFailure() << "shape " << got->shape << ", expected " << want->shape;
  if (want->dtype != got->dtype)
    return ::testing::AssertionFailure()
           << "dtype " << tc::dtype_name(got->dtype) << ", expected " << tc::dtype_name(want->dtype);
  const std::vector<double> w = values(want), g = values(got);
  for (size_t i = 0; i < w.size(); ++i) {
    const bool same = std::isnan(w[i])
                          ? std::isnan(g[i])
                          : (w[i] == g[i] || std::fabs(w[i] - g[i]) <= tol * (1 + std::fabs(w[i])));
    if (!same)
      return ::testing::AssertionFailure() << "element " << i << ": " << g[i] << ", expected " << w[i];
  }
  return ::testing::AssertionSuccess();
}

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

// f on CPU inputs and on their GPU copies (strided or not): the outputs, and,
// for floating inputs, the gradients of a random output gradient.
void parity(const std::vector<Tensor>& inputs, const Fn& f, double tol, bool grad = true) {
  for (bool strided : {false, true}) {
    SCOPED_TRACE(strided ? "strided" : "contiguous");
    std::vector<Tensor> c, d;
    for (const Tensor& t : inputs) {
      c.push_back(tc::clone_data(t));
      d.push_back(dev(t, strided));
      const bool g = grad && tc::is_floating(t->dtype);
      c.back()->requires_grad = g;
      d.back()->requires_grad = g;
    }
    Tensor yc = f(c), yd = f(d);
    ASSERT_TRUE(close(yc, yd, tol));
    if (!grad || !yc->requires_grad) continue;
    Tensor g = randn(yc->shape, yc->dtype);
    tc::autograd::backward(yc, g, false);
    tc::autograd::backward(yd, dev(g), false);
    for (size_t i = 0; i < c.size(); ++i) {
      if (!c[i]->requires_grad) continue;
      SCOPED_TRACE("gradient of input " + std::to_string(i));
      ASSERT_TRUE(d[i]->grad() != nullptr);
      EXPECT_TRUE(close(c[i]->grad(), d[i]->grad(), tol));
    }
  }
}

// The error code and message of f.
std::pair<int32_t, std::string> error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const tc::Error& e) {
    return {e.code(), e.what()};
  }
  return {TC_OK, ""};
}

const std::vector<tc::Dims> kDimSets = {{}, {0}, {1}, {2}, {0, 2}, {-1, 0}, {0, 1, 2}};

}  // namespace

TEST_F(CudaReduce, SumMeanOverDimSets) {
  Tensor a = randn({5, 6, 7});
  for (const tc::Dims& dims : kDimSets) {
    for (bool keep : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "dims " << dims << " keepdim " << keep);
      parity(
          {a}, [&](const std::vector<Tensor>& x) { return ops::sum(x[0], dims, keep); }, 1e-12);
      parity(
          {a}, [&](const std::vector<Tensor>& x) { return ops::mean(x[0], dims, keep); }, 1e-12);
      parity(
          {tc::cast(a, DType::f32)}, [&](const std::vector<Tensor>& x) { return ops::sum(x[0], dims, keep); },
          1e-6);
    }
  }
  // Integer and bool sums are int64, exactly.
  Tensor i = tc::cast(uniform({4, 9}, -100, 100), DType::i32);
  parity(
      {i}, [](const std::vector<Tensor>& x) { return ops::sum(x[0], {1}, false); }, 0);
  Tensor b = tc::cast(uniform({4, 9}, 0, 2), DType::b8);
  parity(
      {b}, [](const std::vector<Tensor>& x) { return ops::sum(x[0], {}, false); }, 0);
  // Empty reductions.
  parity(
      {tc::zeros({0, 3}, DType::f32)},
      [](const std::vector<Tensor>& x) { return ops::sum(x[0], {0}, false); }, 0, false);
}

TEST_F(CudaReduce, SixteenBitFloatsAccumulateInFloat) {
  Tensor a = randn({64, 300});
  for (DType dt : {DType::f16, DType::bf16}) {
    Tensor d = tc::cast(dev(tc::cast(a, DType::f32)), dt);
    Tensor want = ops::sum(tc::cast(tc::cast(tc::cast(a, DType::f32), dt), DType::f32), {1}, false);
    Tensor got = ops::sum(d, {1}, false);
    EXPECT_EQ(got->dtype, dt);
    EXPECT_TRUE(close(want, tc::cast(got, DType::f32), 1e-2));
    Tensor m = ops::mean(d, {0}, false);
    EXPECT_TRUE(close(ops::mean(tc::cast(tc::cast(tc::cast(a, DType::f32), dt), DType::f32), {0}, false),
                      tc::cast(m, DType::f32), 1e-2));
  }
}

TEST_F(CudaReduce, SixteenBitSoftmaxAndLosses) {
  // The CPU computes only float32/float64: compare with float32 of the same rounded inputs.
  Tensor x = tc::cast(randn({8, 33}), DType::f32);
  Tensor target = tensor({0, 32, 5, 5, 7, 1, 2, 3}, {8}, DType::i64);
  for (DType dt : {DType::f16, DType::bf16}) {
    Tensor rounded = tc::cast(tc::cast(x, dt), DType::f32);
    Tensor d = tc::cast(dev(x), dt);
    EXPECT_TRUE(close(ops::softmax(rounded, 1), tc::cast(ops::softmax(d, 1), DType::f32), 1e-2));
    EXPECT_TRUE(close(ops::log_softmax(rounded, 0), tc::cast(ops::log_softmax(d, 0), DType::f32), 1e-2));
    EXPECT_TRUE(close(ops::cross_entropy(rounded, target, TC_REDUCTION_MEAN),
                      tc::cast(ops::cross_entropy(d, dev(target), TC_REDUCTION_MEAN), DType::f32), 1e-2));
    EXPECT_TRUE(close(ops::max_dim(rounded, 1, false).second, ops::max_dim(d, 1, false).second, 0));
  }
}

TEST_F(CudaReduce, LongReductionsAreDeterministic) {
  // Few outputs of many elements: the chunked two-pass path.
  Tensor a = tc::cast(randn({3, 400000}), DType::f32);
  Tensor d = dev(a);
  Tensor s1 = host(ops::sum(d, {1}, false)), s2 = host(ops::sum(d, {1}, false));
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(s1->data_as<float>()[i], s2->data_as<float>()[i]);
  EXPECT_TRUE(close(ops::sum(a, {1}, false), ops::sum(d, {1}, false), 1e-6));
  EXPECT_TRUE(close(ops::sum(a, {}, false), ops::sum(d, {}, false), 1e-6));
  // Column sums (the reduced dim outermost).
  Tensor c = tc::cast(randn({100000, 5}), DType::f32);
  EXPECT_TRUE(close(ops::sum(c, {0}, false), ops::sum(dev(c), {0}, false), 1e-6));
}

TEST_F(CudaReduce, VarStdLogsumexp) {
  Tensor a = randn({4, 5, 6});
  for (const tc::Dims& dims : kDimSets) {
    SCOPED_TRACE(::testing::Message() << "dims " << dims);
    for (int64_t corr : {0, 1}) {
      parity(
          {a}, [&](const std::vector<Tensor>& x) { return ops::var(x[0], dims, corr, false); }, 1e-10);
      parity(
          {a}, [&](const std::vector<Tensor>& x) { return ops::std(x[0], dims, corr, true); }, 1e-10);
    }
    parity(
        {a}, [&](const std::vector<Tensor>& x) { return ops::logsumexp(x[0], dims, false); }, 1e-12);
  }
  Tensor inf = tensor({-INFINITY, -INFINITY, 1000, 1000, INFINITY, 1}, {3, 2});
  parity(
      {inf}, [](const std::vector<Tensor>& x) { return ops::logsumexp(x[0], {1}, false); }, 1e-12, false);
}

TEST_F(CudaReduce, MaxMinArgWithTiesAndNaN) {
  Tensor a = tensor({3, 7, 7, -1, NAN, 2, 0, 0, 5, 5, NAN, NAN}, {3, 4});
  for (int64_t dim : {0, 1, -1}) {
    for (bool keep : {false, true}) {
      for (bool is_max : {true, false}) {
        auto fc = is_max ? ops::max_dim(a, dim, keep) : ops::min_dim(a, dim, keep);
        auto fd = is_max ? ops::max_dim(dev(a, true), dim, keep) : ops::min_dim(dev(a, true), dim, keep);
        EXPECT_TRUE(close(fc.first, fd.first, 0));
        EXPECT_TRUE(close(fc.second, fd.second, 0));
        EXPECT_TRUE(close(is_max ? ops::argmax(a, dim, keep) : ops::argmin(a, dim, keep),
                          is_max ? ops::argmax(dev(a), dim, keep) : ops::argmin(dev(a), dim, keep), 0));
      }
    }
  }
  EXPECT_TRUE(close(ops::argmax(a, TC_DIM_ALL, false), ops::argmax(dev(a, true), TC_DIM_ALL, false), 0));
  EXPECT_TRUE(close(ops::max_all(a), ops::max_all(dev(a)), 0));
  Tensor b = randn({6, 7, 8});
  for (int64_t dim : {0, 1, 2}) {
    parity(
        {b}, [&](const std::vector<Tensor>& x) { return ops::max_dim(x[0], dim, false).first; }, 0);
    parity(
        {b}, [&](const std::vector<Tensor>& x) { return ops::min_dim(x[0], dim, true).first; }, 0);
    parity(
        {b}, [&](const std::vector<Tensor>& x) { return ops::argmin(x[0], dim, false); }, 0);
  }
  parity(
      {b}, [](const std::vector<Tensor>& x) { return ops::max_all(x[0]); }, 0);
  parity(
      {b}, [](const std::vector<Tensor>& x) { return ops::min_all(x[0]); }, 0);
  parity(
      {b}, [](const std::vector<Tensor>& x) { return ops::argmax(x[0], TC_DIM_ALL, true); }, 0);
  Tensor ints = tc::cast(uniform({5, 40}, -50, 50), DType::i16);
  parity(
      {ints}, [](const std::vector<Tensor>& x) { return ops::max_dim(x[0], 1, false).second; }, 0);
  EXPECT_EQ(error_of([&] { ops::max_all(dev(tc::zeros({0}, DType::f32))); }).first, TC_ERR_SHAPE);
}

TEST_F(CudaReduce, SoftmaxFamily) {
  Tensor a = randn({3, 4, 5});
  for (int64_t dim : {0, 1, 2, -1}) {
    SCOPED_TRACE(::testing::Message() << "dim " << dim);
    parity(
        {a}, [&](const std::vector<Tensor>& x) { return ops::softmax(x[0], dim); }, 1e-12);
    parity(
        {a}, [&](const std::vector<Tensor>& x) { return ops::log_softmax(x[0], dim); }, 1e-12);
  }
  // Long rows (block per row) in float32.
  Tensor f = tc::cast(randn({7, 3000}), DType::f32);
  parity(
      {f}, [](const std::vector<Tensor>& x) { return ops::softmax(x[0], 1); }, 1e-6);
  parity(
      {f}, [](const std::vector<Tensor>& x) { return ops::log_softmax(x[0], 0); }, 1e-6);
  Tensor inf = tensor({-INFINITY, -INFINITY, 1, INFINITY}, {2, 2});
  parity(
      {inf}, [](const std::vector<Tensor>& x) { return ops::log_softmax(x[0], 1); }, 1e-12, false);
}

TEST_F(CudaReduce, LossesAndTheirErrors) {
  Tensor logits = randn({6, 5});
  Tensor target = tensor({0, 4, 2, 2, 1, 3}, {6}, DType::i64);
  for (int32_t red : {TC_REDUCTION_NONE, TC_REDUCTION_MEAN, TC_REDUCTION_SUM}) {
    SCOPED_TRACE(::testing::Message() << "reduction " << red);
    parity(
        {logits, target}, [&](const std::vector<Tensor>& x) { return ops::cross_entropy(x[0], x[1], red); },
        1e-12);
    parity(
        {logits, target},
        [&](const std::vector<Tensor>& x) { return ops::nll_loss(ops::log_softmax(x[0], 1), x[1], red); },
        1e-12);
    parity(
        {logits, randn({6, 5})}, [&](const std::vector<Tensor>& x) { return ops::mse_loss(x[0], x[1], red); },
        1e-12);
  }
  // One sample: [C] logits and a 0-dim target.
  parity(
      {randn({5}), tensor({3}, {}, DType::i64)},
      [](const std::vector<Tensor>& x) { return ops::cross_entropy(x[0], x[1], TC_REDUCTION_MEAN); }, 1e-12);
  // An out-of-range target: the CPU's code and message.
  Tensor bad = tensor({0, 5, 2, -1, 1, 3}, {6}, DType::i64);
  for (auto* fn : {&ops::cross_entropy, &ops::nll_loss}) {
    auto want = error_of([&] { fn(logits, bad, TC_REDUCTION_MEAN); });
    auto got = error_of([&] { fn(dev(logits), dev(bad), TC_REDUCTION_MEAN); });
    EXPECT_EQ(want.first, TC_ERR_INDEX);
    EXPECT_EQ(got, want);
  }
  EXPECT_EQ(error_of([&] { ops::cross_entropy(dev(logits), target, TC_REDUCTION_MEAN); }).first,
            TC_ERR_DEVICE);
}

TEST_F(CudaReduce, DropoutKeepsOrZeroesAndScales) {
  Tensor a = tc::cast(uniform({200, 50}, 1, 2), DType::f32);
  Tensor d = dev(a);
  d->requires_grad = true;
  Tensor y = ops::dropout(d, 0.25, true);
  ASSERT_EQ(y->device, kCuda);
  tc::autograd::backward(y, dev(tc::ones({200, 50}, DType::f32)), false);
  Tensor yh = host(y), gh = host(d->grad());
  int64_t kept = 0;
  for (int64_t i = 0; i < a->numel(); ++i) {
    const float x = a->data_as<float>()[i], v = yh->data_as<float>()[i], g = gh->data_as<float>()[i];
    if (v == 0.0f) {
      EXPECT_EQ(g, 0.0f);
    } else {
      ++kept;
      EXPECT_FLOAT_EQ(v, x / 0.75f);
      EXPECT_FLOAT_EQ(g, 1 / 0.75f);
    }
  }
  EXPECT_NEAR(double(kept) / double(a->numel()), 0.75, 0.03);
  EXPECT_EQ(ops::dropout(d, 0.5, false), d);
}

TEST_F(CudaReduce, EmbeddingGatherIndexSelect) {
  Tensor w = randn({7, 4});
  Tensor idx = tensor({0, 3, 3, 6, 1, 3}, {2, 3}, DType::i64);
  parity(
      {w, idx}, [](const std::vector<Tensor>& x) { return ops::embedding(x[0], x[1]); }, 0);
  Tensor a = randn({4, 5, 3});
  Tensor gi = tensor({0, 1, 1, 0, 4, 4, 2, 3, 0, 1, 1, 1}, {2, 2, 3}, DType::i64);
  parity(
      {a, gi}, [](const std::vector<Tensor>& x) { return ops::gather(x[0], 1, x[1]); }, 0);
  Tensor si = tensor({2, 0, 2, 4}, {4}, DType::i64);
  parity(
      {a, si}, [](const std::vector<Tensor>& x) { return ops::index_select(x[0], 1, x[1]); }, 0);
  parity(
      {a, tensor({1}, {}, DType::i64)},
      [](const std::vector<Tensor>& x) { return ops::index_select(x[0], 0, x[1]); }, 0);
  // The scatter-add of repeated indices is deterministic.
  Tensor big_w = dev(tc::cast(randn({50, 64}), DType::f32));
  Tensor big_i = dev(tc::cast(uniform({4000}, 0, 50), DType::i64));
  Tensor g = dev(tc::cast(randn({4000, 64}), DType::f32));
  std::vector<Tensor> grads;
  for (int run = 0; run < 2; ++run) {
    big_w->set_grad(nullptr);
    big_w->requires_grad = true;
    tc::autograd::backward(ops::embedding(big_w, big_i), g, false);
    grads.push_back(host(big_w->grad()));
  }
  for (int64_t i = 0; i < grads[0]->numel(); ++i)
    ASSERT_EQ(grads[0]->data_as<float>()[i], grads[1]->data_as<float>()[i]);
  // Out-of-range indices: the CPU's code and message.
  Tensor bad = tensor({0, 9, 1, -2}, {4}, DType::i64);
  auto check = [&](const std::function<void(bool)>& f) {
    auto want = error_of([&] { f(false); });
    auto got = error_of([&] { f(true); });
    EXPECT_EQ(want.first, TC_ERR_INDEX);
    EXPECT_EQ(got, want);
  };
  check([&](bool on) { ops::embedding(on ? dev(w) : w, on ? dev(bad) : bad); });
  check([&](bool on) { ops::index_select(on ? dev(a) : a, 1, on ? dev(bad) : bad); });
  Tensor bad3 = tensor({0, 9, 1, -2}, {1, 4, 1}, DType::i64);
  check([&](bool on) { ops::gather(on ? dev(a) : a, 1, on ? dev(bad3) : bad3); });
  check([&](bool on) { ops::one_hot(on ? dev(bad) : bad, 5); });
}

TEST_F(CudaReduce, OneHotCatStackSplit) {
  Tensor idx = tensor({2, 0, 4, 1}, {2, 2}, DType::i64);
  for (int64_t classes : {-1, 5, 7}) {
    parity(
        {idx}, [&](const std::vector<Tensor>& x) { return ops::one_hot(x[0], classes); }, 0, false);
  }
  Tensor a = randn({2, 3}), b = randn({2, 5}), c = tc::cast(randn({2, 1}), DType::f32);
  parity(
      {a, b, c}, [](const std::vector<Tensor>& x) { return ops::cat(x, 1); }, 0);
  parity(
      {a, randn({4, 3})}, [](const std::vector<Tensor>& x) { return ops::cat(x, 0); }, 0);
  parity(
      {a, randn({2, 3}), randn({2, 3})}, [](const std::vector<Tensor>& x) { return ops::stack(x, 1); }, 0);
  Tensor i32 = tc::cast(uniform({2, 2}, 0, 9), DType::i32);
  parity(
      {i32, tc::cast(uniform({2, 3}, 0, 9), DType::i64)},
      [](const std::vector<Tensor>& x) { return ops::cat(x, 1); }, 0, false);
  Tensor d = dev(randn({6, 4}));
  for (const Tensor& piece : ops::chunk(d, 3, 0)) {
    EXPECT_EQ(piece->device, kCuda);
    EXPECT_EQ(piece->storage, d->storage);  // a view
  }
}

TEST_F(CudaReduce, ConvAndPoolingMatchTheCpu) {
  const int64_t one[2] = {1, 1}, zero[2] = {0, 0}, two[2] = {2, 2};
  const int64_t pad[2] = {1, 2}, dil[2] = {2, 1}, k32[2] = {3, 2}, s21[2] = {2, 1};
  int64_t cudnn = -1;
  ASSERT_EQ(tc_get_flag("has_cudnn", &cudnn), TC_OK);  // the module is loaded by now
  for (DType dt : {DType::f64, DType::f32}) {
    SCOPED_TRACE(tc::dtype_name(dt));
    const double tol = dt == DType::f64 ? 1e-10 : 1e-4;
    // max_pool2d: libtc's kernels. Overlapping windows, padding, and a NaN.
    parity(
        {randn({2, 3, 7, 6}, dt)},
        [&](const std::vector<Tensor>& t) { return ops::max_pool2d(t[0], k32, s21, one); }, tol);
    Tensor with_nan = randn({1, 2, 4, 4}, dt);
    ops::fill_(tc::make_view(with_nan, {1}, {1}, 5), std::nan(""));
    parity(
        {with_nan}, [&](const std::vector<Tensor>& t) { return ops::max_pool2d(t[0], two, two, zero); }, tol);
    if (cudnn == 0) continue;
    // conv2d (cuDNN): groups, stride, padding, dilation and a bias; then a plain one.
    parity(
        {randn({2, 4, 9, 8}, dt), randn({6, 2, 3, 3}, dt), randn({6}, dt)},
        [&](const std::vector<Tensor>& t) { return ops::conv2d(t[0], t[1], t[2], two, pad, dil, 2); }, tol);
    parity(
        {randn({2, 3, 6, 5}, dt), randn({5, 3, 3, 3}, dt)},
        [&](const std::vector<Tensor>& t) { return ops::conv2d(t[0], t[1], nullptr, one, one, one, 1); },
        tol);
    // avg_pool2d (cuDNN): count_include_pad averages, overlapping windows.
    parity(
        {randn({2, 3, 7, 6}, dt)},
        [&](const std::vector<Tensor>& t) { return ops::avg_pool2d(t[0], k32, s21, one); }, tol);
  }
  if (cudnn == 0) {  // a toolkit without cuDNN: conv2d and avg_pool2d say so
    Tensor x = dev(randn({1, 2, 6, 6})), w = dev(randn({3, 2, 3, 3}));
    for (const auto& [code, message] : {error_of([&] { ops::conv2d(x, w, nullptr, one, zero, one, 1); }),
                                        error_of([&] { ops::avg_pool2d(x, two, two, zero); })}) {
      EXPECT_EQ(code, TC_ERR_NOT_IMPLEMENTED);
      EXPECT_NE(message.find("cuda"), std::string::npos) << message;
    }
  }
  // Operands on two devices are refused before any kernel runs.
  Tensor x = dev(randn({1, 2, 6, 6})), w = randn({3, 2, 3, 3});
  EXPECT_EQ(error_of([&] { ops::conv2d(x, w, nullptr, one, zero, one, 1); }).first, TC_ERR_DEVICE);
}
