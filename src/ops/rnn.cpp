// The recurrent layers of torch.nn (RNN, LSTM, GRU) as one composed op. The
// input projection of every time step is one matmul per layer and direction;
// only the hidden-state part runs step by step. Each step is a handful of
// recorded ops, so autograd gives the backward through time.
#include "ops/rnn.h"

#include <string>

#include "math/rows/unary_relu.h"
#include "math/rows/unary_sigmoid.h"
#include "math/rows/unary_tanh.h"
#include "ops/internal.h"
#include "ops/rnn_device_layer.h"
#include "ops/rnn_fused_layer.h"

namespace tc::ops {

using namespace detail;

namespace {

const char* mode_name(RnnMode m) {
  switch (m) {
    case RnnMode::tanh:
      return "RNN_TANH";
    case RnnMode::relu:
      return "RNN_RELU";
    case RnnMode::lstm:
      return "LSTM";
    case RnnMode::gru:
      return "GRU";
  }
  return "RNN";
}

int64_t gate_count(RnnMode m) { return m == RnnMode::lstm ? 4 : m == RnnMode::gru ? 3 : 1; }

// "(2, 3, 20)", PyTorch's way of printing an expected size.
std::string paren(const Dims& d) {
  std::string s = "(";
  for (int64_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + (d.size() == 1 ? ",)" : ")");
}

// One layer and direction's weights, checked against the sizes they imply.
struct Cell {
  Tensor w_ih, w_hh, b_ih, b_hh, w_hr;
};

struct Step {
  Tensor h, c;
};

// One time step of the recurrence: xp is the input's projection for this
// step (x W_ih^T + b_ih), h and c the state before it.
Step step(RnnMode mode, const Cell& w, const Tensor& xp, const Step& s) {
  const Tensor hp = linear(s.h, w.w_hh, w.b_hh);
  switch (mode) {
    case RnnMode::tanh:
      return {unary(row::tanh, add(xp, hp)), nullptr};
    case RnnMode::relu:
      return {unary(row::relu, add(xp, hp)), nullptr};
    case RnnMode::lstm: {
      const Tensor gates = add(xp, hp);
      const int64_t n = gates->shape[1] / 4;
      // i, f and o through one sigmoid over the whole row; g through tanh.
      const Tensor sig = unary(row::sigmoid, gates);
      const Tensor i = narrow(sig, 1, 0, n), f = narrow(sig, 1, n, n), o = narrow(sig, 1, 3 * n, n);
      const Tensor g = unary(row::tanh, narrow(gates, 1, 2 * n, n));
      const Tensor c = add(mul(f, s.c), mul(i, g));
      Tensor h = mul(o, unary(row::tanh, c));
      if (w.w_hr) h = linear(h, w.w_hr, nullptr);
      return {h, c};
    }
    case RnnMode::gru: {
      const int64_t n = xp->shape[1] / 3;
      // r and z from the sum; n's hidden part is gated by r (PyTorch's GRU).
      const Tensor rz = unary(row::sigmoid, add(narrow(xp, 1, 0, 2 * n), narrow(hp, 1, 0, 2 * n)));
      const Tensor r = narrow(rz, 1, 0, n), z = narrow(rz, 1, n, n);
      const Tensor nn = unary(row::tanh, add(narrow(xp, 1, 2 * n, n), mul(r, narrow(hp, 1, 2 * n, n))));
      return {add(nn, mul(z, sub(s.h, nn))), nullptr};  // (1 - z) * n + z * h
    }
  }
  return s;
}

void check_weight(const char* op, const Tensor& w, const Dims& want, const char* what, int64_t layer,
                  bool reverse, const Tensor& input) {
  const std::string name = std::string(what) + "_l" + std::to_string(layer) + (reverse ? "_reverse" : "");
  TC_CHECK(w->dtype == input->dtype, TC_ERR_DTYPE, op, ": ", name, " is ", dtype_name(w->dtype),
           " but the input is ", dtype_name(input->dtype));
  check_same_device(op, input, w);
  TC_CHECK(w->shape == want, TC_ERR_SHAPE, op, ": ", name, " has shape ", w->shape, " but ", paren(want),
           " is expected");
}

}  // namespace

RnnResult rnn(const Tensor& input, const Tensor& hx, const Tensor& cx, const std::vector<Tensor>& weights,
              const RnnOptions& o) {
  const char* op = mode_name(o.mode);
  const bool lstm = o.mode == RnnMode::lstm;
  TC_CHECK(int32_t(o.mode) >= 0 && int32_t(o.mode) <= 3, TC_ERR_INVALID_ARGUMENT, "rnn: unknown mode ",
           int32_t(o.mode));
  TC_CHECK(o.num_layers >= 1, TC_ERR_INVALID_ARGUMENT, op, ": num_layers must be at least 1, got ",
           o.num_layers);
  TC_CHECK(o.dropout >= 0 && o.dropout <= 1, TC_ERR_INVALID_ARGUMENT, op,
           ": dropout should be a number in range [0, 1] representing the probability of an element being "
           "zeroed, got ",
           o.dropout);
  TC_CHECK(input->ndim() == 2 || input->ndim() == 3, TC_ERR_SHAPE, op,
           ": Expected input to be 2-D or 3-D but received ", input->ndim(), "-D tensor");
  TC_CHECK(is_floating(input->dtype), TC_ERR_DTYPE, op, ": expected a floating input but got ",
           describe(input));
  const int64_t dirs = o.bidirectional ? 2 : 1;
  const int64_t cells = o.num_layers * dirs;
  const int64_t per_cell = int64_t(weights.size()) / cells;
  TC_CHECK(per_cell * cells == int64_t(weights.size()) && per_cell >= 2, TC_ERR_INVALID_ARGUMENT, op, ": ",
           weights.size(), " weights do not make ", cells,
           " layers/directions of w_ih, w_hh[, b_ih, b_hh][, w_hr]");
  const int64_t proj_weights = per_cell - 2 - (o.has_biases ? 2 : 0);
  TC_CHECK(proj_weights == 0 || (lstm && proj_weights == 1), TC_ERR_INVALID_ARGUMENT, op, ": ", per_cell,
           " weights per layer and direction do not match has_biases = ", o.has_biases,
           lstm ? " (with or without a projection w_hr)" : "");
  const int64_t gates = gate_count(o.mode);
  TC_CHECK(weights[1]->ndim() == 2 && weights[1]->shape[0] % gates == 0 && weights[1]->shape[0] > 0,
           TC_ERR_SHAPE, op, ": weight_hh_l0 has shape ", weights[1]->shape, ", not (", gates,
           " * hidden_size, ...)");
  const int64_t hidden = weights[1]->shape[0] / gates;
  TC_CHECK(proj_weights == 0 || weights[per_cell - 1]->ndim() == 2, TC_ERR_SHAPE, op,
           ": weight_hr_l0 has shape ", weights[per_cell - 1]->shape, ", not (proj_size, hidden_size)");
  const int64_t out_size = proj_weights ? weights[per_cell - 1]->shape[0] : hidden;  // H_out
  TC_CHECK(out_size > 0 && out_size <= hidden, TC_ERR_SHAPE, op, ": proj_size (", out_size,
           ") must be positive and smaller than hidden_size (", hidden, ")");
  const int64_t input_size = weights[0]->ndim() == 2 ? weights[0]->shape[1] : -1;

  // Batched layout (T, B, I) from any accepted form.
  const bool batched = input->ndim() == 3;
  Tensor x = batched ? (o.batch_first ? transpose(input, 0, 1) : input) : unsqueeze(input, 1);
  const int64_t seq = x->shape[0], batch = x->shape[1];
  TC_CHECK(x->shape[2] == input_size, TC_ERR_SHAPE, op,
           ": input.size(-1) must be equal to input_size. Expected ", input_size, ", got ", x->shape[2]);

  // Initial states: zeros, or the given ones checked as PyTorch does.
  auto initial = [&](const Tensor& given, int64_t size, const char* which) {
    const Dims want = batched ? Dims{cells, batch, size} : Dims{cells, size};
    if (!given) return zeros({cells, batch, size}, input->dtype, input->device);
    TC_CHECK(given->shape == want, TC_ERR_SHAPE, op, ": Expected ", which, " size ", paren(want), ", got ",
             given->shape);
    TC_CHECK(given->dtype == input->dtype, TC_ERR_DTYPE, op, ": ", which, " is ", dtype_name(given->dtype),
             " but the input is ", dtype_name(input->dtype));
    check_same_device(op, input, given);
    return batched ? given : unsqueeze(given, 1);
  };
  const Tensor h0 = initial(hx, out_size, lstm ? "hidden[0]" : "hidden");
  const Tensor c0 = lstm ? initial(cx, hidden, "hidden[1]") : Tensor();
  TC_CHECK(lstm || !cx, TC_ERR_INVALID_ARGUMENT, op, ": only an LSTM takes a cell state");

  auto check_cell = [&](const Cell& cell, int64_t layer, int64_t d, int64_t in_size) {
    check_weight(op, cell.w_ih, {gates * hidden, in_size}, "weight_ih", layer, d == 1, input);
    check_weight(op, cell.w_hh, {gates * hidden, out_size}, "weight_hh", layer, d == 1, input);
    if (cell.b_ih) check_weight(op, cell.b_ih, {gates * hidden}, "bias_ih", layer, d == 1, input);
    if (cell.b_hh) check_weight(op, cell.b_hh, {gates * hidden}, "bias_hh", layer, d == 1, input);
    if (cell.w_hr) check_weight(op, cell.w_hr, {out_size, hidden}, "weight_hr", layer, d == 1, input);
  };
  std::vector<Tensor> h_last, c_last;
  for (int64_t layer = 0; layer < o.num_layers; ++layer) {
    const int64_t in_size = x->shape[2];
    std::vector<Tensor> outs_by_dir;
    {
      // A device with whole-layer kernels (cuDNN) runs both directions and the
      // input GEMM in one call; the weights are checked first, as below.
      const rnn_fused::LayerConfig cfg{
          rnn_fused::Cell(int32_t(o.mode)), o.bidirectional, o.has_biases, in_size, hidden,
          proj_weights ? out_size : 0};
      if (device_layer_applies(x, cfg)) {
        const size_t first = size_t(layer * dirs * per_cell);
        const std::vector<Tensor> ws(weights.begin() + long(first),
                                     weights.begin() + long(first + dirs * per_cell));
        for (int64_t d = 0; d < dirs; ++d) {
          const Tensor* w = &ws[size_t(d * per_cell)];
          check_cell({w[0], w[1], o.has_biases ? w[2] : Tensor(), o.has_biases ? w[3] : Tensor(),
                      proj_weights ? w[per_cell - 1] : Tensor()},
                     layer, d, in_size);
        }
        const DeviceLayerResult f = device_layer(cfg, x, narrow(h0, 0, layer * dirs, dirs),
                                                 lstm ? narrow(c0, 0, layer * dirs, dirs) : Tensor(), ws);
        for (int64_t d = 0; d < dirs; ++d) {
          h_last.push_back(select(f.h_n, 0, d));
          if (lstm) c_last.push_back(select(f.c_n, 0, d));
        }
        x = f.out;
        if (o.dropout > 0 && o.train && layer + 1 < o.num_layers) x = dropout(x, o.dropout, true);
        continue;
      }
    }
    for (int64_t d = 0; d < dirs; ++d) {
      const int64_t k = layer * dirs + d;
      const Tensor* w = &weights[size_t(k * per_cell)];
      Cell cell{w[0], w[1], o.has_biases ? w[2] : Tensor(), o.has_biases ? w[3] : Tensor(),
                proj_weights ? w[per_cell - 1] : Tensor()};
      check_cell(cell, layer, d, in_size);

      const Tensor xp = linear(x, cell.w_ih, cell.b_ih);  // every step's input projection at once
      if (!cell.w_hr && fused_layer_applies(xp)) {
        // The whole recurrence as one op (CPU float32/float64 kernels).
        const FusedLayerResult f = fused_layer(o.mode, d == 1, xp, select(h0, 0, k),
                                               lstm ? select(c0, 0, k) : Tensor(), cell.w_hh, cell.b_hh);
        h_last.push_back(f.h_n);
        if (lstm) c_last.push_back(f.c_n);
        outs_by_dir.push_back(f.out);
        continue;
      }
      // One split, not a select per step: each select's backward would make a
      // gradient of xp's full size, quadratic in the sequence length.
      const std::vector<Tensor> xps = seq > 0 ? split(xp, 1, 0) : std::vector<Tensor>();
      Step s{select(h0, 0, k), lstm ? select(c0, 0, k) : Tensor()};
      std::vector<Tensor> outs(static_cast<size_t>(seq));
      for (int64_t i = 0; i < seq; ++i) {
        const int64_t t = d == 0 ? i : seq - 1 - i;
        s = step(o.mode, cell, squeeze(xps[size_t(t)], 0), s);
        outs[size_t(t)] = s.h;
      }
      h_last.push_back(s.h);
      if (lstm) c_last.push_back(s.c);
      outs_by_dir.push_back(seq > 0 ? stack(outs, 0)
                                    : zeros({0, batch, out_size}, input->dtype, input->device));
    }
    x = dirs == 1 ? outs_by_dir[0] : cat(outs_by_dir, 2);
    if (o.dropout > 0 && o.train && layer + 1 < o.num_layers) x = dropout(x, o.dropout, true);
  }

  RnnResult r;
  r.output = batched ? (o.batch_first ? transpose(x, 0, 1) : x) : squeeze(x, 1);
  r.h_n = stack(h_last, 0);
  if (!batched) r.h_n = squeeze(r.h_n, 1);
  if (lstm) {
    r.c_n = stack(c_last, 0);
    if (!batched) r.c_n = squeeze(r.c_n, 1);
  }
  return r;
}

namespace detail {
FusedLayerResult composed_layer(RnnMode mode, bool reverse, const Tensor& xp, const Tensor& h0,
                                const Tensor& c0, const Tensor& w_hh, const Tensor& b_hh) {
  const Cell cell{Tensor(), w_hh, Tensor(), b_hh, Tensor()};
  const int64_t seq = xp->shape[0];
  const std::vector<Tensor> xps = split(xp, 1, 0);
  Step s{h0, c0};
  std::vector<Tensor> outs(static_cast<size_t>(seq));
  for (int64_t i = 0; i < seq; ++i) {
    const int64_t t = reverse ? seq - 1 - i : i;
    s = step(mode, cell, squeeze(xps[size_t(t)], 0), s);
    outs[size_t(t)] = s.h;
  }
  return {stack(outs, 0), s.h, s.c};
}
}  // namespace detail

}  // namespace tc::ops
