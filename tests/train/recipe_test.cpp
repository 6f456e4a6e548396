// The recipe beyond SAGAN's (docs/recipe.md) inside the training step: the
// relativistic pairing loss and LeCam's term against their formulas, the fixed
// data fraction, and bit-exact resume with every term on (ADA's p, LeCam's
// anchors and the lazy-penalty schedule all carried by the checkpoint).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <set>

#include "core/errors.h"
#include "data/dataset.h"
#include "data/subset_dataset.h"
#include "gan/step/lecam_term.h"
#include "gan/step/losses.h"
#include "gan/step/steps.h"
#include "gan/train/step_settings.h"
#include "gan/train/trainer.h"
#include "tests/common/data_parallel_test_util.h"

namespace hamgan {
namespace {

double softplus(double x) { return std::log1p(std::exp(x)); }

TEST(RecipeLosses, RelativisticPairingFollowsItsFormulaPairByPair) {
  const torch::Tensor real = torch::tensor({0.5f, -1.0f, 2.0f}), fake = torch::tensor({0.25f, 1.5f, -0.5f});
  double d = 0, g = 0;
  for (int i = 0; i < 3; ++i) {
    const double r = real[i].item<double>(), f = fake[i].item<double>();
    d += softplus(f - r) / 3;  // D: real i should score above fake i
    g += softplus(r - f) / 3;
  }
  EXPECT_NEAR(discriminator_loss(LossType::kRelativisticPairing, real, fake).item<double>(), d, 1e-6);
  EXPECT_NEAR(generator_loss(LossType::kRelativisticPairing, fake, real).item<double>(), g, 1e-6);
  EXPECT_TRUE(generator_loss_uses_reals(LossType::kRelativisticPairing));
  EXPECT_FALSE(generator_loss_uses_reals(LossType::kHinge));
  EXPECT_EQ(parse_loss_type("rpgan"), LossType::kRelativisticPairing);
  // Pairing matters: permuting the fakes changes the loss (a mean of differences would not).
  const torch::Tensor permuted = fake.index({torch::tensor({2, 0, 1})});
  EXPECT_GT(std::abs(discriminator_loss(LossType::kRelativisticPairing, real, permuted).item<double>() - d), 1e-3);
}

TEST(DatasetFraction, AFixedClassBalancedSubsetWhateverTheSeed) {
  DatasetSpec spec;
  auto full = open_dataset(spec);
  const auto tenth = dataset_fraction(full, 0.1);
  ASSERT_EQ(tenth->size(), full->size() / 10);
  std::vector<int64_t> per_class(static_cast<size_t>(full->num_classes()), 0);
  for (int64_t i = 0; i < tenth->size(); ++i) ++per_class[static_cast<size_t>(tenth->label(i))];
  for (int64_t c = 0; c < full->num_classes(); ++c) EXPECT_EQ(per_class[static_cast<size_t>(c)], 600) << c;
  // The same images on every call, and each one is an image of the full set with its label.
  const auto again = dataset_fraction(full, 0.1);
  for (int64_t i : {int64_t{0}, int64_t{1234}, tenth->size() - 1}) {
    EXPECT_TRUE(torch::equal(tenth->get(i).image, again->get(i).image));
    EXPECT_EQ(tenth->get(i).label, again->get(i).label);
  }
  EXPECT_EQ(dataset_fraction(full, 1.0), full);
  EXPECT_THROW(dataset_fraction(full, 0.0), ConfigError);
  EXPECT_THROW(dataset_fraction(full, 1.5), ConfigError);
  // A tiny fraction keeps every class.
  const auto tiny = dataset_fraction(full, 1e-6);
  std::set<int64_t> classes;
  for (int64_t i = 0; i < tiny->size(); ++i) classes.insert(tiny->label(i));
  EXPECT_EQ(classes.size(), static_cast<size_t>(full->num_classes()));
}

LecamTerm& lecam(StepState& state) {
  auto* term = dynamic_cast<LecamTerm*>(state.objective.term("lecam"));
  if (term == nullptr) throw Error("the objective has no LeCam term");
  return *term;
}

TrainConfig every_term(const std::string& dir) {
  TrainConfig c = test::tiny_config(dir);
  c.dataset_fraction = 0.01;
  c.loss = LossType::kRelativisticPairing;
  c.recipe.r1_gamma = 1;
  c.recipe.r2_gamma = 0.5;
  c.recipe.reg_every = 2;
  c.recipe.augment = AugmentMode::kDiffAug;  // p = 1: every draw matters
  c.recipe.lecam_weight = 0.3;
  c.log_every = 1;
  return c;
}

TEST(RecipeTraining, EveryTermOnResumesBitExact) {
  const std::string straight = test::temp_dir("recipe_straight"), split = test::temp_dir("recipe_split");
  TrainConfig a = every_term(straight);
  a.steps = 5;
  const TrainResult ra = train(a);
  TrainConfig b = every_term(split);
  b.steps = 2;
  train(b);
  b.steps = 5;
  b.resume = ResumeMode::kYes;
  const TrainResult rb = train(b);
  ASSERT_EQ(ra.step, 5);
  ASSERT_EQ(rb.step, 5);
  TrainState sa(a, torch::kCPU), sb(b, torch::kCPU);
  sa.load(ra.checkpoint);
  sb.load(rb.checkpoint);
  ASSERT_TRUE(lecam(sa).anchors().defined());
  EXPECT_TRUE(torch::equal(lecam(sa).anchors(), lecam(sb).anchors()));
  const auto pa = sa.d->parameters(), pb = sb.d->parameters();
  for (size_t i = 0; i < pa.size(); ++i) EXPECT_TRUE(torch::equal(pa[i], pb[i])) << "D parameter " << i;
  const auto ga = sa.g->parameters(), gb = sb.g->parameters();
  for (size_t i = 0; i < ga.size(); ++i) EXPECT_TRUE(torch::equal(ga[i], gb[i])) << "G parameter " << i;
  // The terms did act: the same run without them ends elsewhere.
  TrainConfig plain = test::tiny_config(test::temp_dir("recipe_plain"));
  plain.dataset_fraction = 0.01;
  plain.steps = 5;
  TrainState sp(plain, torch::kCPU);
  sp.load(train(plain).checkpoint);
  EXPECT_FALSE(torch::equal(sp.d->parameters()[0], pa[0]));
}

// accumulate = k gives one batch's D gradient with every term on (as Accumulate.* shows
// without them): the penalties are per image, the augmentation is drawn once per update,
// LeCam's term is a mean. G and D in eval mode: BN and the power iteration hold still.
std::vector<torch::Tensor> d_gradients_with_every_term(int64_t accumulate) {
  TrainConfig c = every_term(test::temp_dir("recipe_accumulate"));
  test::use_sa_blocks(c.model);
  c.batch_size = 8;
  seed_initial_weights(c.seed);
  TrainState state(c, torch::kCPU);
  state.g->eval();
  state.d->eval();
  lecam(state).update_anchors(torch::tensor(0.3f), torch::tensor(-0.2f));
  torch::manual_seed(7);
  const Batch batch{torch::randint(0, 256, {8, 1, 32, 32}, torch::kUInt8), torch::randint(0, 10, {8}, torch::kLong),
                    torch::zeros({8}, torch::kBool)};
  StepConfig s = step_config(c, c.batch_size, Precision{});
  s.accumulate = accumulate;
  NoSync sync;
  StepStats stats;
  d_step(state, [&] { return batch; }, s, sync, stats);
  std::vector<torch::Tensor> out;
  for (const auto& p : state.d->parameters()) out.push_back(p.grad().reshape(-1).to(torch::kDouble));
  return out;
}

TEST(RecipeComposition, TwoMicroBatchesGiveOneBatchsDiscriminatorGradientWithEveryTerm) {
  const torch::Tensor one = torch::cat(d_gradients_with_every_term(1)), two = torch::cat(d_gradients_with_every_term(2));
  const double err = (two - one).norm().item<double>() / one.norm().item<double>();
  std::printf("D with every term: 2 x 4 vs 1 x 8, relative gradient difference %.3g\n", err);
  EXPECT_LE(err, 1e-5);
}

TEST(RecipeTraining, AdaAndLecamStateRoundTripsThroughACheckpoint) {
  TrainConfig c = test::tiny_config(test::temp_dir("recipe_state"));
  c.recipe.augment = AugmentMode::kAda;
  c.recipe.lecam_weight = 0.3;
  TrainState s(c, torch::kCPU);
  ASSERT_NE(s.objective.ada(), nullptr);
  s.objective.ada()->load_state(AdaState{0.37, torch::tensor({3.0f, 8.0f}), 2, 128});
  lecam(s).update_anchors(torch::tensor(0.75f), torch::tensor(-1.25f));
  lecam(s).update_anchors(torch::tensor(1.75f), torch::tensor(-0.25f));
  const std::string path = c.run_dir + "/ck.pt";
  s.save(path);
  TrainState r(c, torch::kCPU);
  EXPECT_EQ(r.objective.ada()->p(), 0.0);
  r.load(path);
  const AdaState a = r.objective.ada()->state();
  EXPECT_EQ(a.p, 0.37);
  EXPECT_EQ(a.updates, 2);
  EXPECT_EQ(a.images, 128);
  EXPECT_TRUE(torch::equal(a.sign_sums, torch::tensor({3.0f, 8.0f})));
  // The first update sets the anchors, the second moves them by 1 - decay: (0.76, -1.24).
  ASSERT_TRUE(lecam(r).anchors().defined());
  EXPECT_NEAR(lecam(r).anchors()[0].item<double>(), 0.99 * 0.75 + 0.01 * 1.75, 1e-6);
  EXPECT_NEAR(lecam(r).anchors()[1].item<double>(), 0.99 * -1.25 + 0.01 * -0.25, 1e-6);
}

}  // namespace
}  // namespace hamgan
