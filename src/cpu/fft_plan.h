// libtc's own CPU FFT: mixed-radix (4, 2, 3, 5, then any odd prime up to
// kMaxDirectRadix) Stockham passes with precomputed twiddles, Bluestein's
// chirp-z for lengths with a larger prime factor, and real transforms
// through a complex FFT of half the length plus one twiddle pass. Data are
// split (real array, imaginary array) inside: the passes then run over
// contiguous memory and vectorize (cpu/fft_kernels.inc).
//
// A plan depends on the length and the element type only: the inverse DFT is
// the forward one with the real and imaginary arrays swapped
// (swap(DFT(swap(x))) = n IDFT(x)), so both directions share one plan and its
// twiddles. Plans are immutable once made and cached for the process
// (fft_plan<R>(n), thread-safe): any number of threads run one plan, each
// with its own scratch.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

namespace tc::cpu {

// One Stockham pass: radix p over s interleaved transforms of length p * m.
template <typename R>
struct FftStage {
  int p = 0;
  int64_t s = 0, m = 0;
  std::vector<R> twr, twi;      // w_{p m}^(r j) at (r - 1) m + j, r in [1, p), j < m
  std::vector<R> rootr, rooti;  // generic radix only: exp(-2 pi i t / p), t < p
};

template <typename R>
class FftPlan {
 public:
  explicit FftPlan(int64_t n);
  int64_t size() const { return n_; }
  // The reals run()'s scratch holds.
  int64_t work_reals() const;
  // The forward DFT y = DFT(x) of length n on split arrays (no aliasing between
  // x, y and work); the inverse (unnormalized) is run(xi, xr, yi, yr, work).
  // parallel: split each pass across the OpenMP threads (one long transform).
  void run(const R* xr, const R* xi, R* yr, R* yi, R* work, bool parallel) const;
  // Whether run_batch() is available (no Bluestein step).
  bool batchable() const { return m_ == 0; }
  // batch transforms at once, interleaved: value j of transform q at q + batch * j
  // in x and in y (the passes' inner loops then run over the batch: short rows
  // vectorize). work: batch * work_reals() reals.
  void run_batch(const R* xr, const R* xi, R* yr, R* yi, R* work, int64_t batch) const;

 private:
  int64_t n_ = 0;
  std::vector<FftStage<R>> stages_;
  // Bluestein (large prime factors): the 2,3,5-smooth convolution length m_,
  // its plan, the chirp exp(-pi i k^2 / n) and the DFT of the conjugate chirp / m_.
  int64_t m_ = 0;
  std::shared_ptr<const FftPlan<R>> sub_;
  std::vector<R> chirpr_, chirpi_, filtr_, filti_;
  void (*pass_)(const FftStage<R>&, int64_t, const R*, const R*, R*, R*, int64_t, int64_t, int64_t,
                int64_t) = nullptr;

  void run_stockham(const R* xr, const R* xi, R* yr, R* yi, R* work, bool parallel) const;
  void run_bluestein(const R* xr, const R* xi, R* yr, R* yi, R* work, bool parallel) const;
};

// The cached plan of length n (made on first use; n >= 1).
template <typename R>
std::shared_ptr<const FftPlan<R>> fft_plan(int64_t n);

// exp(-2 pi i k / n) for k <= n / 2 (the real transforms' twiddles), cached per n.
template <typename R>
struct RealTwiddles {
  std::vector<R> wr, wi;
  explicit RealTwiddles(int64_t n);
};
template <typename R>
std::shared_ptr<const RealTwiddles<R>> fft_real_twiddles(int64_t n);

// The gap (in reals) left between the split arrays of one scratch buffer: a
// pass loads from one array while storing to another at the same offsets, and
// with power-of-2 lengths the arrays' bases would share their address bits
// below 4 KiB, where the CPU takes a load for a dependent of the earlier store
// (4K aliasing: a 2-4x slowdown measured). 640 bytes apart, any two of six
// arrays differ by at least 640 bytes modulo 4 KiB.
template <typename R>
constexpr int64_t kFftGap = 640 / int64_t(sizeof(R));

// Below this many values a pass is not split across threads.
constexpr int64_t kFftParallelMin = 1 << 15;

}  // namespace tc::cpu
