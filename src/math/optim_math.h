// The per-element updates of SGD and Adam/AdamW (torch.optim's rules), in
// double, shared by the CPU loops (src/optim.cpp) and the fused CUDA kernels
// (src/cuda/optim.cu) so that a step on either device gives the same bits.
// The rn_* helpers (philox.h) keep nvcc from fusing multiply-adds.
#pragma once
#include <cstdint>

#include "math/hd.h"
#include "math/philox.h"

namespace tc::optim {

struct SgdStep {
  double lr, momentum, dampening, weight_decay;
  bool nesterov;
  bool first;  // the momentum buffer's first step: it becomes d itself
};

// w -= lr * d, d = g + weight_decay * w, through the momentum buffer (buf,
// null without momentum).
template <typename T>
TC_HD inline void sgd_update(T& w, T g, T* buf, const SgdStep& s) {
  double d = rn_add(double(g), rn_mul(s.weight_decay, double(w)));
  if (buf) {
    const double b =
        s.first ? d : rn_add(rn_mul(s.momentum, double(*buf)), rn_mul(rn_sub(1.0, s.dampening), d));
    *buf = T(b);
    d = s.nesterov ? rn_add(d, rn_mul(s.momentum, b)) : b;
  }
  w = T(rn_sub(double(w), rn_mul(s.lr, d)));
}

struct AdamStep {
  double lr, beta1, beta2, eps, weight_decay;
  double step_size;  // lr / (1 - beta1^t)
  double bc2_sqrt;   // sqrt(1 - beta2^t)
  bool decoupled;    // AdamW
};

template <typename T>
TC_HD inline void adam_update(T& w, T g, T& m, T& v, const AdamStep& s) {
  double gj = double(g);
  double wj = double(w);
  if (s.weight_decay != 0) {
    if (s.decoupled) {
      wj = rn_mul(wj, rn_sub(1.0, rn_mul(s.lr, s.weight_decay)));
    } else {
      gj = rn_add(gj, rn_mul(s.weight_decay, wj));
    }
  }
  const double mj = rn_add(rn_mul(s.beta1, double(m)), rn_mul(rn_sub(1.0, s.beta1), gj));
  const double vj = rn_add(rn_mul(s.beta2, double(v)), rn_mul(rn_mul(rn_sub(1.0, s.beta2), gj), gj));
  m = T(mj);
  v = T(vj);
  const double denom = rn_add(rn_div(rn_sqrt(vj), s.bc2_sqrt), s.eps);
  w = T(rn_sub(wj, rn_div(rn_mul(s.step_size, mj), denom)));
}

}  // namespace tc::optim
