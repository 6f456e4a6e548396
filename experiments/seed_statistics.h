#pragma once
// Statistics over a handful of per-seed results: the Student t distribution,
// a t confidence interval of the mean, Welch's two-sample t-test and Holm's
// step-down correction. Small n is the normal case here (3 to 6 seeds), so
// everything uses the exact t distribution, never a normal approximation.
#include <cstdint>
#include <vector>

namespace hamgan {

// I_x(a, b), the regularized incomplete beta function, for a, b > 0 and 0 <= x <= 1.
double regularized_incomplete_beta(double a, double b, double x);

// Student t with `df` degrees of freedom (df > 0, need not be an integer, as
// Welch's df is not): P(T <= t), P(|T| >= |t|) and the p-quantile (0 < p < 1).
double student_t_cdf(double t, double df);
double student_t_two_sided_p(double t, double df);
double student_t_quantile(double p, double df);

// mean ± t_{(1+level)/2, n−1} · s/√n. With n < 2 there is no spread to
// estimate, so the interval is absent (has_interval() false), never invented.
struct MeanInterval {
  int64_t n = 0;
  double mean = 0, std = 0;  // sample mean and sample standard deviation (n − 1)
  double lower = 0, upper = 0;
  bool has_interval() const { return n > 1; }
};
MeanInterval mean_confidence_interval(const std::vector<double>& values, double level = 0.95);

// Welch's t-test of mean(a) − mean(b) (unequal variances, Welch–Satterthwaite
// df), two-sided; as scipy.stats.ttest_ind(a, b, equal_var=False).
// Needs two values on each side (tested false otherwise). When neither side
// varies, a difference is certain (p = 0) and no difference is p = 1.
struct WelchTest {
  bool tested = false;
  double difference = 0;  // mean(a) − mean(b)
  double t = 0, df = 0, p = 1;
};
WelchTest welch_t_test(const std::vector<double>& a, const std::vector<double>& b);

// Holm's step-down adjusted p-values, in the order given: with m tests, the
// k-th smallest p becomes max over the first k of min(1, (m − j + 1) · p_(j)).
// Rejecting where the adjusted p < α bounds the chance of any false "*" by α.
std::vector<double> holm_adjusted(const std::vector<double>& p);

}  // namespace hamgan
