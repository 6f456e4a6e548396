#include "gan/train/losses.h"

#include "core/errors.h"

namespace hamgan {

LossType parse_loss_type(const std::string& s) {
  if (s == "hinge") return LossType::kHinge;
  if (s == "ns" || s == "non-saturating") return LossType::kNonSaturating;
  throw ConfigError("loss: unknown value '" + s + "'; use hinge or ns");
}

std::string to_string(LossType t) { return t == LossType::kHinge ? "hinge" : "ns"; }

torch::Tensor discriminator_loss(LossType type, const torch::Tensor& real_logits, const torch::Tensor& fake_logits) {
  if (type == LossType::kHinge)
    return torch::relu(1.0 - real_logits).mean() + torch::relu(1.0 + fake_logits).mean();
  // -log sigmoid(r) = softplus(-r); -log(1 - sigmoid(f)) = softplus(f)
  return torch::nn::functional::softplus(-real_logits).mean() + torch::nn::functional::softplus(fake_logits).mean();
}

torch::Tensor generator_loss(LossType type, const torch::Tensor& fake_logits) {
  if (type == LossType::kHinge) return -fake_logits.mean();
  return torch::nn::functional::softplus(-fake_logits).mean();
}

}  // namespace hamgan
