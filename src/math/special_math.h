// Special functions of the unary and binary rows (PyTorch's torch.special
// family: lgamma, digamma, polygamma, mvlgamma, the modified Bessel functions
// i0/i0e/i1/i1e, erfcx, ndtr, log_ndtr, entr, igamma/igammac, nextafter,
// gcd/lcm), shared by the CPU loops and the CUDA kernels (TC_HD). Included by
// math/elementwise_math.h inside tc::ew, after math/binary_ext_math.h.
//
// The iterative functions (digamma, the zeta function, the Bessel series,
// the incomplete gamma functions) are written once, in double, after the
// classic Cephes algorithms PyTorch uses: a float row computes them in double
// and rounds the result, which is at least as accurate as PyTorch's float
// code (tests compare with a float tolerance). lgamma calls libm in the
// compute type, as PyTorch does, so its float results are lgammaf's.
#pragma once

namespace tc::ew {

namespace special {

constexpr double kPi = 3.14159265358979323846;
constexpr double kSqrt1_2 = 0.70710678118654752440;  // 1 / sqrt(2)
constexpr double kInvSqrtPi = 0.56418958354775628695;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;
constexpr double kLogPi = 1.14472988584940017414;
constexpr double kEps = 1.11022302462515654042e-16;  // 2^-53, Cephes' MACHEP

// exp(y * y) with y * y's rounding error taken into account (fma gives the
// exact remainder): at y = 10 the product's rounding alone would cost 1e-14.
TC_HD inline double exp_square(double y) {
  const double hi = y * y, lo = ::fma(y, y, -hi);
  return ::exp(hi) * (1.0 + lo);
}

// psi(x) = d/dx log Gamma(x): reflection for x < 0, the recurrence
// psi(x) = psi(x + 1) - 1/x up to x >= 10, then the asymptotic series
// (Bernoulli numbers). PyTorch's special values: psi(+-0) = -+inf, psi at a
// negative integer or -inf = NaN.
TC_HD inline double digamma(double x) {
  if (x == 0) return ::copysign(HUGE_VAL, -x);
  double result = 0;
  if (x < 0) {
    if (x == ::trunc(x)) return NAN;
    // psi(x) = psi(1 - x) - pi / tan(pi x), with x's fractional part (exact)
    // so that the tangent keeps its accuracy for large |x|.
    result = -kPi / ::tan(kPi * (x - ::trunc(x)));
    x = 1 - x;
  }
  while (x < 10) {
    result -= 1 / x;
    x += 1;
  }
  const double z = 1 / (x * x);
  const double series =
      z *
      (1.0 / 12 -
       z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (1.0 / 132 - z * (691.0 / 32760 - z / 12))))));
  return result + ::log(x) - 0.5 / x - series;
}

// psi'(x), PyTorch's algorithm (reflection below 1/2, six steps of the
// recurrence, four terms of the asymptotic series), so that digamma's
// gradient and polygamma(1, x) give PyTorch's values.
TC_HD inline double trigamma(double x) {
  double sign = 1, result = 0;
  if (x < 0.5) {
    sign = -1;
    const double s = ::sin(kPi * x);
    result -= kPi * kPi / (s * s);
    x = 1 - x;
  }
  for (int i = 0; i < 6; ++i) {
    result += 1 / (x * x);
    x += 1;
  }
  const double ixx = 1 / (x * x);
  result += (1 + 1 / (2 * x) + ixx * (1.0 / 6 - ixx * (1.0 / 30 - ixx * (1.0 / 42)))) / x;
  return sign * result;
}

// The Hurwitz zeta function sum_{k>=0} (k + q)^-x (Cephes' zeta: direct
// summation up to q + 9, then Euler-Maclaurin with the Bernoulli numbers,
// kZetaA[i] = (2i + 2)! / B_{2i+2}).
TC_HD inline double zeta(double x, double q) {
  constexpr double kZetaA[] = {12.0,
                               -720.0,
                               30240.0,
                               -1209600.0,
                               47900160.0,
                               -1.8924375803183791606e9,
                               7.47242496e10,
                               -2.950130727918164224e12,
                               1.1646782814350067249e14,
                               -4.5979787224074726105e15,
                               1.8152105401943546773e17,
                               -7.1661652561756670113e18};
  if (x == 1) return HUGE_VAL;
  if (x < 1) return NAN;
  if (q <= 0) {
    if (q == ::floor(q)) return HUGE_VAL;
    if (x != ::floor(x)) return NAN;  // q^-x is not real
  }
  double s = ::pow(q, -x), a = q, b = 0;
  int i = 0;
  while (i < 9 || a <= 9) {
    i += 1;
    a += 1;
    b = ::pow(a, -x);
    s += b;
    if (::fabs(b / s) < kEps) return s;
  }
  const double w = a;
  s += b * w / (x - 1);
  s -= 0.5 * b;
  double f = 1, k = 0;
  for (int j = 0; j < 12; ++j) {
    f *= x + k;
    b /= w;
    const double t = f * b / kZetaA[j];
    s += t;
    if (::fabs(t / s) < kEps) return s;
    k += 1;
    f *= x + k;
    b /= w;
    k += 1;
  }
  return s;
}

// psi^(n)(x): digamma, trigamma, else (-1)^(n+1) n! zeta(n + 1, x). n is a
// non-negative integer (the core and Python check it); other n give NaN.
TC_HD inline double polygamma(double n, double x) {
  if (!(n >= 0) || n != ::floor(n)) return NAN;
  if (n == 0) return digamma(x);
  if (n == 1) return trigamma(x);
  const double sign = ::fmod(n, 2.0) == 1 ? 1.0 : -1.0;
  return sign * ::exp(::lgamma(n + 1)) * zeta(n + 1, x);
}

// The multivariate log-gamma function of dimension p (an integer >= 1):
// sum_{j<p} lgamma(x - j/2) + p(p-1)/4 log(pi), defined for x > (p - 1)/2
// (PyTorch 1.13 computes the sum elsewhere too, and so does libtc).
TC_HD inline double mvlgamma(double x, double p) {
  double r = p * (p - 1) / 4 * kLogPi;
  for (int j = 0; j < int(p); ++j) r += ::lgamma(x - 0.5 * j);
  return r;
}
// Its derivative: sum_{j<p} psi(x - j/2).
TC_HD inline double mvdigamma(double x, double p) {
  double r = 0;
  for (int j = 0; j < int(p); ++j) r += digamma(x - 0.5 * j);
  return r;
}

// The modified Bessel functions of the first kind I0, I1 (nu = 0, 1) of
// ax = |x| >= 0, scaled by exp(-ax) when `scaled`: the power series
// (all terms positive: no cancellation) up to 30, the asymptotic expansion
// e^-x I_nu(x) ~ (2 pi x)^-1/2 sum_k (-1)^k prod_{j<=k} (4 nu^2 - (2j-1)^2) / (k! (8x)^k)
// beyond (20 terms reach double precision there).
TC_HD inline double bessel_i(int nu, double ax, bool scaled) {
  if (ax <= 30) {
    const double q = 0.25 * ax * ax;
    double term = nu == 0 ? 1.0 : 0.5 * ax, sum = term;
    for (int k = 1; k < 200 && term > sum * 1e-17; ++k) {
      term *= q / (double(k) * double(k + nu));
      sum += term;
    }
    return scaled ? sum * ::exp(-ax) : sum;
  }
  // At infinity PyTorch gives 0 scaled and NaN unscaled (Cephes' exp(x) times
  // a series that is 0 there); so does libtc.
  if (ax == HUGE_VAL) return scaled ? 0.0 : NAN;
  const double mu = 4.0 * nu * nu;
  double term = 1, sum = 1;
  for (int k = 1; k < 60; ++k) {
    const double odd = 2.0 * k - 1;
    term *= -(mu - odd * odd) / (8.0 * k * ax);
    sum += term;
    if (::fabs(term) <= 1e-17 * ::fabs(sum)) break;
  }
  const double scaled_value = sum / ::sqrt(2 * kPi * ax);  // NaN stays NaN
  return scaled ? scaled_value : scaled_value * ::exp(ax);
}
TC_HD inline double i0(double x) { return bessel_i(0, ::fabs(x), false); }
TC_HD inline double i0e(double x) { return bessel_i(0, ::fabs(x), true); }
TC_HD inline double i1(double x) { return ::copysign(bessel_i(1, ::fabs(x), false), x); }
TC_HD inline double i1e(double x) { return ::copysign(bessel_i(1, ::fabs(x), true), x); }
// Their derivatives (PyTorch's formulas): i0' = i1; i0e' = i1e - sign(x) i0e;
// i1' = i0 - i1 / x (1/2 at 0); i1e' = i0e - i1e (sign(x) + 1/x) (1/2 at 0).
TC_HD inline double i1_grad(double x) { return x == 0 ? 0.5 : i0(x) - i1(x) / x; }
TC_HD inline double i0e_grad(double x) { return i1e(x) - (x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0) * i0e(x); }
TC_HD inline double i1e_grad(double x) {
  return x == 0 ? 0.5 : i0e(x) - i1e(x) * ((x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0) + 1 / x);
}

// erfcx(y) = exp(y^2) erfc(y): erfc scaled up to y = 12, then its asymptotic
// series 1/(y sqrt(pi)) sum_k (-1)^k (2k-1)!! / (2y^2)^k (11 terms at 12);
// for y < 0, 2 exp(y^2) - erfcx(-y) (inf below -26.7).
TC_HD inline double erfcx_nonnegative(double y) {
  if (y < 12) return exp_square(y) * ::erfc(y);
  const double z = 1 / (2 * y * y);  // 0 for huge y: erfcx(inf) = 0
  double term = 1, sum = 1;
  for (int k = 1; k < 30; ++k) {
    term *= -(2.0 * k - 1) * z;
    sum += term;
    if (::fabs(term) < 1e-17 * sum) break;
  }
  return sum * kInvSqrtPi / y;
}
TC_HD inline double erfcx(double y) {
  if (y != y) return y;
  if (y >= 0) return erfcx_nonnegative(y);
  if (y < -26.7) return HUGE_VAL;
  return 2 * exp_square(y) - erfcx_nonnegative(-y);
}

// log Phi(x), Phi the standard normal CDF (PyTorch's formula: erfcx keeps
// the far left tail finite).
TC_HD inline double log_ndtr(double x) {
  const double t = x * kSqrt1_2;
  if (x < -1) return ::log(erfcx(-t) / 2) - t * t;
  return ::log1p(-::erfc(t) / 2);
}
// d/dx log Phi(x) = phi(x) / Phi(x).
TC_HD inline double log_ndtr_grad(double x) { return kInvSqrt2Pi * ::exp(-0.5 * x * x - log_ndtr(x)); }

// The regularized incomplete gamma functions P(a, x) (igamma) and
// Q(a, x) = 1 - P (igammac), Cephes' igam/igamc: P's power series where
// x <= max(a, 1), Q's continued fraction elsewhere, each giving the other
// as its complement. Special values as PyTorch (SciPy's):
// a < 0 or x < 0: NaN; a = 0: P = 1, Q = 0 for x > 0 (NaN at x = 0);
// x = 0: P = 0; a = inf: P = 0 (NaN with x = inf); x = inf: P = 1.
// x^a e^-x / Gamma(a), 0 where it underflows.
TC_HD inline double igam_factor(double a, double x) {
  const double ax = a * ::log(x) - x - ::lgamma(a);
  return ax < -709.78271289338399 ? 0.0 : ::exp(ax);
}
TC_HD inline double igam_series(double a, double x) {
  const double ax = igam_factor(a, x);
  if (ax == 0) return 0;
  double r = a, c = 1, ans = 1;
  for (int i = 0; i < 5000; ++i) {
    r += 1;
    c *= x / r;
    ans += c;
    if (!(c > ans * kEps)) break;
  }
  return ans * ax / a;
}
TC_HD inline double igamc_fraction(double a, double x) {
  const double ax = igam_factor(a, x);
  if (ax == 0) return 0;
  constexpr double big = 4.503599627370496e15, biginv = 2.22044604925031308085e-16;
  double y = 1 - a, z = x + y + 1, c = 0;
  double pkm2 = 1, qkm2 = x, pkm1 = x + 1, qkm1 = z * x;
  double ans = pkm1 / qkm1;
  for (int i = 0; i < 5000; ++i) {
    c += 1;
    y += 1;
    z += 2;
    const double yc = y * c;
    const double pk = pkm1 * z - pkm2 * yc, qk = qkm1 * z - qkm2 * yc;
    double t = 1;
    if (qk != 0) {
      const double r = pk / qk;
      t = ::fabs((ans - r) / r);
      ans = r;
    }
    pkm2 = pkm1;
    pkm1 = pk;
    qkm2 = qkm1;
    qkm1 = qk;
    if (::fabs(pk) > big) {
      pkm2 *= biginv;
      pkm1 *= biginv;
      qkm2 *= biginv;
      qkm1 *= biginv;
    }
    if (!(t > kEps)) break;
  }
  return ans * ax;
}
TC_HD inline double igamma(double a, double x) {
  if (x < 0 || a < 0) return NAN;
  if (a == 0) return x > 0 ? 1.0 : NAN;
  if (x == 0) return 0;
  if (a == HUGE_VAL) return x == HUGE_VAL ? NAN : 0.0;
  if (x == HUGE_VAL) return 1;
  if (x > 1 && x > a) return 1 - igamc_fraction(a, x);
  return igam_series(a, x);
}
TC_HD inline double igammac(double a, double x) {
  if (x < 0 || a < 0) return NAN;
  if (a == 0) return x > 0 ? 0.0 : NAN;
  if (x == 0) return 1;
  if (a == HUGE_VAL) return x == HUGE_VAL ? NAN : 1.0;
  if (x == HUGE_VAL) return 0;
  if (x < 1 || x < a) return 1 - igam_series(a, x);
  return igamc_fraction(a, x);
}
// d/dx P(a, x) = x^(a-1) e^-x / Gamma(a) (PyTorch's formula; Q's is its negative).
TC_HD inline double igamma_grad_x(double a, double x) { return ::exp((a - 1) * ::log(x) - x - ::lgamma(a)); }

}  // namespace special

// ---- the rows' helpers in the compute type ----

// lgamma in the compute type (libm's lgammaf for float, as PyTorch).
template <typename C>
TC_HD inline C lgamma_value(C x) {
  if constexpr (std::is_same_v<C, float>) {
    return ::lgammaf(x);
  } else {
    return C(::lgamma(double(x)));
  }
}

// Phi(x) in the compute type: erf near 0, erfc in the tails (Cephes' ndtr),
// so that the left tail keeps its relative accuracy (PyTorch 1.13 computes
// (1 + erf(x / sqrt 2)) / 2, which is 0 below x = -8.3 in double).
template <typename C>
TC_HD inline C ndtr_value(C a) {
  const C x = a * C(special::kSqrt1_2);
  const C z = m_fabs(x);
  if (z < C(special::kSqrt1_2)) return C(0.5) + C(0.5) * m_erf(x);
  const C y = C(0.5) * m_erfc(z);
  return x > C(0) ? C(1) - y : y;
}

// -x log x (0 at 0, -inf below), PyTorch's entr.
template <typename C>
TC_HD inline C entr_value(C x) {
  if (x != x) return x;
  if (x > C(0)) return -x * m_log(x);
  return x == C(0) ? C(0) : C(-HUGE_VAL);
}

// The binary rows: their forward is instantiated for every compute type
// (see math/binary_ext_math.h), so each gives C(0) for those it never gets.
template <typename C>
TC_HD inline C igamma_value(C a, C x) {
  if constexpr (is_float_compute<C>) {
    return C(special::igamma(double(a), double(x)));
  } else {
    (void)a;
    (void)x;
    return C(0);
  }
}
template <typename C>
TC_HD inline C igammac_value(C a, C x) {
  if constexpr (is_float_compute<C>) {
    return C(special::igammac(double(a), double(x)));
  } else {
    (void)a;
    (void)x;
    return C(0);
  }
}
template <typename C>
TC_HD inline C nextafter_value(C x, C y) {
  if constexpr (std::is_same_v<C, float>) {
    return ::nextafterf(x, y);
  } else if constexpr (std::is_same_v<C, double>) {
    return ::nextafter(x, y);
  } else {
    (void)y;
    return x;
  }
}
// gcd and lcm of integers, PyTorch's (Euclid on the absolute values, which
// wrap: gcd(INT64_MIN, 0) is INT64_MIN; lcm wraps on overflow).
template <typename C>
TC_HD inline C gcd_value(C x, C y) {
  if constexpr (is_int_compute<C>) {
    C a = is_negative(x) ? wrapping_neg(x) : x, b = is_negative(y) ? wrapping_neg(y) : y;
    while (a != 0) {
      const C c = a;
      a = C(b % a);
      b = c;
    }
    return b;
  } else {
    (void)x;
    (void)y;
    return C(0);
  }
}
template <typename C>
TC_HD inline C lcm_value(C x, C y) {
  if constexpr (is_int_compute<C>) {
    const C g = gcd_value(x, y);
    if (g == 0) return C(0);
    // PyTorch's abs(a / g * b) is computed in int for the narrow types (C++'s
    // promotions) and truncated after the abs: lcm(-2, 127) is -2 in int8.
    // gcd can be -1 (gcd(INT_MIN, -INT_MAX) wraps there); INT_MIN / -1 would
    // trap (PyTorch dies of SIGFPE), so that quotient wraps instead.
    using W = std::conditional_t<(sizeof(C) < sizeof(int)), int, C>;
    const W q = sizeof(C) >= sizeof(int) && g == C(-1) ? wrapping_neg(W(x)) : W(W(x) / W(g));
    const W l = wrapping_mul(q, W(y));
    return C(is_negative(l) ? wrapping_neg(l) : l);
  } else {
    (void)x;
    (void)y;
    return C(0);
  }
}

}  // namespace tc::ew
