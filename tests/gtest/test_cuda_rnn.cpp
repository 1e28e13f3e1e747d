// ops::rnn on CUDA through cuDNN's RNN API (src/cuda/cudnn_rnn.cpp) against
// the CPU's recurrence on the same samples: outputs, final states and the
// gradients of the input, every weight and the initial states, in float64
// (tight) and float32, for LSTM with a projection, GRU, RNN_TANH/RELU, both
// directions, two layers, batch_first, unbatched input and no biases. Skips
// with the reason without a usable GPU (or a module without cuDNN).
#include <gtest/gtest.h>

#include "backend/rnn_device_layer.h"
#include "core/init.h"
#include "ops/rnn_device_layer.h"
#include "rnn_compare.h"
#include "tc.h"

namespace {

using namespace tc_test;
using tc::rnn_fused::Cell;

const int32_t kCuda0 = TC_DEVICE(TC_DEVICE_CUDA, 0);

class CudaRnn : public CudaTest {
 protected:
  void SetUp() override {
    CudaTest::SetUp();
    if (IsSkipped()) return;
    if (!tc::rnn_fused::layer_kernels_for(kCuda0)) GTEST_SKIP() << "the CUDA module has no cuDNN RNN table";
    tc_set_matmul_precision(TC_MATMUL_PRECISION_HIGHEST);  // no TF32 in the float32 comparison
  }
};

TEST_F(CudaRnn, TakesTheCudnnPathForFloat32AndFloat64) {
  const tc::Tensor x = tc::to_device(randn({3, 2, 4}), kCuda0);
  for (Cell cell : {Cell::tanh, Cell::relu, Cell::lstm, Cell::gru})
    EXPECT_TRUE(tc::ops::detail::device_layer_applies(x, {cell, true, true, 4, 3, 0})) << int(cell);
  EXPECT_TRUE(tc::ops::detail::device_layer_applies(x, {Cell::lstm, false, true, 4, 3, 2}));
  EXPECT_TRUE(
      tc::ops::detail::device_layer_applies(tc::cast(x, tc::DType::f32), {Cell::gru, false, true, 4, 3, 0}));
  // Not mapped: the composed path runs these.
  EXPECT_FALSE(
      tc::ops::detail::device_layer_applies(tc::cast(x, tc::DType::f16), {Cell::gru, false, true, 4, 3, 0}));
  EXPECT_FALSE(
      tc::ops::detail::device_layer_applies(x, {Cell::lstm, false, true, 4, 3, 3}));  // proj == hidden
}

TEST_F(CudaRnn, MatchesTheCpuInFloat64) {
  for (const RnnCase& c : rnn_cases()) {
    const RnnSamples s = rnn_samples(c);
    const RnnRun want = run_rnn(c, s, tc::kCPU, tc::DType::f64);
    const RnnRun got = run_rnn(c, s, kCuda0, tc::DType::f64);
    expect_same_run(got, want, 1e-10, c.name);
  }
}

TEST_F(CudaRnn, MatchesTheCpuInFloat32) {
  for (const RnnCase& c : rnn_cases()) {
    const RnnSamples s = rnn_samples(c);
    const RnnRun want = run_rnn(c, s, tc::kCPU, tc::DType::f64);
    const RnnRun got = run_rnn(c, s, kCuda0, tc::DType::f32);
    expect_same_run(got, want, 2e-4, c.name);
  }
}

TEST_F(CudaRnn, InferenceWithoutGradMatches) {
  const RnnCase c = rnn_cases()[0];
  const RnnSamples s = rnn_samples(c);
  const RnnRun want = run_rnn(c, s, tc::kCPU, tc::DType::f64);
  tc::ops::RnnOptions o;
  o.mode = c.mode;
  o.num_layers = c.layers;
  o.bidirectional = c.bidirectional;
  std::vector<tc::Tensor> ws;
  for (const tc::Tensor& w : s.weights) ws.push_back(tc::to_device(w, kCuda0));
  tc::NoGradGuard no_grad;
  const tc::ops::RnnResult r = tc::ops::rnn(tc::to_device(s.x, kCuda0), tc::to_device(s.hx, kCuda0),
                                            tc::to_device(s.cx, kCuda0), ws, o);
  EXPECT_FALSE(r.output->grad_fn);
  expect_close(tc::to_device(r.output, tc::kCPU), want.output, 1e-10, "output");
  expect_close(tc::to_device(r.h_n, tc::kCPU), want.h_n, 1e-10, "h_n");
  expect_close(tc::to_device(r.c_n, tc::kCPU), want.c_n, 1e-10, "c_n");
}

}  // namespace
