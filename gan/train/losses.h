#pragma once
// Adversarial losses (docs/training.md, "Reference recipes"). Logits are D's raw outputs, shape (N).
#include <torch/torch.h>

#include <string>

#include "core/enum_names.h"

namespace hamgan {

enum class LossType {
  kHinge,          // D: mean(relu(1 - D(x))) + mean(relu(1 + D(G(z)))); G: -mean(D(G(z)))  (TF-GAN/SAGAN)
  kNonSaturating,  // D: mean(softplus(-D(x))) + mean(softplus(D(G(z)))); G: mean(softplus(-D(G(z))))
};

// "hinge" | "ns" ("non-saturating" is read too); the train key `loss` takes these names.
const EnumNames<LossType>& loss_type_names();
LossType parse_loss_type(const std::string& s);  // other values throw ConfigError listing the names
std::string to_string(LossType t);

torch::Tensor discriminator_loss(LossType type, const torch::Tensor& real_logits, const torch::Tensor& fake_logits);
torch::Tensor generator_loss(LossType type, const torch::Tensor& fake_logits);

}  // namespace hamgan
