// Double-precision complex DFTs of one length for the CPU backend's float64
// FFTs (Debian's kissfft is built for float only): iterative radix-2 for
// powers of two, Bluestein's chirp-z (a radix-2 convolution) for the other
// lengths. A plan is immutable once made: any number of threads run it.
#pragma once
#include <complex>
#include <cstdint>
#include <vector>

namespace tc::cpu {

class DoubleFft {
 public:
  using cd = std::complex<double>;
  DoubleFft(int64_t n, bool inverse);
  int64_t size() const { return n_; }
  // The complex values run() needs as scratch.
  int64_t work_size() const { return m_ > 0 ? m_ : n_; }
  // out[k] = sum_j in[j] exp(-+2 pi i j k / n) (+ when inverse); out may not alias in.
  void run(const cd* in, cd* out, cd* work) const;

 private:
  int64_t n_ = 0, m_ = 0;      // m_: the radix-2 length of Bluestein's convolution (0: n is a power of 2)
  std::vector<cd> twiddles_;   // of the radix-2 length (n or m), forward or inverse as the plan
  std::vector<cd> itwiddles_;  // Bluestein: the inverse radix-2 twiddles of length m
  std::vector<cd> chirp_;      // Bluestein: exp(-+ pi i k^2 / n), k < n
  std::vector<cd> filter_;     // Bluestein: the DFT of the conjugate chirp, length m
};

}  // namespace tc::cpu
