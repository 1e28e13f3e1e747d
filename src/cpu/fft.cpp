// The CPU's discrete Fourier transforms (Backend::fft), float32 and float64
// from one template, on libtc's own mixed-radix FFT (cpu/fft_plan.h) or, in a
// TC_WITH_FFTW=ON build, on FFTW (cpu/fft_fftw.cpp). Each row is copied into
// split (real, imaginary) scratch, transformed, and written back interleaved
// with the scale applied on the way. Real transforms of even length n run a
// complex FFT of length n / 2 over (even samples, odd samples) and one
// twiddle pass; odd lengths run the full complex transform.
//
// Threads: the rows of a batch are shared out (one row per thread at a time,
// each thread with its own scratch); a batch of one long row instead splits
// each of its passes across the threads.
#include <algorithm>
#include <climits>
#include <memory>
#include <type_traits>
#include <vector>

#include "core/parallel_for.h"
#include "cpu/cpu_backend.h"
#include "cpu/fft_plan.h"

#ifdef TC_HAVE_FFTW
#include "cpu/fft_fftw.h"
#endif

namespace tc::cpu {

namespace {

// Runs fn over [0, n) split across threads when par, else in one go.
template <typename F>
void maybe_parallel(bool par, int64_t n, F&& fn) {
  if (par) {
    parallel_for(n, 4096, fn);
  } else if (n > 0) {
    fn(int64_t(0), n);
  }
}

// Rows of at most this many values go through the plans in groups of
// kGroup rows interleaved (FftPlan::run_batch): the passes' inner loops then
// run over the group, long enough to vectorize however short the row.
constexpr int64_t kGroupMaxLen = 8192;
constexpr int64_t kGroup = 8;

// One thread's transforms of rows of length n: plans fetched once, scratch kept.
// The functions take g rows at once (in, out: the first row; the next ones
// in_values / out_values reals further), value j of row q at q + g * j of the
// split scratch; g = 1 is one row (then par may split its work across threads).
template <typename R>
struct Rows {
  FftKind kind;
  int64_t n, len;  // the signal length; the complex FFT's (n / 2 for even real transforms)
  bool inverse, par;
  int64_t in_values, out_values;
  std::shared_ptr<const FftPlan<R>> plan;
  std::shared_ptr<const RealTwiddles<R>> rtw;  // even real rows: exp(-2 pi i k / n), k <= n / 2
  std::vector<R> buf;
  R *xr = nullptr, *xi = nullptr, *yr = nullptr, *yi = nullptr, *work = nullptr;
  int64_t group = 1;  // the rows one call takes at most

  Rows(FftKind k, int64_t length, bool inv, bool parallel, int64_t in_vals, int64_t out_vals)
      : kind(k), n(length), inverse(inv), par(parallel), in_values(in_vals), out_values(out_vals) {
    const bool half = kind != FftKind::c2c && n % 2 == 0;
    len = half ? n / 2 : n;
    plan = fft_plan<R>(len);
    if (half) rtw = fft_real_twiddles<R>(n);
    // Odd real rows keep the one-row path (their Hermitian fill-in is per row).
    if (!par && plan->batchable() && len <= kGroupMaxLen && (half || kind == FftKind::c2c)) group = kGroup;
    // Four split arrays and the plan's scratch, kFftGap apart (cpu/fft_plan.h).
    const int64_t stride = group * len + kFftGap<R>;
    buf.resize(size_t(4 * stride + group * plan->work_reals()));
    xr = buf.data();
    xi = xr + stride;
    yr = xi + stride;
    yi = yr + stride;
    work = yi + stride;
  }

  // The transform of (xr, xi) into (yr, yi) in direction inv, g rows.
  void transform(bool inv, int64_t g) {
    if (g == 1) {
      if (inv) {
        plan->run(xi, xr, yi, yr, work, par);
      } else {
        plan->run(xr, xi, yr, yi, work, par);
      }
    } else if (inv) {
      plan->run_batch(xi, xr, yi, yr, work, g);
    } else {
      plan->run_batch(xr, xi, yr, yi, work, g);
    }
  }

  // count rows from in to out (count <= group, or any count when group is 1: one at a time).
  void rows(const R* in, R* out, int64_t count, R scale) {
    for (int64_t r = 0; r < count; r += group) {
      const int64_t g = std::min(group, count - r);
      const R* i = in + r * in_values;
      R* o = out + r * out_values;
      switch (kind) {
        case FftKind::c2c:
          c2c(i, o, g, scale);
          break;
        case FftKind::r2c:
          r2c(i, o, g, scale);
          break;
        case FftKind::c2r:
          c2r(i, o, g, scale);
          break;
      }
    }
  }

  void c2c(const R* in, R* out, int64_t g, R scale) {
    for (int64_t q = 0; q < g; ++q) {
      const R* iq = in + q * in_values;
      maybe_parallel(par, n, [&](int64_t lo, int64_t hi) {
        for (int64_t j = lo; j < hi; ++j) {
          xr[q + g * j] = iq[2 * j];
          xi[q + g * j] = iq[2 * j + 1];
        }
      });
    }
    transform(inverse, g);
    for (int64_t q = 0; q < g; ++q) {
      R* oq = out + q * out_values;
      maybe_parallel(par, n, [&](int64_t lo, int64_t hi) {
        for (int64_t k = lo; k < hi; ++k) {
          oq[2 * k] = yr[q + g * k] * scale;
          oq[2 * k + 1] = yi[q + g * k] * scale;
        }
      });
    }
  }

  // The first n/2 + 1 outputs (interleaved) of the forward DFT of real rows.
  void r2c(const R* in, R* out, int64_t g, R scale) {
    if (n % 2 != 0) {  // g is 1 here
      std::copy(in, in + n, xr);
      std::fill(xi, xi + n, R(0));
      transform(false, 1);
      for (int64_t k = 0; k <= n / 2; ++k) {
        out[2 * k] = yr[k] * scale;
        out[2 * k + 1] = yi[k] * scale;
      }
      return;
    }
    const int64_t h = n / 2;
    // z_j = x_2j + i x_2j+1, Z = DFT_h(z).
    if (g == 1) {
      maybe_parallel(par, h, [&](int64_t lo, int64_t hi) {
        for (int64_t j = lo; j < hi; ++j) {
          xr[j] = in[2 * j];
          xi[j] = in[2 * j + 1];
        }
      });
    } else {
      for (int64_t j = 0; j < h; ++j) {
        for (int64_t q = 0; q < g; ++q) {
          xr[q + g * j] = in[q * in_values + 2 * j];
          xi[q + g * j] = in[q * in_values + 2 * j + 1];
        }
      }
    }
    transform(false, g);
    // X_k = E_k + w^k O_k with E_k = (Z_k + conj Z_{h-k}) / 2 (the even samples' DFT),
    // O_k = (Z_k - conj Z_{h-k}) / 2i (the odd ones'), w = exp(-2 pi i / n), Z_h = Z_0.
    const R* wr = rtw->wr.data();
    const R* wi = rtw->wi.data();
    const R half_scale = R(0.5) * scale;
    for (int64_t q = 0; q < g; ++q) {
      R* oq = out + q * out_values;
      oq[0] = (yr[q] + yi[q]) * scale;
      oq[1] = R(0);
      oq[2 * h] = (yr[q] - yi[q]) * scale;
      oq[2 * h + 1] = R(0);
      maybe_parallel(par, h - 1, [&](int64_t lo, int64_t hi) {
        for (int64_t k = lo + 1; k < hi + 1; ++k) {
          const R ar = yr[q + g * k], ai = yi[q + g * k], br = yr[q + g * (h - k)], bi = -yi[q + g * (h - k)];
          const R er = ar + br, ei = ai + bi;  // 2 E_k
          const R dr = ai - bi, di = br - ar;  // 2 O_k = (Z_k - conj Z_{h-k}) / i
          oq[2 * k] = (er + dr * wr[k] - di * wi[k]) * half_scale;
          oq[2 * k + 1] = (ei + dr * wi[k] + di * wr[k]) * half_scale;
        }
      });
    }
  }

  // The real inverse DFT (unnormalized) of the Hermitian signals whose first n/2 + 1
  // entries (interleaved) are in; the imaginary parts of X_0 (and X_{n/2}) are ignored.
  void c2r(const R* in, R* out, int64_t g, R scale) {
    if (n % 2 != 0) {  // g is 1 here
      xr[0] = in[0];
      xi[0] = R(0);
      for (int64_t k = 1; k <= n / 2; ++k) {
        xr[k] = in[2 * k];
        xi[k] = in[2 * k + 1];
        xr[n - k] = in[2 * k];
        xi[n - k] = -in[2 * k + 1];
      }
      transform(true, 1);
      for (int64_t j = 0; j < n; ++j) out[j] = yr[j] * scale;
      return;
    }
    const int64_t h = n / 2;
    // Z_k = 2 E_k + 2i O_k with 2 E_k = X_k + conj X_{h-k}, 2 O_k = (X_k - conj X_{h-k}) conj(w^k);
    // the inverse DFT_h of Z is n (x_2j + i x_2j+1).
    const R* wr = rtw->wr.data();
    const R* wi = rtw->wi.data();
    for (int64_t q = 0; q < g; ++q) {
      const R* iq = in + q * in_values;
      maybe_parallel(par, h, [&](int64_t lo, int64_t hi) {
        for (int64_t k = lo; k < hi; ++k) {
          const R ar = iq[2 * k], ai = k == 0 ? R(0) : iq[2 * k + 1];
          const R br = iq[2 * (h - k)], bi = k == 0 ? R(0) : -iq[2 * (h - k) + 1];
          const R er = ar + br, ei = ai + bi;
          const R ur = ar - br, ui = ai - bi;
          const R dr = ur * wr[k] + ui * wi[k], di = ui * wr[k] - ur * wi[k];  // u conj(w^k)
          xr[q + g * k] = er - di;
          xi[q + g * k] = ei + dr;
        }
      });
    }
    transform(true, g);
    for (int64_t q = 0; q < g; ++q) {
      R* oq = out + q * out_values;
      maybe_parallel(par, h, [&](int64_t lo, int64_t hi) {
        for (int64_t j = lo; j < hi; ++j) {
          oq[2 * j] = yr[q + g * j] * scale;
          oq[2 * j + 1] = yi[q + g * j] * scale;
        }
      });
    }
  }
};

template <typename R>
void run(FftKind kind, const Tensor& out, const Tensor& in, bool inverse, double scale) {
  const int64_t in_len = in->shape.back(), out_len = out->shape.back();
  const int64_t n = kind == FftKind::c2r ? out_len : in_len;
  const int64_t batch = out->numel() / out_len;
  // The reals a row reads and writes: complex pairs count as two.
  const int64_t in_values = kind == FftKind::r2c ? in_len : 2 * in_len;
  const int64_t out_values = kind == FftKind::c2r ? out_len : 2 * out_len;
  const R s = R(scale);
  const R* src = static_cast<const R*>(in->data());
  R* dst = static_cast<R*>(out->data());
  // Fewer rows than threads and long ones: split each row instead.
  const bool inner = batch < num_threads() && n >= kFftParallelMin;
  const int64_t grain = inner ? batch + 1 : std::max<int64_t>(1, kParallelGrain / std::max<int64_t>(n, 1));
  parallel_for(batch, grain, [&](int64_t lo, int64_t hi) {
    Rows<R> rows(kind, n, inverse, inner, in_values, out_values);
    rows.rows(src + lo * in_values, dst + lo * out_values, hi - lo, s);
  });
}

}  // namespace

void CpuBackend::fft(FftKind kind, const Tensor& out, const Tensor& in, bool inverse, double scale) const {
  TC_CHECK(in->is_contiguous() && out->is_contiguous() && in->ndim() > 0 && out->ndim() > 0, TC_ERR_INTERNAL,
           "fft: the backend takes contiguous tensors of at least one dim");
  if (out->numel() == 0) return;
  const int64_t n = kind == FftKind::c2r ? out->shape.back() : in->shape.back();
  TC_CHECK(n <= INT_MAX, TC_ERR_INVALID_ARGUMENT, "fft: a transform of length ", n,
           " is longer than the CPU's FFTs take (2^31 - 1)");
  const DType part = complex_part_dtype(in->dtype);
  TC_CHECK(part == DType::f64 || part == DType::f32, TC_ERR_DTYPE,
           "fft: expected float32/complex64 or float64/complex128 data but got ", dtype_name(in->dtype));
#ifdef TC_HAVE_FFTW
  fftw_transform(kind, out, in, inverse, scale);
#else
  if (part == DType::f64) {
    run<double>(kind, out, in, inverse, scale);
  } else {
    run<float>(kind, out, in, inverse, scale);
  }
#endif
}

}  // namespace tc::cpu
