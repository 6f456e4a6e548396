// The augmentations D sees (gan/step/augment.h): outputs and input gradients against
// a Python reference written from DiffAugment's definitions
// (tests/python/diffaugment_reference.py), the ranges the draws cover, p = 0 and p = 1,
// slices of a batch-wide draw, the policy's names, and no host synchronisation.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <set>

#include "core/errors.h"
#include "core/op_counter.h"
#include "gan/step/augment.h"
#include "metrics/npz.h"
#include "tests/common/python_reference.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {

at::Generator seeded(uint64_t seed) { return at::make_generator<at::CPUGeneratorImpl>(seed); }

torch::Tensor images(int64_t n, int64_t c, int64_t h, int64_t w, uint64_t seed,
                     torch::ScalarType dtype = torch::kFloat) {
  auto g = seeded(seed);
  return torch::rand({n, c, h, w}, g, dtype) * 2 - 1;  // in [-1, 1], as D sees them
}

std::set<int64_t> values(const torch::Tensor& t) {
  std::set<int64_t> s;
  const torch::Tensor flat = t.contiguous().view(-1);
  for (int64_t i = 0; i < flat.numel(); ++i) s.insert(flat[i].item<int64_t>());
  return s;
}

std::set<int64_t> range_set(int64_t from, int64_t to_inclusive) {
  std::set<int64_t> s;
  for (int64_t v = from; v <= to_inclusive; ++v) s.insert(v);
  return s;
}

TEST(Augment, PolicyNamesParseAndBadOnesNameTheKnownOnes) {
  EXPECT_EQ(parse_augment_policy("color,translation,cutout"),
            (AugmentPolicy{AugmentOp::kColor, AugmentOp::kTranslation, AugmentOp::kCutout}));
  EXPECT_EQ(parse_augment_policy(" cutout , color"), (AugmentPolicy{AugmentOp::kCutout, AugmentOp::kColor}));
  EXPECT_EQ(augment_policy_text(parse_augment_policy(kDefaultAugmentPolicy)), "color,translation,cutout");
  for (const char* bad : {"color,flip", "", " ", "color,,cutout", "color,color"}) {
    try {
      parse_augment_policy(bad);
      ADD_FAILURE() << "'" << bad << "' accepted";
    } catch (const ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find("augment_policy: "), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("color, translation or cutout"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(augment_mode_names().parse("ada"), AugmentMode::kAda);
  EXPECT_THROW(augment_mode_names().parse("adaptive"), ConfigError);
}

TEST(Augment, SizesFollowDiffAugmentRatios) {
  // int(side / 8 + 0.5) and int(side / 2 + 0.5), computed by hand.
  EXPECT_EQ(max_translation(32), 4);
  EXPECT_EQ(max_translation(28), 4);
  EXPECT_EQ(max_translation(12), 2);
  EXPECT_EQ(max_translation(10), 1);
  EXPECT_EQ(max_translation(128), 16);
  EXPECT_EQ(cutout_side(32), 16);
  EXPECT_EQ(cutout_side(28), 14);
  EXPECT_EQ(cutout_side(10), 5);
  EXPECT_EQ(cutout_side(7), 4);
}

// Over many draws each integer parameter takes every value of its defined set and
// no other; each uniform stays inside its interval and reaches near both ends.
TEST(Augment, DrawsCoverExactlyTheDefinedRanges) {
  const AugmentPolicy all = parse_augment_policy(kDefaultAugmentPolicy);
  auto g = seeded(1);
  const AugmentDraws d = draw_augment(all, 4000, 32, 30, 0.3, g);
  EXPECT_EQ(values(d.shift.select(1, 0)), range_set(-4, 4));  // rows: s = 4 for 32
  EXPECT_EQ(values(d.shift.select(1, 1)), range_set(-4, 4));  // columns: s = int(3.75 + 0.5) = 4 for 30
  EXPECT_EQ(values(d.cutout_offset.select(1, 0)), range_set(0, 32));  // side 16 (even): offsets 0..32
  EXPECT_EQ(values(d.cutout_offset.select(1, 1)), range_set(0, 29));  // side 15 (odd): offsets 0..29
  const AugmentDraws small = draw_augment(all, 2000, 12, 10, 1, g);
  EXPECT_EQ(values(small.shift.select(1, 0)), range_set(-2, 2));
  EXPECT_EQ(values(small.shift.select(1, 1)), range_set(-1, 1));
  const struct {
    torch::Tensor t;
    double lo, hi;
  } uniforms[] = {{d.brightness, -0.5, 0.5}, {d.saturation, 0, 2}, {d.contrast, 0.5, 1.5}};
  for (const auto& u : uniforms) {
    EXPECT_GE(u.t.min().item<double>(), u.lo);
    EXPECT_LT(u.t.max().item<double>(), u.hi);
    EXPECT_LT(u.t.min().item<double>(), u.lo + 0.01);
    EXPECT_GT(u.t.max().item<double>(), u.hi - 0.01);
  }
  // Bernoulli(0.3) per image and transform: 4000 draws each, 3 standard deviations is 0.022.
  const torch::Tensor rate = d.apply.to(torch::kDouble).mean(0);
  for (int64_t t = 0; t < kAugmentTransforms; ++t) EXPECT_NEAR(rate[t].item<double>(), 0.3, 0.022) << t;
  EXPECT_TRUE(small.apply.all().item<bool>());
}

TEST(Augment, SameSeedSameDrawsWhateverTheProbability) {
  const AugmentPolicy all = parse_augment_policy(kDefaultAugmentPolicy);
  auto g1 = seeded(7), g2 = seeded(7);
  const AugmentDraws a = draw_augment(all, 16, 32, 32, 1, g1), b = draw_augment(all, 16, 32, 32, 0.25, g2);
  EXPECT_TRUE(torch::equal(a.brightness, b.brightness));
  EXPECT_TRUE(torch::equal(a.shift, b.shift));
  EXPECT_TRUE(torch::equal(a.cutout_offset, b.cutout_offset));
  EXPECT_FALSE(torch::equal(a.apply, b.apply));
  EXPECT_TRUE(torch::equal(torch::rand({4}, g1), torch::rand({4}, g2)));  // the same amount of stream used
}

TEST(Augment, ProbabilityZeroIsTheIdentity) {
  for (int64_t c : {1, 3}) {
    const torch::Tensor x = images(8, c, 32, 32, 2);
    auto g = seeded(3);
    const AugmentDraws d = draw_augment(parse_augment_policy("color,translation,cutout"), 8, 32, 32, 0, g);
    EXPECT_TRUE(torch::equal(apply_augment(x, d), x)) << c << " channels";
    auto g1 = seeded(3);
    EXPECT_FALSE(torch::equal(apply_augment(x, draw_augment(d.policy, 8, 32, 32, 1, g1)), x));
  }
}

TEST(Augment, ASliceOfABatchDrawAugmentsThatSliceOfTheBatch) {
  const torch::Tensor x = images(12, 3, 16, 16, 4);
  auto g = seeded(5);
  const AugmentDraws d = draw_augment(parse_augment_policy(kDefaultAugmentPolicy), 12, 16, 16, 0.5, g);
  const torch::Tensor whole = apply_augment(x, d);
  for (int64_t rank = 0; rank < 3; ++rank)
    EXPECT_TRUE(torch::equal(apply_augment(x.slice(0, 4 * rank, 4 * rank + 4), d.rows(4 * rank, 4 * rank + 4)),
                             whole.slice(0, 4 * rank, 4 * rank + 4)));
  EXPECT_THROW(d.rows(8, 13), Error);
  EXPECT_THROW(apply_augment(x.slice(0, 0, 4), d), Error);  // draws for 12 images
  EXPECT_THROW(apply_augment(images(12, 3, 16, 8, 4), d), Error);
}

TEST(Augment, ForwardAndBackwardReadNothingFromTheDevice) {
  const torch::Tensor x = images(8, 3, 16, 16, 6).requires_grad_(true);
  auto g = seeded(8);
  const AugmentDraws d = draw_augment(parse_augment_policy(kDefaultAugmentPolicy), 8, 16, 16, 0.5, g);
  OpCounter counter(1);
  apply_augment(x, d).square().sum().backward();
  counter.lap(0);
  EXPECT_GT(counter.total().kernels, 10);
  EXPECT_EQ(counter.total().syncs, 0);
}

// One case for the reference: fixed images, planted draws (edge rows overwritten),
// HamGAN's output and its gradient of sum(y * w).
void add_case(NpzArrays& arrays, int64_t& k, const std::string& policy_text, int64_t c, int64_t h, int64_t w,
              double p, torch::ScalarType dtype = torch::kDouble) {
  const int64_t n = 6;
  const AugmentPolicy policy = parse_augment_policy(policy_text);
  auto g = seeded(100 + k);
  AugmentDraws d = draw_augment(policy, n, h, w, p, g);
  if (d.shift.defined()) {  // the largest shifts each way
    d.shift[0] = torch::tensor({max_translation(h), -max_translation(w)});
    d.shift[1] = torch::tensor({-max_translation(h), max_translation(w)});
  }
  if (d.cutout_offset.defined()) {  // squares clipped at each corner
    d.cutout_offset[0] = torch::tensor({int64_t{0}, int64_t{0}});
    d.cutout_offset[1] = torch::tensor({h - cutout_side(h) % 2, w - cutout_side(w) % 2});
  }
  const torch::Tensor x = images(n, c, h, w, 200 + k, dtype).requires_grad_(true);
  const torch::Tensor weight = images(n, c, h, w, 300 + k, dtype);
  const torch::Tensor y = apply_augment(x, d);
  (y * weight).sum().backward();
  const std::string key = std::to_string(k++) + "_";
  std::vector<int64_t> codes;
  for (AugmentOp op : policy) codes.push_back(static_cast<int64_t>(op));
  arrays[key + "policy"] = torch::tensor(codes);
  arrays[key + "x"] = x.detach();
  arrays[key + "w"] = weight;
  arrays[key + "y"] = y.detach().contiguous();
  arrays[key + "grad"] = x.grad();
  const std::pair<const char*, torch::Tensor> draws[] = {{"brightness", d.brightness}, {"saturation", d.saturation},
                                                         {"contrast", d.contrast},     {"shift", d.shift},
                                                         {"cutout_offset", d.cutout_offset}, {"apply", d.apply}};
  for (const auto& [name, t] : draws)
    if (t.defined()) arrays[key + name] = t.contiguous();
}

TEST(Augment, OutputsAndGradientsMatchTheReferenceOfTheDefinitions) {
  if (test::run_command(HAMGAN_PYTHON " -c 'import numpy, torch'") != 0) REFERENCE_MISSING("numpy or torch missing");
  NpzArrays arrays;
  int64_t k = 0;
  for (int64_t c : {1, 3}) {
    for (const char* policy : {"color", "translation", "cutout", "color,translation,cutout"})
      add_case(arrays, k, policy, c, 12, 10, 1);  // p = 1: plain DiffAugment
    add_case(arrays, k, "color,translation,cutout", c, 12, 10, 0.5);
    add_case(arrays, k, "cutout,color", c, 12, 10, 0.5);
    add_case(arrays, k, "color,translation,cutout", c, 12, 10, 1, torch::kFloat);  // what training runs in
  }
  add_case(arrays, k, "color,translation,cutout", 3, 32, 32, 1);
  arrays["cases"] = torch::tensor({k});
  const std::string dir = test::temp_dir("augment_reference");
  write_npz(dir + "/augment.npz", arrays, false);
  std::string out;
  const int rc = test::run_command(HAMGAN_PYTHON " " + test::python_script("diffaugment_reference.py") + " " + dir, &out);
  EXPECT_EQ(rc, 0) << out;
}

}  // namespace
}  // namespace hamgan
