#include "gan/step/penalty_term.h"

#include "gan/step/penalties.h"

namespace hamgan {

void PenaltyTerm::add_d_loss(const DTermInput& in, LossSum& loss) {
  if (!due_) return;
  std::vector<torch::Tensor> inputs;
  std::vector<double> gammas;
  for (const auto& [input, gamma] : {std::pair{&in.real_in, r1_gamma_}, std::pair{&in.fake_in, r2_gamma_}})
    if (gamma > 0) {
      inputs.push_back(*input);
      gammas.push_back(gamma);
    }
  // One gradient of the summed logits gives every image's own input gradient (D is per-image).
  const std::vector<torch::Tensor> norms = input_gradient_sq_norms(torch::cat({in.on_real, in.on_fake}), inputs);
  const double scale = 0.5 * static_cast<double>(reg_every_);  // lazy: γ/2 times the interval
  for (size_t i = 0; i < norms.size(); ++i) loss.add(gammas[i] * scale * norms[i].mean());
}

}  // namespace hamgan
