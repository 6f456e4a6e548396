#pragma once
// The objective of one training update, one object the step functions call as
// EDM2's training loop calls its loss: the adversarial loss (hinge | ns | rpgan) and
// the recipe (docs/recipe.md): augmentation of every image D sees (DiffAugment or
// ADA, drawn here from the run's noise stream), the terms of objective_terms() and
// the state they keep. The step functions run the micro-batches, gradients and
// optimisers and never know which terms are on; everything stays on the device
// (the only host reads are ADA's, once per adjustment interval).
#include <torch/torch.h>

#include <memory>
#include <vector>

#include "gan/model/discriminator.h"
#include "gan/model/generator.h"
#include "gan/step/ada.h"
#include "gan/step/augment.h"
#include "gan/step/losses.h"
#include "gan/step/objective_term.h"
#include "gan/step/precision.h"

namespace hamgan {

class CheckpointReader;
class CheckpointWriter;
class Communicator;

struct ObjectiveConfig {
  LossType loss = LossType::kHinge;
  RecipeConfig recipe;  // all off by default: the paper's recipe
};

// Where a rank's images sit in the global batch: slice `index` of `count` under global noise
// streams (z, labels and augmentation draws are drawn for all and sliced alike).
struct BatchSlice {
  int64_t index = 0, count = 1;
};

// One D micro-batch: the loss to backpropagate and D's float32 logits on reals and fakes.
struct DLoss {
  torch::Tensor loss, on_real, on_fake;
};

class Objective {
 public:
  // `resolution`: the side of the images augmented.
  Objective(const ObjectiveConfig& cfg, int64_t resolution, torch::Device device);
  ~Objective();
  Objective(Objective&&) noexcept;
  Objective& operator=(Objective&&) noexcept;

  // D update `d_update` (counted from 0 over the run) on this rank's n reals: draws the
  // augmentation of n reals and n fakes from `noise`, after the update's z and labels.
  void begin_d_update(int64_t d_update, const torch::Tensor& real, const torch::Tensor& real_labels,
                      at::Generator& noise, const BatchSlice& slice);
  // Micro-batch m of k: G(z) without gradients, one D call on reals ‖ fakes (one spectral-norm
  // power iteration per D forward), the loss with every term in float32.
  DLoss d_loss(Generator& g, Discriminator& d, const torch::Tensor& real, const torch::Tensor& real_labels,
               const torch::Tensor& z, const torch::Tensor& fake_labels, int64_t m, int64_t k,
               const Precision& precision, GradSync& sync, int64_t world_size);
  // After the update's optimiser step; `global_images`: every rank's reals of the update.
  void end_d_update(GradSync& sync, int64_t global_images);

  // G's update of n images: draws their augmentation (and the paired reals' for rpgan).
  void begin_g_update(int64_t n, at::Generator& noise, const BatchSlice& slice);
  // Micro-batch m of k: G's loss through D (rpgan: paired with the last D update's reals).
  torch::Tensor g_loss(Generator& g, Discriminator& d, const torch::Tensor& z, const torch::Tensor& labels,
                       int64_t m, int64_t k, const Precision& precision);

  LossType loss() const { return cfg_.loss; }
  AdaController* ada() { return ada_.get(); }
  ObjectiveTerm* term(const std::string& name);  // null when off
  double augment_p() const;  // 1 for DiffAugment, the controller's for ADA, 0 without
  void log(LogRow& row) const;  // ADA's p and r_t, and what the terms report

  // Rank-local state by name, "objective/<name>" (and "objective/<name>/ranks" after gather
  // in a job of several ranks); files written before read as before (objective_state.cpp).
  void gather(Communicator& comm);  // before a checkpoint, on every rank (a collective)
  void save(CheckpointWriter& w) const;
  // A file of another world size restores the saving rank 0's rows on every rank.
  void load(CheckpointReader& r, int64_t rank, int64_t world_size);

 private:
  AugmentDraws rank_draws(int64_t n, at::Generator& noise, const BatchSlice& slice) const;
  torch::Tensor augmented(const torch::Tensor& images, const AugmentDraws& draws, int64_t m) const;
  torch::Tensor ada_row() const;
  void load_ada_row(const torch::Tensor& row);

  ObjectiveConfig cfg_;
  int64_t resolution_;
  torch::Device device_;
  bool augment_;
  AugmentPolicy policy_;
  std::unique_ptr<AdaController> ada_;
  std::vector<std::pair<std::string, std::unique_ptr<ObjectiveTerm>>> terms_;
  // The update in flight: its draws, D's last inputs, and (rpgan) the reals G pairs with,
  // which are not saved: a G update always follows a D update in the same process.
  AugmentDraws real_draws_, fake_draws_;
  torch::Tensor last_real_, last_real_labels_;
  std::vector<std::pair<std::string, torch::Tensor>> rank_rows_;  // after gather: (world, width) per name
};

}  // namespace hamgan
