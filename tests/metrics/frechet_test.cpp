// Fréchet distance against pytorch-fid and scipy's sqrtm on random, singular
// and constant-feature statistics (references from tests/python/frechet_reference.py).
#include <gtest/gtest.h>

#include <cmath>

#include "core/errors.h"
#include "core/stop_signal.h"
#include "metrics/frechet.h"
#include "metrics/npz.h"
#include "tests/metrics/helpers.h"

using namespace hamgan;

namespace {
double rel(double a, double b) { return std::fabs(a - b) / std::max(std::fabs(b), 1e-12); }
}  // namespace

TEST(Frechet, MatchesPytorchFidAndScipy) {
  std::string dir;
  CACHED_REFERENCE("frechet_reference.py", "frechet", dir);
  for (const char* name : {"regular", "singular_one", "singular_both", "dead_features", "large", "identical"}) {
    SCOPED_TRACE(name);
    auto c = read_npz(dir + "/case_" + name + ".npz");
    auto r = frechet_distance(c["mu1"], c["sigma1"], c["mu2"], c["sigma2"]);
    double expected = c["fid_pytorch_fid"].item<double>();
    if (std::string(name) == "identical") {
      EXPECT_NEAR(r.distance, 0.0, 1e-9 * c["sigma1"].trace().item<double>());
      continue;
    }
    EXPECT_LE(rel(r.distance, expected), 1e-6) << r.distance << " vs pytorch-fid " << expected;
    EXPECT_LE(rel(r.trace_sqrt, c["trace_sqrt"].item<double>()), 1e-6);
    // The imaginary residue is numerical noise on both routes.
    EXPECT_LT(r.imaginary, 1e-3);
    EXPECT_LT(c["imag"].item<double>(), 1e-3);
    bool singular_case = std::string(name).find("singular") == 0 || std::string(name) == "dead_features";
    EXPECT_EQ(r.singular, singular_case);
    FrechetOptions offset;
    offset.eps_offset = true;
    auto ro = frechet_distance(c["mu1"], c["sigma1"], c["mu2"], c["sigma2"], offset);
    EXPECT_LE(rel(ro.distance, c["fid_offset"].item<double>()), 1e-6) << "eps-offset branch";
  }
}

TEST(Frechet, UnivariateClosedForm) {
  // 1-d: (m1−m2)² + s1 + s2 − 2√(s1 s2), computed by hand.
  auto r = frechet_distance(torch::tensor({1.5}, torch::kFloat64), torch::tensor({{4.0}}, torch::kFloat64),
                            torch::tensor({-0.5}, torch::kFloat64), torch::tensor({{9.0}}, torch::kFloat64));
  EXPECT_NEAR(r.distance, 4.0 + 4.0 + 9.0 - 2.0 * 6.0, 1e-12);
}

TEST(Frechet, RejectsBadInput) {
  auto mu = torch::zeros({3}, torch::kFloat64);
  auto eye = torch::eye(3, torch::kFloat64);
  EXPECT_THROW(frechet_distance(mu, eye, torch::zeros({4}), torch::eye(4)), DataError);
  auto nan = eye.clone();
  nan[0][0] = NAN;
  EXPECT_THROW(frechet_distance(mu, nan, mu, eye), DataError);
  auto neg = -eye;  // not PSD: large imaginary residue
  EXPECT_THROW(frechet_distance(mu, eye, mu, neg), DataError);
}

TEST(Frechet, ScalesQuadraticallyWithLargeSingularFeatures) {
  // FID(k·x, k·y) = k²·FID(x, y); rank-deficient (8 samples in 16-d) at a scale where
  // rounding noise in the eigenvalues exceeds pytorch-fid's absolute imaginary tolerance.
  torch::manual_seed(4);
  auto x = torch::randn({8, 16}, torch::kFloat64), y = torch::randn({8, 16}, torch::kFloat64) * 1.3 + 0.2;
  auto cov = [](const torch::Tensor& f) {
    auto c = f - f.mean(0);
    return c.t().matmul(c) / double(f.size(0) - 1);
  };
  const double k = 1e6;
  auto small = frechet_distance(x.mean(0), cov(x), y.mean(0), cov(y));
  auto large = frechet_distance(k * x.mean(0), cov(k * x), k * y.mean(0), cov(k * y));
  EXPECT_TRUE(small.singular);
  EXPECT_NEAR(large.distance / (k * k), small.distance, 1e-6 * small.distance);
}

// A stop requested while the distance is computed (seconds for 2048-d features
// on a CPU, in training's evaluation too) ends it between its eigendecompositions.
TEST(Frechet, AStopRequestEndsIt) {
  {
    StopSignalGuard signals;
    request_stop();
    const auto x = torch::randn({40, 8}, torch::kFloat64);
    EXPECT_THROW(frechet_distance(x.mean(0), torch::cov(x.t()), x.mean(0), torch::cov(x.t())), Interrupted);
  }
  StopSignalGuard cleared;  // a new guard clears the request: it does not outlive this test
}
