#include "gan/step/lecam_term.h"

namespace hamgan {

void LecamTerm::update_anchors(const torch::Tensor& real_mean, const torch::Tensor& fake_mean) {
  const torch::Tensor now = torch::stack({real_mean.detach(), fake_mean.detach()}).to(torch::kFloat);
  // The first update sets the anchors to the means (an EMA started at 0 would pull D's logits to 0).
  anchors_ = anchors_.defined() ? anchors_ * decay_ + now * (1 - decay_) : now.clone();
}

void LecamTerm::add_d_loss(const DTermInput& in, LossSum& loss) {
  if (!anchors_.defined()) return;
  // Reals pulled towards the fakes' anchor and fakes towards the reals'.
  loss.add(weight_ * ((in.on_real - anchors_[1]).pow(2).mean() + (in.on_fake - anchors_[0]).pow(2).mean()));
}

void LecamTerm::observe_d(const torch::Tensor& on_real, const torch::Tensor& on_fake, int64_t m, int64_t k,
                          GradSync& sync, int64_t world_size) {
  const torch::Tensor sums = torch::stack({on_real.detach().sum(), on_fake.detach().sum()});
  logit_sums_ = m == 0 ? sums : logit_sums_ + sums;
  if (m < k - 1) return;
  torch::Tensor means = logit_sums_ / static_cast<double>(on_real.size(0) * k * world_size);
  sync.sum_over_ranks(means, "summing the mean D logits for LeCam's anchors");
  update_anchors(means[0], means[1]);
}

torch::Tensor LecamTerm::state_row() const {
  torch::Tensor row = torch::zeros({3}, torch::kDouble);
  if (anchors_.defined()) {
    row.slice(0, 0, 2).copy_(anchors_.cpu());
    row[2] = 1;
  }
  return row;
}

void LecamTerm::load_state_row(const torch::Tensor& row) {
  const torch::Tensor r = row.to(torch::kDouble).cpu();
  anchors_ = r[2].item<double>() != 0 ? r.slice(0, 0, 2).to(device_, torch::kFloat) : torch::Tensor();
}

}  // namespace hamgan
