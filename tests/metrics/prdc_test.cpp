// Precision, recall, density and coverage against the `prdc` package and
// torch-fidelity's precision/recall (tests/python/prdc_reference.py).
#include <gtest/gtest.h>

#include "core/errors.h"
#include "metrics/npz.h"
#include "metrics/prdc.h"
#include "tests/metrics/reference_json.h"
#include "tests/common/cuda_test_util.h"

using namespace hamgan;

namespace {

// Two overlapping Gaussian clouds: every fraction lies strictly between 0 and 1.
std::pair<torch::Tensor, torch::Tensor> clouds(int64_t n, int64_t m, int64_t d) {
  torch::manual_seed(11);
  auto real = torch::randn({n, d}, torch::kFloat64);
  auto fake = torch::randn({m, d}, torch::kFloat64) * 1.2 + 0.3;
  return {real, fake};
}

}  // namespace

TEST(Prdc, MatchesThePrdcPackageAndTorchFidelity) {
  auto dir = test::temp_dir("prdc");
  auto [real, fake] = clouds(300, 250, 16);
  for (int64_t k : {3, 5}) {
    write_npz(dir + "/in.npz", {{"real", real}, {"fake", fake}, {"k", torch::tensor(k, torch::kInt64)}}, false);
    RUN_REFERENCE("prdc_reference.py", dir + "/in.npz " + dir + "/out.json");
    const auto ref = test::read_json(dir + "/out.json");
    PrdcOptions o;
    o.k = k;
    const auto r = compute_prdc(real, fake, o);
    // Fractions of the same counts: equal up to the last bit of a division.
    EXPECT_NEAR(r.precision, ref["prdc"]["precision"].get<double>(), 1e-12) << "k=" << k;
    EXPECT_NEAR(r.recall, ref["prdc"]["recall"].get<double>(), 1e-12) << "k=" << k;
    EXPECT_NEAR(r.density, ref["prdc"]["density"].get<double>(), 1e-12) << "k=" << k;
    EXPECT_NEAR(r.coverage, ref["prdc"]["coverage"].get<double>(), 1e-12) << "k=" << k;
    // torch-fidelity averages in float32.
    EXPECT_NEAR(r.precision, ref["torch_fidelity"]["precision"].get<double>(), 1e-6) << "k=" << k;
    EXPECT_NEAR(r.recall, ref["torch_fidelity"]["recall"].get<double>(), 1e-6) << "k=" << k;
    EXPECT_GT(r.precision, 0.05);
    EXPECT_LT(r.precision, 0.95);
    EXPECT_EQ(r.k, k);
    EXPECT_EQ(r.n_real, 300);
    EXPECT_EQ(r.n_fake, 250);
    RecordProperty("precision_k" + std::to_string(k), std::to_string(r.precision));
  }
}

// Blocks of a few rows give the same counts as one block: the batching only bounds memory.
TEST(Prdc, BlockSizeDoesNotChangeTheResult) {
  auto [real, fake] = clouds(203, 177, 8);
  const auto whole = compute_prdc(real, fake);
  PrdcOptions small;
  small.block_elements = 7 * 203;  // 7 rows at a time, the last block shorter
  const auto blocked = compute_prdc(real, fake, small);
  EXPECT_EQ(blocked.precision, whole.precision);
  EXPECT_EQ(blocked.recall, whole.recall);
  EXPECT_EQ(blocked.density, whole.density);
  EXPECT_EQ(blocked.coverage, whole.coverage);
  // The radii are the k-th smallest distance to another point, checked by sorting the full matrix.
  const auto radii = knn_radii_squared(real, 3, 5 * 203);
  const auto full = std::get<0>(torch::cdist(real, real).pow(2).sort(1));
  EXPECT_LE((radii - full.select(1, 3)).abs().max().item<double>(), 1e-9);
}

// A set against itself: every point sits in its own ball (distance 0).
TEST(Prdc, IdenticalSetsArePreciseAndCovered) {
  auto [real, fake] = clouds(120, 10, 4);
  const auto r = compute_prdc(real, real);
  EXPECT_EQ(r.precision, 1.0);
  EXPECT_EQ(r.recall, 1.0);
  EXPECT_EQ(r.coverage, 1.0);
}

TEST(Prdc, RefusesTooFewRowsAndMismatchedWidths) {
  EXPECT_THROW(compute_prdc(torch::randn({3, 4}), torch::randn({10, 4})), DataError);  // needs more than k = 3
  EXPECT_THROW(compute_prdc(torch::randn({10, 4}), torch::randn({10, 5})), DataError);
}

TEST(Prdc, CudaEqualsCpu) {
  REQUIRE_CUDA_OR_SKIP();
  auto [real, fake] = clouds(1000, 900, 64);
  const auto cpu = compute_prdc(real, fake);
  PrdcOptions small;
  small.block_elements = 100 * 1000;
  const auto gpu = compute_prdc(real.cuda(), fake.cuda(), small);
  EXPECT_EQ(gpu.precision, cpu.precision);
  EXPECT_EQ(gpu.recall, cpu.recall);
  EXPECT_EQ(gpu.density, cpu.density);
  EXPECT_EQ(gpu.coverage, cpu.coverage);
}
