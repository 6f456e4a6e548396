#pragma once
// The training terms beyond SAGAN's recipe (docs/recipe.md), each off by default
// so the paper's recipe is unchanged: zero-centred gradient penalties with a lazy
// interval, DiffAugment or ADA augmentation, and LeCam regularisation. The loss
// itself (hinge | ns | rpgan) is the train key `loss`.
#include <cstdint>
#include <string>

#include "core/config_fields.h"
#include "gan/step/ada.h"
#include "gan/step/augment.h"

namespace hamgan {

struct RecipeConfig {
  // Zero-centred penalties on D's input gradients: R1 on reals (Mescheder et al. 2018), R2 on fakes
  // (R3GAN, Huang et al. 2024); loss += gamma/2 · E||∇x D(x)||², every `reg_every` D updates scaled by
  // reg_every (lazy regularisation, StyleGAN2: Karras et al. 2020).
  double r1_gamma = 0, r2_gamma = 0;
  int64_t reg_every = 1;
  AugmentMode augment = AugmentMode::kNone;
  std::string augment_policy = kDefaultAugmentPolicy;
  double ada_target = kAdaTarget;
  double ada_kimg = kAdaKimg;
  int64_t ada_interval = kAdaInterval;
  // LeCam (Tseng et al. 2021): weight · (E(D(x) − α_fake)² + E(D(G(z)) − α_real)²), α EMAs of the mean logits.
  double lecam_weight = 0;
  double lecam_decay = 0.99;

  bool penalised() const { return r1_gamma > 0 || r2_gamma > 0; }
  // Whether D update `d_update` (counted from 0 over the run) carries the penalties.
  bool penalty_due(int64_t d_update) const { return penalised() && d_update % reg_every == 0; }
  AdaSettings ada_settings() const { return {ada_target, ada_interval, ada_kimg}; }
};

// The rows of these keys (appended to the train keys).
const FieldTable<RecipeConfig>& recipe_config_fields();

}  // namespace hamgan
