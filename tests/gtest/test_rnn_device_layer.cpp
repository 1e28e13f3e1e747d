// The whole-layer device path of ops::rnn (ops/rnn_device_layer.cpp,
// backend/rnn_device_layer.h) without a GPU: a reference table put in the
// CPU slot computes each layer with the CPU's own recurrence, and ops::rnn
// through it must equal ops::rnn without it, values and gradients, in every
// mode (layer slicing of weights and states, both directions in one call,
// the node's gradient order, saved packed weights and reserve). And the pure
// arithmetic of backend/rnn_lin_layers.h: where each of cuDNN's linear
// layers lives in PyTorch's tensors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "autograd/engine.h"
#include "backend/rnn_device_layer.h"
#include "backend/rnn_lin_layers.h"
#include "core/init.h"
#include "ops/rnn_device_layer.h"
#include "rnn_compare.h"

namespace {

using namespace tc_test;
using tc::Tensor;
using tc::rnn_fused::Cell;
using tc::rnn_fused::LayerConfig;

// Whole layers on the CPU by ops::rnn's own path (one layer, both directions):
// forward without a graph; backward by recomputing with one and asking the
// engine for the gradients. The "packed weights" are the weights flattened
// into one tensor, so backward must get them back from what forward kept.
class ReferenceLayers final : public tc::rnn_fused::LayerKernels {
 public:
  bool supports(const LayerConfig&, tc::DType) const override { return !busy_; }

  void forward(tc::rnn_fused::LayerForwardArgs& a) const override {
    Busy b;
    ++forwards;
    std::vector<Tensor> flat;
    for (const Tensor& w : a.weights) flat.push_back(tc::ops::reshape(w, {-1}));
    a.packed = tc::ops::cat(flat, 0);
    a.reserve = a.train ? tc::zeros({1}, tc::DType::u8) : Tensor();
    a.variant = 7;
    tc::NoGradGuard no_grad;
    const tc::ops::RnnResult r = tc::ops::rnn(a.x, a.hx, a.cx, a.weights, options(a.cfg));
    tc::copy_into(a.y, r.output);
    tc::copy_into(a.hy, r.h_n);
    if (a.cy) tc::copy_into(a.cy, r.c_n);
  }

  void backward(tc::rnn_fused::LayerBackwardArgs& b) const override {
    Busy busy;
    ++backwards;
    ASSERT_TRUE(b.reserve);
    ASSERT_EQ(b.variant, 7);
    const bool lstm = b.cfg.cell == Cell::lstm;
    auto leaf = [](const Tensor& t) {
      Tensor l = tc::ops::clone(t);
      l->requires_grad = true;
      return l;
    };
    std::vector<Tensor> leaves = {leaf(b.x), leaf(b.hx)};
    if (lstm) leaves.push_back(leaf(b.cx));
    const size_t first_weight = leaves.size();
    int64_t at = 0;
    for (const Tensor& dw : b.d_weights) {
      leaves.push_back(leaf(tc::ops::reshape(tc::ops::narrow(b.packed, 0, at, dw->numel()), dw->shape)));
      at += dw->numel();
    }
    ASSERT_EQ(at, b.packed->numel());
    const bool prev = tc::grad_enabled();
    tc::set_grad_enabled(true);
    const std::vector<Tensor> ws(leaves.begin() + long(first_weight), leaves.end());
    const tc::ops::RnnResult r =
        tc::ops::rnn(leaves[0], leaves[1], lstm ? leaves[2] : Tensor(), ws, options(b.cfg));
    std::vector<Tensor> outs = {r.output, r.h_n}, gouts = {b.dy, b.dhy};
    if (lstm) {
      outs.push_back(r.c_n);
      gouts.push_back(b.dcy);
    }
    for (size_t i = 0; i < outs.size(); ++i)
      if (!gouts[i]) gouts[i] = tc::zeros(outs[i]->shape, outs[i]->dtype);
    const std::vector<Tensor> g = tc::autograd::grad(outs, gouts, leaves, false, false, true, true);
    tc::set_grad_enabled(prev);
    std::vector<Tensor> targets = {b.dx, b.dhx};
    if (lstm) targets.push_back(b.dcx);
    targets.insert(targets.end(), b.d_weights.begin(), b.d_weights.end());
    ASSERT_EQ(targets.size(), g.size());
    for (size_t i = 0; i < g.size(); ++i) tc::copy_into(targets[i], g[i]);
  }

  mutable int forwards = 0, backwards = 0;

 private:
  static tc::ops::RnnOptions options(const LayerConfig& c) {
    tc::ops::RnnOptions o;
    o.mode = tc::ops::RnnMode(int32_t(c.cell));
    o.has_biases = c.has_bias;
    o.bidirectional = c.bidirectional;
    return o;
  }
  // While a layer runs, ops::rnn inside it takes its usual CPU path.
  struct Busy {
    Busy() { busy_ = true; }
    ~Busy() { busy_ = false; }
  };
  static thread_local bool busy_;
};
thread_local bool ReferenceLayers::busy_ = false;

class RnnDeviceLayer : public TcTest {
 protected:
  void TearDown() override {
    tc::rnn_fused::layer_kernels_slot(TC_DEVICE_CPU)->store(nullptr);
    TcTest::TearDown();
  }
};

TEST_F(RnnDeviceLayer, ThroughAReferenceTableEqualsTheUsualPath) {
  for (const RnnCase& c : rnn_cases()) {
    const RnnSamples s = rnn_samples(c);
    const RnnRun want = run_rnn(c, s, tc::kCPU, tc::DType::f64);
    ReferenceLayers table;
    tc::rnn_fused::layer_kernels_slot(TC_DEVICE_CPU)->store(&table);
    const RnnRun got = run_rnn(c, s, tc::kCPU, tc::DType::f64);
    tc::rnn_fused::layer_kernels_slot(TC_DEVICE_CPU)->store(nullptr);
    EXPECT_EQ(table.forwards, c.layers) << c.name;
    EXPECT_EQ(table.backwards, c.layers) << c.name;
    expect_same_run(got, want, 1e-12, c.name);
  }
}

TEST_F(RnnDeviceLayer, NoTableNoDevicePath) {
  const LayerConfig cfg{Cell::lstm, false, true, 3, 4, 0};
  EXPECT_EQ(tc::rnn_fused::layer_kernels_for(tc::kCPU), nullptr);
  EXPECT_FALSE(tc::ops::detail::device_layer_applies(randn({2, 3, 3}), cfg));
  ReferenceLayers table;
  tc::rnn_fused::layer_kernels_slot(TC_DEVICE_CPU)->store(&table);
  EXPECT_TRUE(tc::ops::detail::device_layer_applies(randn({2, 3, 3}), cfg));
  EXPECT_FALSE(tc::ops::detail::device_layer_applies(randn({0, 3, 3}), cfg));  // empty sequence
  EXPECT_FALSE(tc::ops::detail::device_layer_applies(randn({2, 0, 3}), cfg));  // empty batch
}

TEST_F(RnnDeviceLayer, InferenceKeepsNoReserve) {
  ReferenceLayers table;
  tc::rnn_fused::layer_kernels_slot(TC_DEVICE_CPU)->store(&table);
  tc::rnn_fused::LayerForwardArgs a;
  a.cfg = {Cell::gru, false, true, 3, 2, 0};
  a.x = randn({4, 2, 3});
  a.weights = {randn({6, 3}), randn({6, 2}), randn({6}), randn({6})};
  a.hx = randn({1, 2, 2});
  const tc::ops::detail::DeviceLayerResult r =
      tc::ops::detail::device_layer(a.cfg, a.x, a.hx, Tensor(), a.weights);  // nothing requires grad
  EXPECT_FALSE(r.out->grad_fn);
  EXPECT_EQ(r.out->shape, (tc::Dims{4, 2, 2}));
  EXPECT_EQ(r.h_n->shape, (tc::Dims{1, 2, 2}));
}

// Every element of every PyTorch tensor of a direction is named by exactly
// one of cuDNN's matrices or biases; the gates keep their order.
void check_cover(const LayerConfig& c) {
  const std::string what = "cell " + std::to_string(int(c.cell)) + " bias " + std::to_string(c.has_bias) +
                           " proj " + std::to_string(c.proj);
  const int64_t g = c.gates(), out = c.out_size();
  std::vector<int64_t> sizes = {g * c.hidden * c.input, g * c.hidden * out};
  if (c.has_bias) sizes.insert(sizes.end(), {g * c.hidden, g * c.hidden});
  if (c.proj) sizes.push_back(c.proj * c.hidden);
  ASSERT_EQ(int64_t(sizes.size()), c.weights_per_dir()) << what;
  std::vector<std::vector<int>> hits;
  for (int64_t n : sizes) hits.emplace_back(size_t(n), 0);
  auto mark = [&](const tc::rnn_fused::WeightSlice& s) {
    if (s.tensor < 0) return;
    ASSERT_LT(s.tensor, int32_t(sizes.size())) << what;
    ASSERT_LE(s.offset + s.count, sizes[size_t(s.tensor)]) << what;
    for (int64_t i = s.offset; i < s.offset + s.count; ++i) ++hits[size_t(s.tensor)][size_t(i)];
  };
  const int32_t n = tc::rnn_fused::lin_layer_count(c);
  EXPECT_EQ(n, 2 * g + (c.proj ? 1 : 0)) << what;
  for (int32_t id = 0; id < n; ++id) {
    mark(tc::rnn_fused::lin_layer_matrix(c, id));
    mark(tc::rnn_fused::lin_layer_bias(c, id));
  }
  for (size_t t = 0; t < hits.size(); ++t)
    for (size_t i = 0; i < hits[t].size(); ++i)
      ASSERT_EQ(hits[t][i], 1) << what << " tensor " << t << " " << i;
  // Out of range: nothing.
  EXPECT_EQ(tc::rnn_fused::lin_layer_matrix(c, n).tensor, -1) << what;
  EXPECT_EQ(tc::rnn_fused::lin_layer_matrix(c, -1).tensor, -1) << what;
  EXPECT_EQ(tc::rnn_fused::lin_layer_bias(c, 2 * int32_t(g)).tensor, -1) << what;
}

TEST(RnnLinLayers, CoverPyTorchsTensorsExactlyOnce) {
  for (Cell cell : {Cell::tanh, Cell::relu, Cell::lstm, Cell::gru})
    for (bool bias : {false, true}) {
      check_cover({cell, false, bias, 5, 3, 0});
      check_cover({cell, true, bias, 2, 4, 0});
    }
  check_cover({Cell::lstm, false, true, 5, 4, 2});
  check_cover({Cell::lstm, true, false, 3, 6, 1});
}

TEST(RnnLinLayers, GateOrderAndPlacement) {
  // LSTM, input 5, hidden 4, projection 3: ID 1 is the forget gate's input
  // matrix (rows 4..7 of w_ih); ID 6 the recurrent g gate (rows 8..11 of
  // w_hh, whose rows have P = 3 columns); ID 8 w_hr, the fifth tensor.
  const LayerConfig lstm{Cell::lstm, false, true, 5, 4, 3};
  const tc::rnn_fused::WeightSlice f = tc::rnn_fused::lin_layer_matrix(lstm, 1);
  EXPECT_EQ(f.tensor, 0);
  EXPECT_EQ(f.offset, 4 * 5);
  EXPECT_EQ(f.count, 4 * 5);
  const tc::rnn_fused::WeightSlice gr = tc::rnn_fused::lin_layer_matrix(lstm, 6);
  EXPECT_EQ(gr.tensor, 1);
  EXPECT_EQ(gr.offset, 2 * 4 * 3);
  EXPECT_EQ(gr.count, 4 * 3);
  const tc::rnn_fused::WeightSlice hr = tc::rnn_fused::lin_layer_matrix(lstm, 8);
  EXPECT_EQ(hr.tensor, 4);
  EXPECT_EQ(hr.count, 3 * 4);
  EXPECT_EQ(tc::rnn_fused::lin_layer_bias(lstm, 8).tensor, -1);  // the projection has no bias
  // GRU without biases: ID 5 is n's recurrent matrix (rows 2H..3H of w_hh).
  const LayerConfig gru{Cell::gru, false, false, 2, 3, 0};
  const tc::rnn_fused::WeightSlice n = tc::rnn_fused::lin_layer_matrix(gru, 5);
  EXPECT_EQ(n.tensor, 1);
  EXPECT_EQ(n.offset, 2 * 3 * 3);
  EXPECT_EQ(tc::rnn_fused::lin_layer_bias(gru, 5).tensor, -1);
  // With biases: ID 4 (z, recurrent) is b_hh's second block.
  const LayerConfig gru_b{Cell::gru, false, true, 2, 3, 0};
  const tc::rnn_fused::WeightSlice bz = tc::rnn_fused::lin_layer_bias(gru_b, 4);
  EXPECT_EQ(bz.tensor, 3);
  EXPECT_EQ(bz.offset, 3);
  EXPECT_EQ(bz.count, 3);
}

}  // namespace
