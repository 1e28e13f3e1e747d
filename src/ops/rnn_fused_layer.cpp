// ops::rnn's layers through the fused kernels (backend/rnn_fused.h): the
// forward of a whole layer and direction is one op, and its backward one
// node, in place of a dozen recorded ops per time step. The composed path of
// rnn.cpp stays for what the kernels do not cover (LSTM projections, other
// devices and dtypes).
#include "ops/rnn_fused_layer.h"

#include "autograd/engine.h"
#include "autograd/function.h"
#include "backend/rnn_fused.h"
#include "ops/internal.h"
#include "ops/ops.h"

namespace tc::ops::detail {

namespace {

const char* backward_name(RnnMode m) {
  switch (m) {
    case RnnMode::tanh:
      return "RnnTanhBackward";
    case RnnMode::relu:
      return "RnnReluBackward";
    case RnnMode::lstm:
      return "LstmBackward";
    case RnnMode::gru:
      return "GruBackward";
  }
  return "RnnBackward";
}

}  // namespace

bool fused_layer_applies(const Tensor& xp) {
  return xp->device == kCPU && (xp->dtype == DType::f32 || xp->dtype == DType::f64) && xp->ndim() == 3 &&
         xp->shape[0] > 0 && xp->shape[1] > 0;
}

FusedLayerResult fused_layer(RnnMode mode, bool reverse, const Tensor& xp, const Tensor& h0, const Tensor& c0,
                             const Tensor& w_hh, const Tensor& b_hh) {
  const bool lstm = mode == RnnMode::lstm;
  const rnn_fused::Cell cell = rnn_fused::Cell(int32_t(mode));
  const int64_t steps = xp->shape[0], batch = xp->shape[1], hidden = w_hh->shape[1];
  const DType dt = xp->dtype;
  const int64_t acts = rnn_fused::saved_acts(cell);

  rnn_fused::ForwardArgs a;
  a.cell = cell;
  a.reverse = reverse;
  // Plain data for the kernels; xp's own contiguous form is recorded so that
  // its gradient reaches the input projection.
  const Tensor xpc = ops::contiguous(xp);
  a.xp = xpc;
  a.w_hh = tc::contiguous(w_hh);
  a.b_hh = b_hh ? tc::contiguous(b_hh) : Tensor();
  a.h0 = tc::contiguous(h0);
  a.c0 = lstm ? tc::contiguous(c0) : Tensor();
  a.out = empty({steps, batch, hidden}, dt);
  a.h_n = empty({batch, hidden}, dt);
  a.c_n = lstm ? empty({batch, hidden}, dt) : Tensor();
  a.cs = lstm ? empty({steps, batch, hidden}, dt) : Tensor();
  a.acts = acts ? empty({steps, batch, acts * hidden}, dt) : Tensor();
  rnn_fused::forward(a);

  FusedLayerResult r{a.out, a.h_n, a.c_n};
  const std::vector<Tensor> outputs =
      lstm ? std::vector<Tensor>{r.out, r.h_n, r.c_n} : std::vector<Tensor>{r.out, r.h_n};
  // saved: w_hh, h0, c0, out (an alias: the node must not own its output),
  // cs, acts; then the inputs themselves, for the recorded form under
  // create_graph.
  autograd::record_function(
      backward_name(mode), {xpc, h0, lstm ? c0 : Tensor(), w_hh, b_hh}, outputs,
      {a.w_hh, a.h0, a.c0, autograd::alias(a.out), a.cs, a.acts, xpc, h0, lstm ? c0 : Tensor(), w_hh, b_hh},
      [mode, cell, reverse, lstm, has_bias = bool(b_hh)](const autograd::Grads& g,
                                                         const std::vector<Tensor>& s) {
        if (creating_graph()) {
          // The vector-Jacobian product of the composed layer, recorded: its
          // outputs flattened and joined, differentiated with the joined
          // gradients as grad_output (never as part of the differentiated
          // graph: theirs may lead back to this node).
          const std::vector<Tensor> in{s[6], s[7], s[8], s[9], s[10]};
          std::vector<bool> wanted;
          for (const Tensor& t : in) wanted.push_back(t && t->requires_grad);
          const Tensor& out0 = s[3];
          const int64_t n_out = lstm ? 3 : 2, hb = out0->shape[1] * out0->shape[2];
          std::vector<Tensor> gs;
          for (int64_t i = 0; i < n_out; ++i) {
            const int64_t numel = i == 0 ? out0->numel() : hb;
            const Tensor gi = size_t(i) < g.size() ? g[size_t(i)] : Tensor();
            gs.push_back(gi ? reshape(gi, {numel}) : zeros({numel}, out0->dtype, out0->device));
          }
          std::vector<Tensor> r = autograd::vjp_recorded(
              in, wanted,
              [&](const std::vector<Tensor>& x) {
                const FusedLayerResult f = composed_layer(mode, reverse, x[0], x[1], x[2], x[3], x[4]);
                std::vector<Tensor> flat{reshape(f.out, {-1}), reshape(f.h_n, {-1})};
                if (lstm) flat.push_back(reshape(f.c_n, {-1}));
                return cat(flat, 0);
              },
              cat(gs, 0));
          if (!r.empty()) return autograd::Grads{r[0], r[1], r[2], r[3], r[4]};
        }
        rnn_fused::BackwardArgs b;
        b.cell = cell;
        b.reverse = reverse;
        b.w_hh = s[0];
        b.h0 = s[1];
        b.c0 = s[2];
        b.out = s[3];
        b.cs = s[4];
        b.acts = s[5];
        const Tensor& out = b.out;
        const DType dt = out->dtype;
        const int64_t steps = out->shape[0], batch = out->shape[1], hidden = out->shape[2];
        b.d_out = g[0] ? tc::contiguous(g[0]) : Tensor();
        b.d_hn = g.size() > 1 && g[1] ? tc::contiguous(g[1]) : Tensor();
        b.d_cn = lstm && g.size() > 2 && g[2] ? tc::contiguous(g[2]) : Tensor();
        b.d_xp = empty({steps, batch, b.w_hh->shape[0]}, dt);
        b.d_h0 = empty({batch, hidden}, dt);
        b.d_c0 = lstm ? empty({batch, hidden}, dt) : Tensor();
        b.d_w_hh = empty(b.w_hh->shape, dt);
        b.d_b_hh = has_bias ? empty({b.w_hh->shape[0]}, dt) : Tensor();
        rnn_fused::backward(b);
        autograd::Grads r{b.d_xp, b.d_h0, b.d_c0, b.d_w_hh, b.d_b_hh};
        autograd::not_differentiable(r);  // only under create_graph
        return r;
      });
  return r;
}

}  // namespace tc::ops::detail
