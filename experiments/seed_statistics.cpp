#include "experiments/seed_statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "core/errors.h"

namespace hamgan {

namespace {

// Continued fraction of I_x(a, b) by the modified Lentz method (Numerical
// Recipes §6.4); converges fast for x < (a + 1) / (a + b + 2). y = 1 − x is
// passed separately so that x near 1 loses no digits.
double incomplete_beta_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300, kEps = 1e-16;
  constexpr int kMaxTerms = 10000;
  double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
  if (std::abs(d) < kTiny) d = kTiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= kMaxTerms; ++m) {
    const double m2 = 2.0 * m;
    // Even step, then odd step, of the fraction's coefficients.
    double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 + num * d, c = 1.0 + num / c;
    if (std::abs(d) < kTiny) d = kTiny;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1.0 / d, h *= d * c;
    num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 + num * d, c = 1.0 + num / c;
    if (std::abs(d) < kTiny) d = kTiny;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1.0 / d;
    const double delta = d * c;
    h *= delta;
    if (std::abs(delta - 1.0) < kEps) return h;
  }
  return h;  // not reached for the a, b of a t distribution
}

double incomplete_beta(double a, double b, double x, double y) {
  if (x <= 0) return 0.0;
  if (y <= 0) return 1.0;
  const double log_front = a * std::log(x) + b * std::log(y) - (std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b));
  const double front = std::exp(log_front);
  if (x < (a + 1.0) / (a + b + 2.0)) return front * incomplete_beta_fraction(a, b, x) / a;
  return 1.0 - front * incomplete_beta_fraction(b, a, y) / b;  // I_x(a, b) = 1 − I_{1−x}(b, a)
}

void check_df(double df) {
  if (!(df > 0)) throw Error("student t: degrees of freedom must be > 0, got " + std::to_string(df));
}

}  // namespace

double regularized_incomplete_beta(double a, double b, double x) {
  if (!(a > 0 && b > 0 && x >= 0 && x <= 1))
    throw Error("incomplete beta: needs a, b > 0 and 0 <= x <= 1");
  return incomplete_beta(a, b, x, 1.0 - x);
}

// P(|T| >= |t|) = I_{df/(df+t²)}(df/2, 1/2); computed from the tail, so tiny
// p-values keep their relative precision.
double student_t_two_sided_p(double t, double df) {
  check_df(df);
  if (std::isnan(t)) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(t)) return 0.0;
  const double t2 = t * t;
  return incomplete_beta(df / 2.0, 0.5, df / (df + t2), t2 / (df + t2));
}

double student_t_cdf(double t, double df) {
  const double tail = 0.5 * student_t_two_sided_p(t, df);
  return t < 0 ? tail : 1.0 - tail;
}

// Bisection on the two-sided tail: slower than Newton but cannot diverge on
// the heavy tails of df near 1; it stops when the bracket holds adjacent doubles.
double student_t_quantile(double p, double df) {
  check_df(df);
  if (!(p > 0 && p < 1)) throw Error("student t quantile: p must be in (0, 1), got " + std::to_string(p));
  if (p == 0.5) return 0.0;
  const double tail = std::min(p, 1.0 - p);  // one-sided tail beyond |t|
  double lo = 0.0, hi = 1.0;
  while (student_t_two_sided_p(hi, df) > 2.0 * tail) lo = hi, hi *= 2.0;
  for (int i = 0; i < 1100; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (mid <= lo || mid >= hi) break;
    (student_t_two_sided_p(mid, df) > 2.0 * tail ? lo : hi) = mid;
  }
  const double t = 0.5 * (lo + hi);
  return p < 0.5 ? -t : t;
}

MeanInterval mean_confidence_interval(const std::vector<double>& values, double level) {
  if (!(level > 0 && level < 1)) throw Error("confidence interval: level must be in (0, 1)");
  MeanInterval r;
  r.n = static_cast<int64_t>(values.size());
  if (values.empty()) return r;
  r.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(r.n);
  r.lower = r.upper = r.mean;
  if (r.n < 2) return r;
  double ss = 0;
  for (double v : values) ss += (v - r.mean) * (v - r.mean);
  r.std = std::sqrt(ss / static_cast<double>(r.n - 1));
  const double half = student_t_quantile(0.5 + level / 2.0, static_cast<double>(r.n - 1)) * r.std /
                      std::sqrt(static_cast<double>(r.n));
  r.lower = r.mean - half, r.upper = r.mean + half;
  return r;
}

WelchTest welch_t_test(const std::vector<double>& a, const std::vector<double>& b) {
  WelchTest w;
  if (a.size() < 2 || b.size() < 2) return w;
  const MeanInterval sa = mean_confidence_interval(a), sb = mean_confidence_interval(b);
  w.tested = true;
  w.difference = sa.mean - sb.mean;
  const double va = sa.std * sa.std / static_cast<double>(sa.n), vb = sb.std * sb.std / static_cast<double>(sb.n);
  const double se2 = va + vb;
  if (se2 == 0) {  // no spread on either side: the difference is exact
    w.t = w.difference == 0 ? 0.0 : std::copysign(std::numeric_limits<double>::infinity(), w.difference);
    w.df = std::numeric_limits<double>::quiet_NaN();
    w.p = w.difference == 0 ? 1.0 : 0.0;
    return w;
  }
  w.t = w.difference / std::sqrt(se2);
  // Welch–Satterthwaite: the df of a t whose variance matches that of va + vb.
  w.df = se2 * se2 / (va * va / static_cast<double>(sa.n - 1) + vb * vb / static_cast<double>(sb.n - 1));
  w.p = student_t_two_sided_p(w.t, w.df);
  return w;
}

std::vector<double> holm_adjusted(const std::vector<double>& p) {
  const size_t m = p.size();
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t i, size_t j) { return p[i] < p[j]; });
  std::vector<double> adjusted(m);
  double running_max = 0;  // step-down: an adjusted p never falls below a smaller p's
  for (size_t k = 0; k < m; ++k) {
    running_max = std::max(running_max, std::min(1.0, static_cast<double>(m - k) * p[order[k]]));
    adjusted[order[k]] = running_max;
  }
  return adjusted;
}

}  // namespace hamgan
