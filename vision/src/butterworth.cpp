// Butterworth design and sosfiltfilt, a line-by-line port of scipy 1.10 (signal/_filter_design.py:
// buttap, lp2lp_zpk, bilinear_zpk, zpk2sos with pairing='nearest'; signal/_signaltools.py:
// sosfilt, sosfilt_zi, lfilter_zi, sosfiltfilt, odd_ext). No Debian C++ package offers
// sosfiltfilt with scipy's exact conventions (OpenCV and Eigen have no IIR design), hence this file.
#include "vcloe/vision/butterworth.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <string>

#include "vcloe/core/error.hpp"

namespace vcloe::vision {

namespace {

using cplx = std::complex<double>;

constexpr double kRealTol = 100 * 2.220446049250313e-16;  // scipy _cplxreal tol

bool is_real(const cplx& z) { return z.imag() == 0.0; }  // np.isreal

// scipy _cplxreal: complex values with positive imaginary part (conjugate pairs averaged), then
// the real ones, each sorted by real part.
void cplxreal(const std::vector<cplx>& z_in, std::vector<cplx>& zc, std::vector<double>& zr) {
  std::vector<cplx> z = z_in;
  std::stable_sort(z.begin(), z.end(), [](const cplx& a, const cplx& b) {
    if (a.real() != b.real()) return a.real() < b.real();
    return std::abs(a.imag()) < std::abs(b.imag());
  });
  std::vector<cplx> zp, zn;
  for (const cplx& v : z) {
    if (std::abs(v.imag()) <= kRealTol * std::abs(v))
      zr.push_back(v.real());
    else if (v.imag() > 0)
      zp.push_back(v);
    else
      zn.push_back(v);
  }
  if (zp.size() != zn.size()) throw Error("butterworth: pole/zero without a matching conjugate");
  for (std::size_t i = 0; i < zp.size(); ++i) {
    if (std::abs(zp[i] - std::conj(zn[i])) > kRealTol * std::abs(zn[i]))
      throw Error("butterworth: pole/zero without a matching conjugate");
    zc.push_back((zp[i] + std::conj(zn[i])) / 2.0);
  }
}

std::size_t idx_worst(const std::vector<cplx>& p) {  // digital: closest to the unit circle
  std::size_t best = 0;
  for (std::size_t i = 1; i < p.size(); ++i)
    if (std::abs(1 - std::abs(p[i])) < std::abs(1 - std::abs(p[best]))) best = i;
  return best;
}

enum class Which { Real, Complex, Any };

std::size_t nearest_idx(const std::vector<cplx>& from, const cplx& to, Which which) {
  std::vector<std::size_t> order(from.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::abs(from[a] - to) < std::abs(from[b] - to);
  });
  for (std::size_t i : order) {
    if (which == Which::Any) return i;
    if ((which == Which::Real) == is_real(from[i])) return i;
  }
  throw Error("butterworth: no zero of the requested kind left to pair");
}

// np.poly of up to two roots, real part (zpk2tf keeps the real part of conjugate pairs).
std::vector<double> poly(const std::vector<cplx>& roots) {
  std::vector<cplx> c{1.0};
  for (const cplx& r : roots) {
    std::vector<cplx> n(c.size() + 1, 0.0);
    for (std::size_t i = 0; i < c.size(); ++i) {
      n[i] += c[i];
      n[i + 1] -= c[i] * r;
    }
    c = n;
  }
  std::vector<double> out;
  for (const cplx& v : c) out.push_back(v.real());
  return out;
}

SecondOrderSection single_zpksos(const std::vector<cplx>& z, const std::vector<cplx>& p) {
  SecondOrderSection s{0, 0, 0, 0, 0, 0};
  const std::vector<double> b = poly(z), a = poly(p);
  for (std::size_t i = 0; i < b.size(); ++i) s[3 - b.size() + i] = b[i];
  for (std::size_t i = 0; i < a.size(); ++i) s[6 - a.size() + i] = a[i];
  return s;
}

template <typename T>
T take(std::vector<T>& v, std::size_t i) {
  T x = v[i];
  v.erase(v.begin() + static_cast<std::ptrdiff_t>(i));
  return x;
}

std::size_t count_real(const std::vector<cplx>& v) {
  return static_cast<std::size_t>(std::count_if(v.begin(), v.end(), is_real));
}

// scipy zpk2sos(z, p, k, pairing='nearest') for a digital filter.
SosFilter zpk2sos_nearest(std::vector<cplx> z, std::vector<cplx> p, double k) {
  while (p.size() < z.size()) p.push_back(0.0);
  while (z.size() < p.size()) z.push_back(0.0);
  const std::size_t n_sections = (p.size() + 1) / 2;
  if (p.size() % 2 == 1) {
    p.push_back(0.0);
    z.push_back(0.0);
  }
  auto to_list = [](const std::vector<cplx>& v) {
    std::vector<cplx> c;
    std::vector<double> r;
    cplxreal(v, c, r);
    for (double x : r) c.push_back(x);
    return c;
  };
  z = to_list(z);
  p = to_list(p);

  SosFilter sos(n_sections);
  for (std::size_t si = n_sections; si-- > 0;) {
    const cplx p1 = take(p, idx_worst(p));
    if (is_real(p1) && count_real(p) == 0) {
      const cplx z1 = take(z, nearest_idx(z, p1, Which::Real));
      sos[si] = single_zpksos({z1, 0.0}, {p1, 0.0});
    } else if (p.size() + 1 == z.size() && !is_real(p1) && count_real(p) == 1 &&
               count_real(z) == 1) {
      const cplx z1 = take(z, nearest_idx(z, p1, Which::Complex));
      sos[si] = single_zpksos({z1, std::conj(z1)}, {p1, std::conj(p1)});
    } else {
      cplx p2;
      if (is_real(p1)) {
        std::vector<std::size_t> real_idx;
        std::vector<cplx> reals;
        for (std::size_t i = 0; i < p.size(); ++i)
          if (is_real(p[i])) real_idx.push_back(i), reals.push_back(p[i]);
        p2 = take(p, real_idx[idx_worst(reals)]);
      } else {
        p2 = std::conj(p1);
      }
      if (!z.empty()) {
        const cplx z1 = take(z, nearest_idx(z, p1, Which::Any));
        if (!is_real(z1)) {
          sos[si] = single_zpksos({z1, std::conj(z1)}, {p1, p2});
        } else if (!z.empty()) {
          const cplx z2 = take(z, nearest_idx(z, p1, Which::Real));
          sos[si] = single_zpksos({z1, z2}, {p1, p2});
        } else {
          sos[si] = single_zpksos({z1}, {p1, p2});
        }
      } else {
        sos[si] = single_zpksos({}, {p1, p2});
      }
    }
  }
  for (int i = 0; i < 3; ++i) sos[0][static_cast<std::size_t>(i)] *= k;
  return sos;
}

}  // namespace

SosFilter butterworth_lowpass(int order, double cutoff_hz, double sample_rate_hz) {
  if (order < 1 || order > 64)
    throw Error("butterworth: order must be an integer in 1..64, got " + std::to_string(order));
  if (!(sample_rate_hz > 0) || !std::isfinite(sample_rate_hz))
    throw Error("butterworth: sample rate must be positive, got " + exact_number(sample_rate_hz) +
                " Hz");
  if (!(cutoff_hz > 0) || !(cutoff_hz < sample_rate_hz / 2))
    throw Error("butterworth: cutoff must satisfy 0 < cutoff < sample_rate/2 = " +
                exact_number(sample_rate_hz / 2) + " Hz, got " + exact_number(cutoff_hz) +
                " Hz");
  const double pi = std::numbers::pi;
  const double Wn = 2 * cutoff_hz / sample_rate_hz;
  // buttap
  std::vector<cplx> p;
  for (int m = -order + 1; m < order; m += 2)
    p.push_back(-std::exp(cplx(0, 1) * (pi * m / (2.0 * order))));
  // iirfilter: fs = 2, warped = 2 fs tan(pi Wn / fs); lp2lp_zpk
  const double fs = 2.0;
  const double warped = 2 * fs * std::tan(pi * Wn / fs);
  for (cplx& v : p) v *= warped;
  double k = std::pow(warped, order);
  // bilinear_zpk
  const double fs2 = 2.0 * fs;
  cplx den = 1.0;
  for (cplx& v : p) {
    den *= (fs2 - v);
    v = (fs2 + v) / (fs2 - v);
  }
  k = k * (cplx(1.0) / den).real();
  std::vector<cplx> z(static_cast<std::size_t>(order), cplx(-1.0));
  return zpk2sos_nearest(z, p, k);
}

std::vector<std::array<double, 2>> sosfilt_zi(const SosFilter& sos) {
  std::vector<std::array<double, 2>> zi(sos.size());
  double scale = 1.0;
  for (std::size_t s = 0; s < sos.size(); ++s) {
    const double a0 = sos[s][3];
    const double b0 = sos[s][0] / a0, b1 = sos[s][1] / a0, b2 = sos[s][2] / a0;
    const double a1 = sos[s][4] / a0, a2 = sos[s][5] / a0;
    // lfilter_zi: (I - companion(a)^T) zi = b[1:] - a[1:] b0
    // I - companion^T = [[1 + a1, -1], [a2, 1]]
    const double B0 = b1 - a1 * b0, B1 = b2 - a2 * b0;
    const double det = (1 + a1) * 1 - (-1) * a2;
    const double z0 = (B0 * 1 - (-1) * B1) / det;
    const double z1 = ((1 + a1) * B1 - a2 * B0) / det;
    zi[s] = {scale * z0, scale * z1};
    scale *= (sos[s][0] + sos[s][1] + sos[s][2]) / (sos[s][3] + sos[s][4] + sos[s][5]);
  }
  return zi;
}

std::vector<double> sosfilt(const SosFilter& sos, const std::vector<double>& x,
                            std::vector<std::array<double, 2>>& zi) {
  if (zi.size() != sos.size()) throw Error("sosfilt: one initial state per section expected");
  std::vector<double> y = x;
  for (std::size_t s = 0; s < sos.size(); ++s) {
    const double a0 = sos[s][3];
    const double b0 = sos[s][0] / a0, b1 = sos[s][1] / a0, b2 = sos[s][2] / a0;
    const double a1 = sos[s][4] / a0, a2 = sos[s][5] / a0;
    double z0 = zi[s][0], z1 = zi[s][1];
    for (double& v : y) {  // transposed direct form II
      const double in = v;
      const double out = b0 * in + z0;
      z0 = b1 * in - a1 * out + z1;
      z1 = b2 * in - a2 * out;
      v = out;
    }
    zi[s] = {z0, z1};
  }
  return y;
}

int sosfiltfilt_default_padlen(const SosFilter& sos) {
  int zeros_b = 0, zeros_a = 0;
  for (const auto& s : sos) zeros_b += s[2] == 0.0, zeros_a += s[5] == 0.0;
  const int ntaps = 2 * static_cast<int>(sos.size()) + 1 - std::min(zeros_b, zeros_a);
  return 3 * ntaps;
}

std::vector<double> sosfiltfilt(const SosFilter& sos, const std::vector<double>& x) {
  if (sos.empty()) throw Error("sosfiltfilt: the filter has no sections");
  const int edge = sosfiltfilt_default_padlen(sos);
  const std::size_t n = x.size();
  if (n <= static_cast<std::size_t>(edge))
    throw Error("sosfiltfilt: the signal has " + std::to_string(n) +
                " samples; this filter needs more than " + std::to_string(edge) +
                " (its padding length)");
  const std::size_t e = static_cast<std::size_t>(edge);
  // odd_ext
  std::vector<double> ext;
  ext.reserve(n + 2 * e);
  for (std::size_t i = e; i >= 1; --i) ext.push_back(2 * x[0] - x[i]);
  ext.insert(ext.end(), x.begin(), x.end());
  for (std::size_t i = 1; i <= e; ++i) ext.push_back(2 * x[n - 1] - x[n - 1 - i]);

  const std::vector<std::array<double, 2>> zi = sosfilt_zi(sos);
  auto scaled = [&](double v) {
    std::vector<std::array<double, 2>> z = zi;
    for (auto& s : z) s[0] *= v, s[1] *= v;
    return z;
  };
  auto state = scaled(ext.front());
  std::vector<double> y = sosfilt(sos, ext, state);
  std::reverse(y.begin(), y.end());
  state = scaled(y.front());
  y = sosfilt(sos, y, state);
  std::reverse(y.begin(), y.end());
  return std::vector<double>(y.begin() + static_cast<std::ptrdiff_t>(e),
                             y.end() - static_cast<std::ptrdiff_t>(e));
}

}  // namespace vcloe::vision
