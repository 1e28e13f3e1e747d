// The per-element updates of SGD and Adam/AdamW (torch.optim's rules), in
// double, shared by the CPU loops (src/cpu/random_optim.cpp) and the fused CUDA kernels
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

// RMSprop (torch.optim.RMSprop): the square average (and, centered, the
// gradient average) of g + weight_decay * w; the step divides by its root
// (centered: of the variance) plus eps, through the momentum buffer (buf,
// null without momentum; gavg null unless centered).
struct RmspropStep {
  double lr, alpha, eps, weight_decay, momentum;
};

template <typename T>
TC_HD inline void rmsprop_update(T& w, T g, T& sq, T* gavg, T* buf, const RmspropStep& s) {
  const double wj = double(w);
  const double gj = rn_add(double(g), rn_mul(s.weight_decay, wj));
  const double sqj = rn_add(rn_mul(s.alpha, double(sq)), rn_mul(rn_mul(rn_sub(1.0, s.alpha), gj), gj));
  sq = T(sqj);
  double var = sqj;
  if (gavg) {
    const double ga = rn_add(rn_mul(s.alpha, double(*gavg)), rn_mul(rn_sub(1.0, s.alpha), gj));
    *gavg = T(ga);
    var = rn_sub(sqj, rn_mul(ga, ga));
  }
  const double avg = rn_add(rn_sqrt(var), s.eps);
  if (buf) {
    const double b = rn_add(rn_mul(s.momentum, double(*buf)), rn_div(gj, avg));
    *buf = T(b);
    w = T(rn_sub(wj, rn_mul(s.lr, b)));
  } else {
    w = T(rn_sub(wj, rn_div(rn_mul(s.lr, gj), avg)));
  }
}

// Adagrad (torch.optim.Adagrad): sum += g^2 of g + weight_decay * w; w -=
// clr * g / (sqrt(sum) + eps), clr = lr / (1 + (step - 1) lr_decay).
struct AdagradStep {
  double clr, eps, weight_decay;
};

template <typename T>
TC_HD inline void adagrad_update(T& w, T g, T& sum, const AdagradStep& s) {
  const double wj = double(w);
  const double gj = rn_add(double(g), rn_mul(s.weight_decay, wj));
  const double sj = rn_add(double(sum), rn_mul(gj, gj));
  sum = T(sj);
  w = T(rn_sub(wj, rn_div(rn_mul(s.clr, gj), rn_add(rn_sqrt(sj), s.eps))));
}

}  // namespace tc::optim
