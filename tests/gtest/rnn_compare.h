// Shared by the recurrent-layer device tests (test_rnn_device_layer.cpp on
// the CPU, test_cuda_rnn.cpp on a GPU): runs ops::rnn on some device and
// dtype from float64 CPU samples, backpropagates fixed random output
// gradients, and hands back every result and input gradient as float64 CPU
// tensors, so that a device's run can be compared with the CPU's.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "autograd/node.h"
#include "gradcheck.h"
#include "ops/ops.h"
#include "ops/rnn.h"

namespace tc_test {

struct RnnCase {
  const char* name;
  tc::ops::RnnMode mode;
  int64_t layers;
  bool bidirectional;
  bool biases;
  int64_t proj;  // LSTM projection size, 0 for none
  bool batch_first;
  bool states;   // hx (and cx) given
  bool only_hn;  // the loss reads h_n alone: output's gradient is null
  tc::Dims in_shape;
  int64_t hidden;
};

// The CPU float64 samples of a case: x, the weights (PyTorch's order), hx, cx
// (null when not given), and the output gradients gy, gh, gc.
struct RnnSamples {
  Inputs weights;
  tc::Tensor x, hx, cx, gy, gh, gc;
};

inline RnnSamples rnn_samples(const RnnCase& c) {
  using tc::ops::RnnMode;
  const int64_t g = c.mode == RnnMode::lstm ? 4 : c.mode == RnnMode::gru ? 3 : 1;
  const int64_t out = c.proj ? c.proj : c.hidden, dirs = c.bidirectional ? 2 : 1;
  const bool batched = c.in_shape.size() == 3;
  const int64_t input = c.in_shape.back();
  const int64_t steps = batched ? c.in_shape[c.batch_first ? 1 : 0] : c.in_shape[0];
  const int64_t batch = batched ? c.in_shape[c.batch_first ? 0 : 1] : 1;
  RnnSamples s;
  for (int64_t l = 0; l < c.layers; ++l)
    for (int64_t d = 0; d < dirs; ++d) {
      s.weights.push_back(uniform({g * c.hidden, l == 0 ? input : out * dirs}, -0.6, 0.6));
      s.weights.push_back(uniform({g * c.hidden, out}, -0.6, 0.6));
      if (c.biases) {
        s.weights.push_back(uniform({g * c.hidden}, -0.5, 0.5));
        s.weights.push_back(uniform({g * c.hidden}, -0.5, 0.5));
      }
      if (c.proj) s.weights.push_back(uniform({c.proj, c.hidden}, -0.6, 0.6));
    }
  s.x = uniform(c.in_shape, -1, 1);
  const int64_t cells = c.layers * dirs;
  auto state = [&](int64_t size) {
    return batched ? uniform({cells, batch, size}, -1, 1) : uniform({cells, size}, -1, 1);
  };
  if (c.states) {
    s.hx = state(out);
    if (c.mode == RnnMode::lstm) s.cx = state(c.hidden);
  }
  const tc::Dims out_shape =
      batched ? (c.batch_first ? tc::Dims{batch, steps, dirs * out} : tc::Dims{steps, batch, dirs * out})
              : tc::Dims{steps, dirs * out};
  s.gy = uniform(out_shape, -1, 1);
  s.gh = state(out);
  if (c.mode == RnnMode::lstm) s.gc = state(c.hidden);
  return s;
}

// Results and gradients of x, each weight, hx, cx (those given), as float64
// CPU tensors.
struct RnnRun {
  tc::Tensor output, h_n, c_n;
  std::vector<tc::Tensor> grads;
};

inline RnnRun run_rnn(const RnnCase& c, const RnnSamples& s, tc::Device device, tc::DType dt) {
  auto leaf = [&](const tc::Tensor& t) {
    if (!t) return tc::Tensor();
    // A fresh tensor: cast and to_device may hand back the sample itself.
    tc::Tensor l = tc::ops::clone(tc::to_device(tc::cast(t, dt), device));
    l->requires_grad = true;
    return l;
  };
  const tc::Tensor x = leaf(s.x), hx = leaf(s.hx), cx = leaf(s.cx);
  std::vector<tc::Tensor> ws;
  for (const tc::Tensor& w : s.weights) ws.push_back(leaf(w));
  tc::ops::RnnOptions o;
  o.mode = c.mode;
  o.num_layers = c.layers;
  o.has_biases = c.biases;
  o.bidirectional = c.bidirectional;
  o.batch_first = c.batch_first;
  const tc::ops::RnnResult r = tc::ops::rnn(x, hx, cx, ws, o);
  auto dot = [&](const tc::Tensor& a, const tc::Tensor& g) {
    return tc::ops::sum(tc::ops::mul(a, tc::to_device(tc::cast(g, dt), device)), {}, false);
  };
  tc::Tensor loss = dot(r.h_n, s.gh);
  if (!c.only_hn) loss = tc::ops::add(loss, dot(r.output, s.gy));
  if (r.c_n && !c.only_hn) loss = tc::ops::add(loss, dot(r.c_n, s.gc));
  tc::autograd::backward(loss, tc::Tensor(), false);
  auto host = [](const tc::Tensor& t) {
    return t ? tc::cast(tc::to_device(tc::ops::detach(t), tc::kCPU), tc::DType::f64) : tc::Tensor();
  };
  RnnRun run{host(r.output), host(r.h_n), host(r.c_n), {}};
  std::vector<tc::Tensor> leaves = {x};
  leaves.insert(leaves.end(), ws.begin(), ws.end());
  for (const tc::Tensor& t : {hx, cx})
    if (t) leaves.push_back(t);
  for (const tc::Tensor& t : leaves) run.grads.push_back(host(t->grad()));
  return run;
}

inline void expect_close(const tc::Tensor& got, const tc::Tensor& want, double tol, const std::string& what) {
  ASSERT_EQ(bool(got), bool(want)) << what;
  if (!got) return;
  ASSERT_EQ(got->shape, want->shape) << what;
  const std::vector<double> g = values(got), w = values(want);
  for (size_t i = 0; i < g.size(); ++i)
    ASSERT_LE(std::fabs(g[i] - w[i]), tol * (1 + std::fabs(w[i]))) << what << " element " << i;
}

inline void expect_same_run(const RnnRun& got, const RnnRun& want, double tol, const std::string& what) {
  expect_close(got.output, want.output, tol, what + ": output");
  expect_close(got.h_n, want.h_n, tol, what + ": h_n");
  expect_close(got.c_n, want.c_n, tol, what + ": c_n");
  ASSERT_EQ(got.grads.size(), want.grads.size()) << what;
  for (size_t i = 0; i < got.grads.size(); ++i)
    expect_close(got.grads[i], want.grads[i], tol, what + ": gradient of leaf " + std::to_string(i));
}

// The cases both device tests run: every mode, a projection, both
// directions, two layers, batch_first, unbatched input, given states, no
// biases, and a loss that leaves the output's gradient null.
inline std::vector<RnnCase> rnn_cases() {
  using tc::ops::RnnMode;
  return {
      {"lstm_proj_bidir_2layers_states", RnnMode::lstm, 2, true, true, 2, false, true, false, {5, 3, 4}, 3},
      {"gru_bidir_2layers_batch_first", RnnMode::gru, 2, true, true, 0, true, false, false, {3, 5, 4}, 3},
      {"tanh_2layers_states", RnnMode::tanh, 2, false, true, 0, false, true, false, {4, 2, 3}, 5},
      {"relu_bidir_no_bias", RnnMode::relu, 1, true, false, 0, false, false, false, {4, 2, 3}, 4},
      {"lstm_unbatched_states", RnnMode::lstm, 1, false, true, 0, false, true, false, {6, 3}, 4},
      {"gru_no_bias_states", RnnMode::gru, 1, false, false, 0, false, true, false, {4, 2, 3}, 4},
      {"lstm_bidir_only_h_n", RnnMode::lstm, 2, true, true, 0, false, true, true, {4, 2, 3}, 3},
  };
}

}  // namespace tc_test
