#pragma once
// LeCam regularisation (Tseng et al. 2021, "Regularizing Generative Adversarial
// Networks under Limited Data"): weight · (E(D(x) − α_fake)² + E(D(G(z)) − α_real)²),
// α the EMAs of D's mean logits on reals and fakes. The anchors are rank-local state
// moved with every rank's mean (summed through GradSync), so they agree everywhere.
#include "gan/step/objective_term.h"

namespace hamgan {

class LecamTerm final : public ObjectiveTerm {
 public:
  LecamTerm(double weight, double decay, torch::Device device) : weight_(weight), decay_(decay), device_(device) {}
  // (2) float32: the real and fake anchors; undefined before the first D update.
  const torch::Tensor& anchors() const { return anchors_; }
  // The update with one D update's mean logits (device scalars, no host read).
  void update_anchors(const torch::Tensor& real_mean, const torch::Tensor& fake_mean);

  void add_d_loss(const DTermInput& in, LossSum& loss) override;
  void observe_d(const torch::Tensor& on_real, const torch::Tensor& on_fake, int64_t m, int64_t k, GradSync& sync,
                 int64_t world_size) override;
  torch::Tensor state_row() const override;  // float64 (3): anchors, whether they are set
  void load_state_row(const torch::Tensor& row) override;

 private:
  double weight_, decay_;
  torch::Device device_;
  torch::Tensor anchors_;
  torch::Tensor logit_sums_;  // (2) the update's real and fake logit sums so far
};

}  // namespace hamgan
