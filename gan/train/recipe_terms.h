#pragma once
// The recipe's parts of one D or G update (docs/recipe.md), kept out of the step
// functions' flow: augmentation of every image D sees (real and fake, in D's and
// G's updates, differentiably), inputs that carry gradients for R1/R2, the
// penalties and LeCam term added to D's loss, and what follows each D update (the
// LeCam anchors, ADA's statistics). All on the device; the only host reads are
// ADA's, once per adjustment interval.
#include <torch/torch.h>

#include "gan/train/augment.h"
#include "gan/train/grad_sync.h"
#include "gan/train/recipe_config.h"
#include "gan/train/train_state.h"

namespace hamgan {

// Where a rank's images sit in the global batch (StepConfig's noise_slice of noise_slices) and
// what augments them: the augmentation draws follow z's slicing.
struct RecipeSlice {
  const RecipeConfig& recipe;
  const AugmentPolicy& policy;
  int64_t slice = 0, slices = 1;
};

// One D update's recipe terms; the update's images are split into micro-batches
// (m of k) the same way as the step splits its real and fake images.
class DRecipeTerms {
 public:
  // `d_update`: D updates before this one over the run (the lazy-penalty schedule);
  // `n`: this rank's images per update. Augmentation parameters for n reals and n
  // fakes are drawn here, after the update's z and labels, from the noise stream.
  DRecipeTerms(TrainState& state, const RecipeSlice& cfg, int64_t d_update, int64_t n);
  // Whether D's forward must allow a second backward pass (the penalties are due).
  bool penalties_due() const { return penalties_due_; }
  // D's input for micro-batch m: reals ‖ fakes, with gradients kept where a penalty needs them, augmented.
  torch::Tensor d_input(const torch::Tensor& real, const torch::Tensor& fake, int64_t m, int64_t k);
  // LeCam and the penalties for the logits of the last d_input (float32, mean over the micro-batch);
  // undefined when no term is on or due, so the paper's recipe runs no extra kernel.
  torch::Tensor extra_loss(const torch::Tensor& on_real, const torch::Tensor& on_fake);
  // After the micro-batch: ADA sees its real logits; after the last, LeCam's anchors move with
  // the update's mean logits over every rank (summed through `sync` without a host wait), so
  // the anchors, like the weights, are the same on every rank and as in one process.
  void observe(const torch::Tensor& on_real, const torch::Tensor& on_fake, int64_t m, int64_t k, GradSync& sync,
               int64_t world_size);
  // After the update's optimiser step: ADA ends its update (`global_images`: every rank's reals).
  void end_update(GradSync& sync, int64_t global_images);

 private:
  TrainState& state_;
  const RecipeConfig& recipe_;
  bool augment_, penalties_due_;
  AugmentDraws real_draws_, fake_draws_;
  torch::Tensor real_in_, fake_in_;           // the last d_input's leaves (with gradients when penalised)
  torch::Tensor logit_sums_;                  // (2) the update's real and fake logit sums, for LeCam's anchors
};

// G's update: G(z) augmented (fresh draws after z and labels), and with `paired` (rpgan)
// the paired reals (the last D update's) augmented too.
class GRecipeTerms {
 public:
  GRecipeTerms(TrainState& state, const RecipeSlice& cfg, bool paired, int64_t n);
  torch::Tensor augment_fake(const torch::Tensor& fake, int64_t m, int64_t k) const;
  torch::Tensor augment_real(const torch::Tensor& real, int64_t m, int64_t k) const;

 private:
  bool augment_;
  AugmentDraws fake_draws_, real_draws_;
};

}  // namespace hamgan
