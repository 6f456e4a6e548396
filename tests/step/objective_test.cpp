// The objective of one update, tested on a StepState built from a model config alone
// (no run config): its adversarial losses equal the formulas computed by hand, LeCam
// adds exactly its formula, the term table turns terms on and off by the recipe, and its
// state saves by name and still loads from files with the earlier packed row.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <set>
#include <string>

#include "core/errors.h"
#include "core/rng.h"
#include "gan/checkpoint/archive.h"
#include "gan/step/lecam_term.h"
#include "gan/step/objective.h"
#include "gan/step/step_state.h"
#include "tests/common/gan_test_util.h"
#include "tests/common/test_util.h"

namespace hamgan {
namespace {

// G and D in eval mode: BN and the power iteration hold still, so two forward passes agree.
StepState still_state(const ObjectiveConfig& objective) {
  torch::manual_seed(3);
  StepState s(test::small_config(32, "none"), torch::kCPU, AdamSettings{}, /*ema=*/false, objective,
              make_cpu_generator(11));
  s.g->eval();
  s.d->eval();
  return s;
}

struct Inputs {
  torch::Tensor real, real_labels, z, fake_labels;
};

Inputs inputs(const StepState& s, int64_t n) {
  torch::manual_seed(5);
  return {torch::rand({n, 3, 32, 32}) * 2 - 1, torch::randint(0, 5, {n}), torch::randn({n, s.model.z_dim}),
          torch::randint(0, 5, {n})};
}

TEST(Objective, HingeLossesEqualTheFormulas) {
  StepState s = still_state({});
  const Inputs in = inputs(s, 4);
  NoSync sync;
  s.objective.begin_d_update(0, in.real, in.real_labels, s.noise, {});
  const DLoss d = s.objective.d_loss(s.g, s.d, in.real, in.real_labels, in.z, in.fake_labels, 0, 1, Precision{}, sync, 1);
  torch::NoGradGuard no_grad;
  const torch::Tensor fake = s.g->forward(in.z, in.fake_labels);
  const torch::Tensor on_real = s.d->forward(in.real, in.real_labels), on_fake = s.d->forward(fake, in.fake_labels);
  const double hinge = torch::relu(1 - on_real).mean().item<double>() + torch::relu(1 + on_fake).mean().item<double>();
  EXPECT_NEAR(d.loss.item<double>(), hinge, 1e-5);
  EXPECT_TRUE(torch::allclose(d.on_real, on_real.to(torch::kFloat), 1e-5, 1e-6));
  s.objective.begin_g_update(4, s.noise, {});
  const torch::Tensor g = s.objective.g_loss(s.g, s.d, in.z, in.fake_labels, 0, 1, Precision{});
  EXPECT_NEAR(g.item<double>(), -on_fake.mean().item<double>(), 1e-5);
}

TEST(Objective, LecamAddsItsFormulaToDsLoss) {
  ObjectiveConfig with;
  with.recipe.lecam_weight = 0.3;
  StepState plain = still_state({}), s = still_state(with);
  auto* lecam = dynamic_cast<LecamTerm*>(s.objective.term("lecam"));
  ASSERT_NE(lecam, nullptr);
  lecam->update_anchors(torch::tensor(0.25f), torch::tensor(-0.5f));
  const Inputs in = inputs(s, 4);
  NoSync sync;
  s.objective.begin_d_update(0, in.real, in.real_labels, s.noise, {});
  plain.objective.begin_d_update(0, in.real, in.real_labels, plain.noise, {});
  const DLoss a = plain.objective.d_loss(plain.g, plain.d, in.real, in.real_labels, in.z, in.fake_labels, 0, 1,
                                         Precision{}, sync, 1);
  const DLoss b = s.objective.d_loss(s.g, s.d, in.real, in.real_labels, in.z, in.fake_labels, 0, 1, Precision{}, sync, 1);
  // Reals pulled towards the fake anchor (-0.5), fakes towards the real anchor (0.25).
  const double term = 0.3 * ((a.on_real + 0.5).pow(2).mean().item<double>() + (a.on_fake - 0.25).pow(2).mean().item<double>());
  EXPECT_NEAR(b.loss.item<double>() - a.loss.item<double>(), term, 1e-5);
}

TEST(Objective, TheRecipeTurnsEachTermOnAndOff) {
  std::set<std::string> names;
  for (const ObjectiveTermRow& row : objective_terms()) EXPECT_TRUE(names.insert(row.name).second) << row.name;
  ObjectiveConfig cfg;
  Objective off(cfg, 32, torch::kCPU);
  for (const std::string& name : names) EXPECT_EQ(off.term(name), nullptr) << name;
  cfg.recipe.lecam_weight = 0.1;
  cfg.recipe.r1_gamma = 1;
  Objective on(cfg, 32, torch::kCPU);
  EXPECT_NE(on.term("lecam"), nullptr);
  EXPECT_NE(on.term("penalties"), nullptr);
}

ObjectiveConfig stateful() {
  ObjectiveConfig cfg;
  cfg.recipe.augment = AugmentMode::kAda;
  cfg.recipe.lecam_weight = 0.3;
  return cfg;
}

void expect_state(Objective& o, float real_anchor, float fake_anchor, double p) {
  auto* lecam = dynamic_cast<LecamTerm*>(o.term("lecam"));
  ASSERT_TRUE(lecam->anchors().defined());
  EXPECT_TRUE(torch::equal(lecam->anchors(), torch::tensor({real_anchor, fake_anchor})));
  EXPECT_EQ(o.ada()->state().p, p);
  EXPECT_TRUE(torch::equal(o.ada()->state().sign_sums, torch::tensor({3.0f, 8.0f})));
  EXPECT_EQ(o.ada()->state().updates, 2);
  EXPECT_EQ(o.ada()->state().images, 128);
}

TEST(Objective, StateSavesByNameAndLoads) {
  Objective o(stateful(), 32, torch::kCPU);
  o.ada()->load_state(AdaState{0.37, torch::tensor({3.0f, 8.0f}), 2, 128});
  dynamic_cast<LecamTerm*>(o.term("lecam"))->update_anchors(torch::tensor(0.75f), torch::tensor(-1.25f));
  const std::string path = test::scratch_dir("step", "objective_state") + "/named.pt";
  CheckpointWriter w;
  o.save(w);
  w.save(path);
  CheckpointReader r(path);
  EXPECT_TRUE(r.has("objective_lecam"));
  EXPECT_TRUE(r.has("objective_ada"));
  EXPECT_FALSE(r.has("recipe_row"));
  Objective back(stateful(), 32, torch::kCPU);
  back.load(r, 0, 1);
  expect_state(back, 0.75f, -1.25f, 0.37);
}

// A file written before the state had names: one packed row (LeCam's anchors, whether they are
// set, ADA's two sums), every rank's rows, and ADA's p and counters under their old keys.
TEST(Objective, FilesWithThePackedRowStillLoad) {
  const std::string path = test::scratch_dir("step", "objective_state") + "/packed.pt";
  CheckpointWriter w(kOldestCheckpointFormatVersion);
  w.put("recipe_row", torch::tensor({9.0, 9.0, 1.0, 9.0, 9.0}, torch::kDouble));
  w.put("rank_recipe_rows", torch::tensor({{9.0, 9.0, 1.0, 9.0, 9.0}, {0.5, -1.5, 1.0, 3.0, 8.0}}, torch::kDouble));
  w.put("ada_p", 0.25);
  w.put("ada_updates", int64_t{2});
  w.put("ada_images", int64_t{128});
  w.save(path);
  CheckpointReader r(path);
  Objective rank1(stateful(), 32, torch::kCPU);
  rank1.load(r, 1, 2);  // rank 1 of the same world size takes its own row
  expect_state(rank1, 0.5f, -1.5f, 0.25);
}

// A row of the wrong width (a damaged or forged file) is refused in one line naming the file and the
// key, before any of it is read into the state.
TEST(Objective, ARowOfTheWrongWidthIsRefusedNamingItsKey) {
  const std::string path = test::scratch_dir("step", "objective_state") + "/narrow.pt";
  CheckpointWriter w;
  w.put("objective_lecam", torch::tensor({0.5, -1.5}, torch::kDouble));  // three numbers expected
  w.save(path);
  CheckpointReader r(path);
  Objective o(stateful(), 32, torch::kCPU);
  try {
    o.load(r, 0, 1);
    FAIL() << "a narrow row must be refused";
  } catch (const CheckpointError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path + ": objective_lecam is not a row of 3 numbers"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  EXPECT_FALSE(dynamic_cast<LecamTerm*>(o.term("lecam"))->anchors().defined());
}

}  // namespace
}  // namespace hamgan
