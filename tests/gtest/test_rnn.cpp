// tc_rnn's recurrences (ops/rnn.cpp) against finite differences in float64:
// every mode, two layers, both directions, batch_first, projections,
// unbatched input and given initial states; and its shape checks. Values
// against PyTorch are checked in tests/python/test_rnn_abi.py.
#include <gtest/gtest.h>

#include "gradcheck.h"
#include "ops/rnn.h"

namespace {

using namespace tc_test;
using tc::Dims;
using tc::Tensor;
using tc::ops::RnnMode;
using tc::ops::RnnOptions;

class Rnn : public TcTest {};

// Weights for layers x directions of a mode: w_ih, w_hh[, b_ih, b_hh][, w_hr].
Inputs weights(RnnMode mode, int64_t input, int64_t hidden, int64_t layers, bool bidir, bool biases,
               int64_t proj = 0) {
  const int64_t g = mode == RnnMode::lstm ? 4 : mode == RnnMode::gru ? 3 : 1, out = proj ? proj : hidden;
  Inputs w;
  for (int64_t l = 0; l < layers; ++l)
    for (int d = 0; d < (bidir ? 2 : 1); ++d) {
      w.push_back(uniform({g * hidden, l == 0 ? input : out * (bidir ? 2 : 1)}, -0.6, 0.6));
      w.push_back(uniform({g * hidden, out}, -0.6, 0.6));
      if (biases) {
        w.push_back(uniform({g * hidden}, -0.5, 0.5));
        w.push_back(uniform({g * hidden}, -0.5, 0.5));
      }
      if (proj) w.push_back(uniform({proj, hidden}, -0.6, 0.6));
    }
  return w;
}

// gradcheck over the input and every weight of sum(output) + sum(h_n) (+ sum(c_n)).
void check(RnnMode mode, const RnnOptions& base, const Dims& in_shape, int64_t hidden, int64_t proj = 0,
           bool states = false) {
  RnnOptions o = base;
  o.mode = mode;
  const int64_t input = in_shape[in_shape.size() - 1];
  Inputs xs = {uniform(in_shape, -1, 1)};
  const Inputs w = weights(mode, input, hidden, o.num_layers, o.bidirectional, o.has_biases, proj);
  xs.insert(xs.end(), w.begin(), w.end());
  const int64_t cells = o.num_layers * (o.bidirectional ? 2 : 1);
  const bool batched = in_shape.size() == 3;
  const int64_t batch = batched ? in_shape[o.batch_first ? 0 : 1] : 1;
  const size_t nw = w.size();
  if (states) {
    xs.push_back(batched ? uniform({cells, batch, proj ? proj : hidden}, -1, 1)
                         : uniform({cells, proj ? proj : hidden}, -1, 1));
    if (mode == RnnMode::lstm)
      xs.push_back(batched ? uniform({cells, batch, hidden}, -1, 1) : uniform({cells, hidden}, -1, 1));
  }
  auto f = [&](const Inputs& x) {
    const Inputs ws(x.begin() + 1, x.begin() + 1 + long(nw));
    const Tensor hx = states ? x[1 + nw] : Tensor();
    const Tensor cx = states && mode == RnnMode::lstm ? x[2 + nw] : Tensor();
    const auto r = tc::ops::rnn(x[0], hx, cx, ws, o);
    Tensor total = tc::ops::add(tc::ops::sum(r.output, {}, false), tc::ops::sum(r.h_n, {}, false));
    if (r.c_n) total = tc::ops::add(total, tc::ops::sum(r.c_n, {}, false));
    return total;
  };
  EXPECT_TRUE(gradcheck(f, xs)) << int(mode);
}

TEST_F(Rnn, EveryModeTwoLayersBidirectionalMatchesFiniteDifferences) {
  RnnOptions o;
  o.num_layers = 2;
  o.bidirectional = true;
  for (RnnMode m : {RnnMode::tanh, RnnMode::relu, RnnMode::lstm, RnnMode::gru}) check(m, o, {3, 2, 2}, 3);
}

TEST_F(Rnn, BatchFirstNoBiasesAndGivenStates) {
  RnnOptions o;
  o.batch_first = true;
  o.has_biases = false;
  for (RnnMode m : {RnnMode::tanh, RnnMode::lstm, RnnMode::gru}) check(m, o, {2, 3, 2}, 2, 0, true);
}

TEST_F(Rnn, LstmProjectionAndUnbatchedInput) {
  RnnOptions o;
  o.num_layers = 2;
  check(RnnMode::lstm, o, {3, 2, 3}, 3, 2, true);
  check(RnnMode::lstm, o, {4, 2}, 3, 0, true);
  check(RnnMode::gru, o, {4, 2}, 2, 0, false);
}

TEST_F(Rnn, ShapesOfTheResults) {
  RnnOptions o;
  o.mode = RnnMode::lstm;
  o.num_layers = 2;
  o.bidirectional = true;
  o.batch_first = true;
  const auto r =
      tc::ops::rnn(randn({5, 7, 3}), nullptr, nullptr, weights(RnnMode::lstm, 3, 4, 2, true, true, 2), o);
  EXPECT_EQ(r.output->shape, (Dims{5, 7, 4}));  // (B, T, D * proj)
  EXPECT_EQ(r.h_n->shape, (Dims{4, 5, 2}));
  EXPECT_EQ(r.c_n->shape, (Dims{4, 5, 4}));
}

TEST_F(Rnn, RefusesMismatchedSizesWithPyTorchsWords) {
  RnnOptions o;
  o.mode = RnnMode::gru;
  const Inputs w = weights(RnnMode::gru, 3, 4, 1, false, true);
  auto message = [&](const Tensor& x, const Tensor& hx) {
    try {
      tc::ops::rnn(x, hx, nullptr, w, o);
    } catch (const tc::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(randn({2, 5, 2}), nullptr)
                .find("input.size(-1) must be equal to input_size. Expected 3, got 2"),
            std::string::npos);
  EXPECT_NE(message(randn({2, 5, 3}), randn({2, 5, 4})).find("Expected hidden size (1, 5, 4), got [2, 5, 4]"),
            std::string::npos);
}

}  // namespace
