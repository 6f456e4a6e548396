#pragma once
// Adversarial losses (docs/training.md, "Reference recipes"). Logits are D's raw outputs, shape (N).
#include <torch/torch.h>

#include <string>

#include "core/enum_names.h"

namespace hamgan {

enum class LossType {
  kHinge,          // D: mean(relu(1 - D(x))) + mean(relu(1 + D(G(z)))); G: -mean(D(G(z)))  (TF-GAN/SAGAN)
  kNonSaturating,  // D: mean(softplus(-D(x))) + mean(softplus(D(G(z)))); G: mean(softplus(-D(G(z))))
  // The relativistic pairing loss (RpGAN; Jolicoeur-Martineau 2019, as R3GAN uses it, Huang et al. 2024):
  // real i is paired with fake i. D: mean(softplus(D(G(z)) - D(x))); G: mean(softplus(D(x) - D(G(z)))).
  kRelativisticPairing,
};

// "hinge" | "ns" ("non-saturating" is read too) | "rpgan"; the train key `loss` takes these names.
const EnumNames<LossType>& loss_type_names();
LossType parse_loss_type(const std::string& s);  // other values throw ConfigError listing the names
std::string to_string(LossType t);

torch::Tensor discriminator_loss(LossType type, const torch::Tensor& real_logits, const torch::Tensor& fake_logits);
// `real_logits`: D on the real images paired with the fakes; only rpgan uses them (undefined otherwise).
torch::Tensor generator_loss(LossType type, const torch::Tensor& fake_logits, const torch::Tensor& real_logits = {});
// Whether G's loss needs D's logits on real images (then the G step passes real images through D too).
bool generator_loss_uses_reals(LossType type);

}  // namespace hamgan
