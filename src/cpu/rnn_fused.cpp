// The CPU kernels of backend/rnn_fused.h: one layer and direction of a
// recurrent layer over the whole sequence, forward and backward through time.
// The GEMMs go to cpu::gemm (oneDNN's sgemm for float32); the gates are one
// loop per step. The formulas and their order of operations are those of the
// composed reference path in src/ops/rnn.cpp (which runs the other cases), so
// both give the same values to rounding.
#include "backend/rnn_fused.h"

#include <cstring>
#include <vector>

#include "cpu/matmul.h"
#include "math/compute_math.h"

namespace tc::rnn_fused {
namespace {

template <typename T>
inline T sigmoid(T x) {
  return T(1) / (T(1) + ew::m_exp(-x));
}

template <typename T>
inline T tanh_of(T x) {
  return ew::m_tanh(x);
}

template <typename T>
const T* ptr(const Tensor& t) {
  return t ? t->data_as<T>() : nullptr;
}

template <typename T>
T* mut(const Tensor& t) {
  return t ? t->data_as<T>() : nullptr;
}

// The gate loops carry `omp simd`: their output rows never overlap their
// inputs, which GCC cannot prove for this many pointers (it left them scalar,
// and the forward's gates cost as much as its GEMMs).
//
// One step's gates at time t: reads the input projection x (B x GH), the
// hidden projection hp (B x GH, no bias yet) and the state before (h_prev,
// c_prev); writes h (and c and the activations).
template <typename T>
void forward_step(Cell cell, int64_t B, int64_t H, const T* x, const T* hp, const T* bias, const T* h_prev,
                  const T* c_prev, T* h, T* c, T* acts) {
  const int64_t GH = (cell == Cell::lstm ? 4 : cell == Cell::gru ? 3 : 1) * H;
  const int64_t A = saved_acts(cell) * H;
  for (int64_t bi = 0; bi < B; ++bi) {
    const T* xr = x + bi * GH;
    const T* hr = hp + bi * GH;
    const int64_t k0 = bi * H;
    switch (cell) {
      case Cell::lstm: {
        T* ar = acts + bi * A;
#pragma omp simd
        for (int64_t j = 0; j < H; ++j) {
          const T i = sigmoid(xr[j] + (hr[j] + bias[j]));
          const T f = sigmoid(xr[H + j] + (hr[H + j] + bias[H + j]));
          const T g = tanh_of(xr[2 * H + j] + (hr[2 * H + j] + bias[2 * H + j]));
          const T o = sigmoid(xr[3 * H + j] + (hr[3 * H + j] + bias[3 * H + j]));
          const T cn = f * c_prev[k0 + j] + i * g;
          const T tc = tanh_of(cn);
          c[k0 + j] = cn;
          h[k0 + j] = o * tc;
          ar[j] = i;
          ar[H + j] = f;
          ar[2 * H + j] = g;
          ar[3 * H + j] = o;
          ar[4 * H + j] = tc;
        }
        break;
      }
      case Cell::gru: {
        T* ar = acts + bi * A;
#pragma omp simd
        for (int64_t j = 0; j < H; ++j) {
          const T r = sigmoid(xr[j] + (hr[j] + bias[j]));
          const T z = sigmoid(xr[H + j] + (hr[H + j] + bias[H + j]));
          const T hn = hr[2 * H + j] + bias[2 * H + j];
          const T n = tanh_of(xr[2 * H + j] + r * hn);
          h[k0 + j] = n + z * (h_prev[k0 + j] - n);  // (1 - z) * n + z * h, as PyTorch
          ar[j] = r;
          ar[H + j] = z;
          ar[2 * H + j] = n;
          ar[3 * H + j] = hn;
        }
        break;
      }
      case Cell::tanh:
#pragma omp simd
        for (int64_t j = 0; j < H; ++j) h[k0 + j] = tanh_of(xr[j] + (hr[j] + bias[j]));
        break;
      case Cell::relu:
#pragma omp simd
        for (int64_t j = 0; j < H; ++j) {
          const T pre = xr[j] + (hr[j] + bias[j]);
          h[k0 + j] = pre < T(0) ? T(0) : pre;  // NaN stays NaN, as relu
        }
        break;
    }
  }
}

template <typename T>
void forward_typed(const ForwardArgs& a) {
  const int64_t steps = a.xp->shape[0], B = a.xp->shape[1], H = a.h0->shape[1];
  const int64_t GH = a.w_hh->shape[0], BH = B * H;
  const bool lstm = a.cell == Cell::lstm;
  const int64_t A = saved_acts(a.cell) * H;
  const T* w = ptr<T>(a.w_hh);
  std::vector<T> zero_bias;
  const T* bias = ptr<T>(a.b_hh);
  if (!bias) {
    zero_bias.assign(size_t(GH), T(0));
    bias = zero_bias.data();
  }
  std::vector<T> hp(size_t(B * GH));
  const T* h_prev = ptr<T>(a.h0);
  const T* c_prev = ptr<T>(a.c0);
  for (int64_t s = 0; s < steps; ++s) {
    const int64_t t = a.reverse ? steps - 1 - s : s;
    cpu::gemm(false, true, B, GH, H, T(1), h_prev, H, w, H, T(0), hp.data(), GH);
    T* h = mut<T>(a.out) + t * BH;
    T* c = lstm ? mut<T>(a.cs) + t * BH : nullptr;
    T* acts = A ? mut<T>(a.acts) + t * B * A : nullptr;
    forward_step<T>(a.cell, B, H, ptr<T>(a.xp) + t * B * GH, hp.data(), bias, h_prev, c_prev, h, c, acts);
    h_prev = h;
    c_prev = c;
  }
  std::memcpy(mut<T>(a.h_n), h_prev, size_t(BH) * sizeof(T));
  if (lstm) std::memcpy(mut<T>(a.c_n), c_prev, size_t(BH) * sizeof(T));
}

// One step's backward at time t: from dh (the gradient reaching h_t from
// later steps and h_n) plus d_out_t (never null), writes the pre-activation gradients of
// the input part (dg) and of the hidden part (dgh: differs from dg only in
// the GRU's n gate, which r scales), and updates dc (LSTM) in place; for the
// GRU, dh becomes the direct part z * dh of dh_{t-1}.
template <typename T>
void backward_step(Cell cell, int64_t B, int64_t H, const T* acts, const T* h, const T* h_prev,
                   const T* c_prev, const T* d_out, T* dh, T* dc, T* dg, T* dgh) {
  const int64_t GH = (cell == Cell::lstm ? 4 : cell == Cell::gru ? 3 : 1) * H;
  const int64_t A = saved_acts(cell) * H;
  for (int64_t bi = 0; bi < B; ++bi) {
    const int64_t k0 = bi * H;
    T* gr = dg + bi * GH;
    switch (cell) {
      case Cell::lstm: {
        const T* ar = acts + bi * A;
#pragma omp simd
        for (int64_t j = 0; j < H; ++j) {
          const int64_t k = k0 + j;
          const T dht = dh[k] + d_out[k];
          const T i = ar[j], f = ar[H + j], g = ar[2 * H + j], o = ar[3 * H + j], tc = ar[4 * H + j];
          const T dct = dc[k] + dht * o * (T(1) - tc * tc);
          gr[j] = dct * g * (i * (T(1) - i));
          gr[H + j] = dct * c_prev[k] * (f * (T(1) - f));
          gr[2 * H + j] = dct * i * (T(1) - g * g);
          gr[3 * H + j] = dht * tc * (o * (T(1) - o));
          dc[k] = dct * f;
        }
        break;
      }
      case Cell::gru: {
        const T* ar = acts + bi * A;
        T* hr = dgh + bi * GH;
#pragma omp simd
        for (int64_t j = 0; j < H; ++j) {
          const int64_t k = k0 + j;
          const T dht = dh[k] + d_out[k];
          const T r = ar[j], z = ar[H + j], n = ar[2 * H + j], hn = ar[3 * H + j];
          const T dnp = dht * (T(1) - z) * (T(1) - n * n);
          const T drp = dnp * hn * (r * (T(1) - r));
          const T dzp = dht * (h_prev[k] - n) * (z * (T(1) - z));
          gr[j] = hr[j] = drp;
          gr[H + j] = hr[H + j] = dzp;
          gr[2 * H + j] = dnp;
          hr[2 * H + j] = dnp * r;
          dh[k] = dht * z;
        }
        break;
      }
      case Cell::tanh:
      case Cell::relu:
#pragma omp simd
        for (int64_t j = 0; j < H; ++j) {
          const int64_t k = k0 + j;
          const T dht = dh[k] + d_out[k];
          const T y = h[k];
          gr[j] = cell == Cell::tanh ? dht * (T(1) - y * y) : (y > T(0) ? dht : T(0));
        }
        break;
    }
  }
}

template <typename T>
void backward_typed(const BackwardArgs& a) {
  const int64_t steps = a.out->shape[0], B = a.out->shape[1], H = a.out->shape[2];
  const int64_t GH = a.w_hh->shape[0], BH = B * H;
  const bool lstm = a.cell == Cell::lstm, gru = a.cell == Cell::gru;
  const int64_t A = saved_acts(a.cell) * H;
  const T* w = ptr<T>(a.w_hh);
  const T* out = ptr<T>(a.out);
  const T* h0 = ptr<T>(a.h0);
  T* dh = mut<T>(a.d_h0);  // carried backwards through time; ends as dh_0
  T* dc = lstm ? mut<T>(a.d_c0) : nullptr;
  if (a.d_hn)
    std::memcpy(dh, ptr<T>(a.d_hn), size_t(BH) * sizeof(T));
  else
    std::memset(static_cast<void*>(dh), 0, size_t(BH) * sizeof(T));
  if (lstm) {
    if (a.d_cn)
      std::memcpy(dc, ptr<T>(a.d_cn), size_t(BH) * sizeof(T));
    else
      std::memset(static_cast<void*>(dc), 0, size_t(BH) * sizeof(T));
  }
  T* dxp = mut<T>(a.d_xp);
  // The hidden part's pre-activation gradients, time-indexed: the GRU's own
  // buffer, the input part's (dxp) otherwise.
  std::vector<T> dhp_gru(gru ? size_t(steps * B * GH) : 0);
  T* dhp = gru ? dhp_gru.data() : dxp;
  // Zeros in place of an absent output gradient: the gate loops read one
  // unconditionally (a select per element kept them from vectorizing).
  std::vector<T> no_d_out(a.d_out ? 0 : size_t(BH), T(0));
  for (int64_t s = steps - 1; s >= 0; --s) {
    const int64_t t = a.reverse ? steps - 1 - s : s;
    const int64_t t_prev = a.reverse ? t + 1 : t - 1;  // the step run before t
    const T* h_prev = s == 0 ? h0 : out + t_prev * BH;
    const T* c_prev = lstm ? (s == 0 ? ptr<T>(a.c0) : ptr<T>(a.cs) + t_prev * BH) : nullptr;
    const T* acts = A ? ptr<T>(a.acts) + t * B * A : nullptr;
    const T* d_out = a.d_out ? ptr<T>(a.d_out) + t * BH : no_d_out.data();
    backward_step<T>(a.cell, B, H, acts, out + t * BH, h_prev, c_prev, d_out, dh, dc, dxp + t * B * GH,
                     dhp + t * B * GH);
    // dh_{t-1} = dG_t W_hh (+ the GRU's direct z * dh_t, already in dh).
    cpu::gemm(false, false, B, H, GH, T(1), dhp + t * B * GH, GH, w, H, gru ? T(1) : T(0), dh, H);
  }
  // dW_hh = sum over t of dG_t^T h_{t-1}: the first step run pairs with h0,
  // every other with the output of the step run before it.
  T* dw = mut<T>(a.d_w_hh);
  const int64_t t_first = a.reverse ? steps - 1 : 0;
  cpu::gemm(true, false, GH, H, B, T(1), dhp + t_first * B * GH, GH, h0, H, T(0), dw, H);
  if (steps > 1) {
    const T* g = a.reverse ? dhp : dhp + B * GH;  // times paired with out[t -+ 1]
    const T* hs = a.reverse ? out + BH : out;
    cpu::gemm(true, false, GH, H, (steps - 1) * B, T(1), g, GH, hs, H, T(1), dw, H);
  }
  if (a.d_b_hh) {
    // Column sums in row order, in double: deterministic for any thread count.
    std::vector<double> acc(size_t(GH), 0.0);
    for (int64_t r = 0; r < steps * B; ++r) {
      const T* row = dhp + r * GH;
      for (int64_t j = 0; j < GH; ++j) acc[size_t(j)] += double(row[j]);
    }
    T* db = mut<T>(a.d_b_hh);
    for (int64_t j = 0; j < GH; ++j) db[j] = T(acc[size_t(j)]);
  }
}

}  // namespace

void forward(const ForwardArgs& a) {
  if (a.xp->dtype == DType::f64)
    forward_typed<double>(a);
  else
    forward_typed<float>(a);
}

void backward(const BackwardArgs& a) {
  if (a.out->dtype == DType::f64)
    backward_typed<double>(a);
  else
    backward_typed<float>(a);
}

}  // namespace tc::rnn_fused
