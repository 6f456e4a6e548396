#pragma once
// Zero-centred gradient penalties on D's inputs, R1 on reals and R2 on fakes
// (gan/step/penalties.h has the maths and sources), on every reg_every-th D update
// scaled by reg_every (StyleGAN2's lazy regularisation).
#include "gan/step/objective_term.h"

namespace hamgan {

class PenaltyTerm final : public ObjectiveTerm {
 public:
  PenaltyTerm(double r1_gamma, double r2_gamma, int64_t reg_every)
      : r1_gamma_(r1_gamma), r2_gamma_(r2_gamma), reg_every_(reg_every) {}
  void begin_d_update(int64_t d_update) override { due_ = d_update % reg_every_ == 0; }
  bool needs_input_grad(bool real) const override { return due_ && (real ? r1_gamma_ : r2_gamma_) > 0; }
  void add_d_loss(const DTermInput& in, LossSum& loss) override;

 private:
  double r1_gamma_, r2_gamma_;
  int64_t reg_every_;
  bool due_ = false;
};

}  // namespace hamgan
