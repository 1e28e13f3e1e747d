// CUDA reductions, scans, sort and search against the CPU backend:
// values, indices and gradients, contiguous and strided inputs. Every test
// skips with the reason when no usable GPU is there.
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

class CudaSortReduce : public CudaTest {};

Tensor on_gpu(const Tensor& t, bool strided) {
  if (!strided || t->ndim() < 2) return tc::to_device(t, kCuda);
  // A transposed copy viewed back: same values, non-contiguous.
  Tensor nc = noncontiguous(t);
  const int64_t elems = nc->storage->nbytes / nc->itemsize();
  Tensor flat = tc::to_device(tc::make_view(nc, tc::Dims{elems}, tc::Dims{1}, 0), kCuda);
  return tc::make_view(flat, nc->shape, nc->strides, nc->offset);
}

::testing::AssertionResult same(const Tensor& want, const Tensor& got_dev, double tol) {
  if (got_dev->device != kCuda) return ::testing::AssertionFailure() << "result is not on cuda";
  const Tensor got = tc::to_device(got_dev, tc::kCPU);
  if (want->shape != got->shape || want->dtype != got->dtype)
    return ::testing::AssertionFailure() << "shape/dtype " << got->shape << " " << tc::dtype_name(got->dtype);
  const std::vector<double> w = values(want), g = values(got);
  for (size_t i = 0; i < w.size(); ++i) {
    const bool ok =
        std::isnan(w[i]) ? std::isnan(g[i]) : std::fabs(w[i] - g[i]) <= tol * (1 + std::fabs(w[i]));
    if (!ok) return ::testing::AssertionFailure() << "element " << i << ": " << g[i] << ", expected " << w[i];
  }
  return ::testing::AssertionSuccess();
}

// f's outputs (all of them) on the CPU and on the GPU, and the gradient of the
// first through a random upstream gradient when x is floating.
using Fn = std::function<std::vector<Tensor>(const Tensor&)>;
void parity(const Tensor& x, const Fn& f, double tol) {
  for (bool strided : {false, true}) {
    SCOPED_TRACE(strided ? "strided" : "contiguous");
    Tensor c = tc::clone_data(x), d = on_gpu(x, strided);
    const bool grad = tc::is_floating(x->dtype);
    c->requires_grad = grad;
    d->requires_grad = grad;
    const std::vector<Tensor> yc = f(c), yd = f(d);
    ASSERT_EQ(yc.size(), yd.size());
    for (size_t i = 0; i < yc.size(); ++i) ASSERT_TRUE(same(yc[i], yd[i], tol)) << "output " << i;
    if (!grad || !yc[0]->requires_grad) continue;
    Tensor g = randn(yc[0]->shape, yc[0]->dtype);
    tc::autograd::backward(yc[0], g, false);
    tc::autograd::backward(yd[0], tc::to_device(g, kCuda), false);
    EXPECT_TRUE(same(c->grad(), d->grad(), tol)) << "gradient";
  }
}

std::vector<Tensor> pair(const std::pair<Tensor, Tensor>& p) { return {p.first, p.second}; }

// Values with ties (small integers as floats): stable sorts and modes are determined.
Tensor ties(const tc::Dims& shape) {
  return tc::cast(tc::cast(uniform(shape, -3, 3), DType::i64), DType::f64);
}

}  // namespace

TEST_F(CudaSortReduce, SortScansAndOrderStatistics) {
  for (const Tensor& x : {ties({5, 7}), randn({6, 9}), tc::cast(ties({4, 6}), DType::i32)}) {
    for (int64_t dim : {0, -1}) {
      SCOPED_TRACE(::testing::Message() << tc::dtype_name(x->dtype) << " dim " << dim);
      parity(
          x, [&](const Tensor& t) { return pair(ops::sort(t, dim, true)); }, 0);
      parity(
          x, [&](const Tensor& t) { return std::vector<Tensor>{ops::argsort(t, dim, false)}; }, 0);
      parity(
          x, [&](const Tensor& t) { return pair(ops::cummax(t, dim)); }, 0);
      parity(
          x, [&](const Tensor& t) { return pair(ops::cummin(t, dim)); }, 0);
      parity(
          x, [&](const Tensor& t) { return std::vector<Tensor>{ops::cumprod(t, dim)}; }, 1e-12);
      parity(
          x, [&](const Tensor& t) { return pair(ops::mode(t, dim, false)); }, 0);
      parity(
          x, [&](const Tensor& t) { return pair(ops::kthvalue(t, 2, dim, true)); }, 0);
      parity(
          x, [&](const Tensor& t) { return pair(ops::median_dim(t, dim, false)); }, 0);
      parity(
          x, [&](const Tensor& t) { return std::vector<Tensor>{ops::prod(t, {dim}, false)}; }, 1e-12);
    }
  }
  parity(
      randn({4, 8}), [](const Tensor& t) { return std::vector<Tensor>{ops::logcumsumexp(t, 1)}; }, 1e-12);
  parity(
      randn({3, 5}), [](const Tensor& t) { return std::vector<Tensor>{ops::median(t)}; }, 0);
  Tensor zeros = tensor({2, 0, 3, 0, 5, 1.5, -2, 0.5, 0, 4}, {2, 5});
  parity(
      zeros, [](const Tensor& t) { return std::vector<Tensor>{ops::cumprod(t, 1)}; }, 1e-12);
  parity(
      zeros, [](const Tensor& t) { return std::vector<Tensor>{ops::prod(t, {1}, false)}; }, 1e-12);
}

TEST_F(CudaSortReduce, ReductionsUniqueSearchsorted) {
  Tensor x = ties({4, 5, 3});
  parity(
      x,
      [](const Tensor& t) {
        return std::vector<Tensor>{ops::amax(t, {0, 2}, true)};
      },
      0);
  parity(
      x, [](const Tensor& t) { return std::vector<Tensor>{ops::norm(t, 3.0, {1}, false)}; }, 1e-12);
  parity(
      x, [](const Tensor& t) { return std::vector<Tensor>{ops::all(t, {1}, false)}; }, 0);
  parity(
      x, [](const Tensor& t) { return std::vector<Tensor>{ops::count_nonzero(t, {0})}; }, 0);
  parity(
      x,
      [](const Tensor& t) {
        auto [v, i, c] = ops::unique(t);
        return std::vector<Tensor>{v, i, c};
      },
      0);
  Tensor seq = std::get<0>(ops::unique(x));
  for (bool right : {false, true}) {
    Tensor want = ops::searchsorted(seq, x, right, false);
    EXPECT_TRUE(
        same(want, ops::searchsorted(tc::to_device(seq, kCuda), tc::to_device(x, kCuda), right, false), 0));
  }
}
