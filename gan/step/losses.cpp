#include "gan/step/losses.h"

namespace hamgan {

const EnumNames<LossType>& loss_type_names() {
  static const EnumNames<LossType> names(
      "loss", {{LossType::kHinge, "hinge"}, {LossType::kNonSaturating, "ns"}, {LossType::kNonSaturating, "non-saturating", true},
                {LossType::kRelativisticPairing, "rpgan"}});
  return names;
}

LossType parse_loss_type(const std::string& s) { return loss_type_names().parse(s); }

std::string to_string(LossType t) { return loss_type_names().name(t); }

torch::Tensor discriminator_loss(LossType type, const torch::Tensor& real_logits, const torch::Tensor& fake_logits) {
  if (type == LossType::kHinge)
    return torch::relu(1.0 - real_logits).mean() + torch::relu(1.0 + fake_logits).mean();
  if (type == LossType::kRelativisticPairing) return torch::nn::functional::softplus(fake_logits - real_logits).mean();
  // -log sigmoid(r) = softplus(-r); -log(1 - sigmoid(f)) = softplus(f)
  return torch::nn::functional::softplus(-real_logits).mean() + torch::nn::functional::softplus(fake_logits).mean();
}

bool generator_loss_uses_reals(LossType type) { return type == LossType::kRelativisticPairing; }

torch::Tensor generator_loss(LossType type, const torch::Tensor& fake_logits, const torch::Tensor& real_logits) {
  if (type == LossType::kHinge) return -fake_logits.mean();
  if (type == LossType::kRelativisticPairing) {
    TORCH_CHECK(real_logits.defined(), "rpgan: G's loss needs D's logits on the paired real images");
    return torch::nn::functional::softplus(real_logits - fake_logits).mean();
  }
  return torch::nn::functional::softplus(-fake_logits).mean();
}

}  // namespace hamgan
