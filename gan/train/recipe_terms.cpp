#include "gan/train/recipe_terms.h"

#include "gan/train/penalties.h"

namespace hamgan {
namespace {

// Draws for this rank's n images: n·slices drawn from the noise stream, this rank's slice kept
// (as draw_noise does), so that under global noise streams the run does not depend on the world size.
AugmentDraws rank_draws(TrainState& state, const RecipeSlice& cfg, int64_t n) {
  const int64_t side = state.model.resolution;
  const AugmentDraws all = draw_augment(cfg.policy, n * cfg.slices, side, side, state.recipe.augment_p(), state.noise);
  const int64_t from = n * cfg.slice;
  return all.rows(from, from + n).to(state.device);
}

}  // namespace

DRecipeTerms::DRecipeTerms(TrainState& state, const RecipeSlice& cfg, int64_t d_update, int64_t n)
    : state_(state), recipe_(cfg.recipe), augment_(cfg.recipe.augment != AugmentMode::kNone),
      penalties_due_(cfg.recipe.penalty_due(d_update)) {
  if (augment_) {
    real_draws_ = rank_draws(state, cfg, n);
    fake_draws_ = rank_draws(state, cfg, n);
  }
}

torch::Tensor DRecipeTerms::d_input(const torch::Tensor& real, const torch::Tensor& fake, int64_t m, int64_t k) {
  real_in_ = penalties_due_ && recipe_.r1_gamma > 0 ? real.detach().requires_grad_(true) : real;
  fake_in_ = penalties_due_ && recipe_.r2_gamma > 0 ? fake.detach().requires_grad_(true) : fake;
  if (!augment_) return torch::cat({real_in_, fake_in_});
  const int64_t n = real.size(0);
  return torch::cat({apply_augment(real_in_, real_draws_.rows(m * n, (m + 1) * n)),
                     apply_augment(fake_in_, fake_draws_.rows(m * n, (m + 1) * n))});
}

torch::Tensor DRecipeTerms::extra_loss(const torch::Tensor& on_real, const torch::Tensor& on_fake) {
  torch::Tensor loss;
  const auto add = [&loss](const torch::Tensor& term) { loss = loss.defined() ? loss + term : term; };
  if (recipe_.lecam_weight > 0 && state_.recipe.lecam_anchors().defined()) {
    // Tseng et al. 2021: reals pulled towards the fakes' anchor and fakes towards the reals'.
    const torch::Tensor& a = state_.recipe.lecam_anchors();
    add(recipe_.lecam_weight * ((on_real - a[1]).pow(2).mean() + (on_fake - a[0]).pow(2).mean()));
  }
  if (penalties_due_) {
    std::vector<torch::Tensor> inputs;
    std::vector<double> gammas;
    for (const auto& [input, gamma] : {std::pair{real_in_, recipe_.r1_gamma}, std::pair{fake_in_, recipe_.r2_gamma}})
      if (gamma > 0) {
        inputs.push_back(input);
        gammas.push_back(gamma);
      }
    // One gradient of the summed logits gives every image's own input gradient (D is per-image).
    const std::vector<torch::Tensor> norms = input_gradient_sq_norms(torch::cat({on_real, on_fake}), inputs);
    const double scale = 0.5 * static_cast<double>(recipe_.reg_every);  // lazy: γ/2 times the interval
    for (size_t i = 0; i < norms.size(); ++i) add(gammas[i] * scale * norms[i].mean());
  }
  return loss;
}

void DRecipeTerms::observe(const torch::Tensor& on_real, const torch::Tensor& on_fake, int64_t m, int64_t k,
                           GradSync& sync, int64_t world_size) {
  if (AdaController* ada = state_.recipe.ada()) ada->observe(on_real.detach());
  if (recipe_.lecam_weight <= 0) return;
  const torch::Tensor sums = torch::stack({on_real.detach().sum(), on_fake.detach().sum()});
  logit_sums_ = m == 0 ? sums : logit_sums_ + sums;
  if (m < k - 1) return;
  torch::Tensor means = logit_sums_ / static_cast<double>(on_real.size(0) * k * world_size);
  sync.sum_over_ranks(means, "summing the mean D logits for LeCam's anchors");
  state_.recipe.update_lecam_anchors(means[0], means[1], recipe_.lecam_decay);
}

void DRecipeTerms::end_update(GradSync& sync, int64_t global_images) {
  if (AdaController* ada = state_.recipe.ada())
    ada->end_update(global_images, [&](torch::Tensor& sums) { sync.sum_over_ranks(sums, "summing ADA's sign(D(real))"); });
}

GRecipeTerms::GRecipeTerms(TrainState& state, const RecipeSlice& cfg, bool paired, int64_t n)
    : augment_(cfg.recipe.augment != AugmentMode::kNone) {
  if (!augment_) return;
  fake_draws_ = rank_draws(state, cfg, n);
  if (paired) real_draws_ = rank_draws(state, cfg, n);
}

torch::Tensor GRecipeTerms::augment_fake(const torch::Tensor& fake, int64_t m, int64_t k) const {
  if (!augment_) return fake;
  const int64_t n = fake.size(0);
  return apply_augment(fake, fake_draws_.rows(m * n, (m + 1) * n));
}

torch::Tensor GRecipeTerms::augment_real(const torch::Tensor& real, int64_t m, int64_t k) const {
  if (!augment_) return real;
  const int64_t n = real.size(0);
  return apply_augment(real, real_draws_.rows(m * n, (m + 1) * n));
}

}  // namespace hamgan
