#include "gan/step/objective.h"

#include <cmath>

#include "core/errors.h"
#include "gan/step/micro_batch.h"

namespace hamgan {

Objective::Objective(const ObjectiveConfig& cfg, int64_t resolution, torch::Device device)
    : cfg_(cfg), resolution_(resolution), device_(device), augment_(cfg.recipe.augment != AugmentMode::kNone),
      policy_(parse_augment_policy(cfg.recipe.augment_policy)) {
  if (cfg.recipe.augment == AugmentMode::kAda)
    ada_ = std::make_unique<AdaController>(cfg.recipe.ada_settings(), device);
  for (const ObjectiveTermRow& row : objective_terms())
    if (auto term = row.make(cfg.recipe, device)) terms_.emplace_back(row.name, std::move(term));
}

Objective::~Objective() = default;
Objective::Objective(Objective&&) noexcept = default;
Objective& Objective::operator=(Objective&&) noexcept = default;

ObjectiveTerm* Objective::term(const std::string& name) {
  for (auto& [n, t] : terms_)
    if (n == name) return t.get();
  return nullptr;
}

double Objective::augment_p() const {
  if (!augment_) return 0;
  return ada_ ? ada_->p() : 1.0;
}

void Objective::log(LogRow& row) const {
  if (ada_) {  // p and the heuristic it follows
    row.push_back({"ada_p", ada_->p()});
    if (!std::isnan(ada_->last_overfitting())) row.push_back({"ada_rt", ada_->last_overfitting()});
  }
  for (const auto& [name, t] : terms_) t->log(row);
}

// Draws for this rank's n images: n·count drawn from the noise stream and this rank's slice
// kept (as z is drawn), so that under global noise streams the run does not depend on the world size.
AugmentDraws Objective::rank_draws(int64_t n, at::Generator& noise, const BatchSlice& slice) const {
  const AugmentDraws all = draw_augment(policy_, n * slice.count, resolution_, resolution_, augment_p(), noise);
  const int64_t from = n * slice.index;
  return all.rows(from, from + n).to(device_);
}

torch::Tensor Objective::augmented(const torch::Tensor& images, const AugmentDraws& draws, int64_t m) const {
  if (!augment_) return images;
  const int64_t n = images.size(0);
  return apply_augment(images, draws.rows(m * n, (m + 1) * n));
}

void Objective::begin_d_update(int64_t d_update, const torch::Tensor& real, const torch::Tensor& real_labels,
                               at::Generator& noise, const BatchSlice& slice) {
  if (augment_) {
    real_draws_ = rank_draws(real.size(0), noise, slice);
    fake_draws_ = rank_draws(real.size(0), noise, slice);
  }
  for (auto& [name, t] : terms_) t->begin_d_update(d_update);
  if (generator_loss_uses_reals(cfg_.loss)) {  // G's next update pairs its images with these reals
    last_real_ = real;
    last_real_labels_ = real_labels;
  }
}

DLoss Objective::d_loss(Generator& g, Discriminator& d, const torch::Tensor& real, const torch::Tensor& real_labels,
                        const torch::Tensor& z, const torch::Tensor& fake_labels, int64_t m, int64_t k,
                        const Precision& precision, GradSync& sync, int64_t world_size) {
  torch::Tensor fake;
  {
    torch::NoGradGuard no_grad;
    PrecisionScope scope(precision);
    fake = g->forward(z, fake_labels);
  }
  bool real_grad = false, fake_grad = false;
  for (const auto& [name, t] : terms_) {
    real_grad = real_grad || t->needs_input_grad(true);
    fake_grad = fake_grad || t->needs_input_grad(false);
  }
  const torch::Tensor real_in = real_grad ? real.detach().requires_grad_(true) : real;
  const torch::Tensor fake_in = fake_grad ? fake.detach().requires_grad_(true) : fake;
  torch::Tensor logits;
  {
    PrecisionScope scope(precision);
    logits = d->forward(torch::cat({augmented(real_in, real_draws_, m), augmented(fake_in, fake_draws_, m)}),
                        torch::cat({real_labels, fake_labels}));
  }
  logits = logits.to(torch::kFloat);  // losses in float32 whatever the forward computed in
  const int64_t n = real.size(0);
  DLoss out{{}, logits.slice(0, 0, n), logits.slice(0, n)};
  out.loss = discriminator_loss(cfg_.loss, out.on_real, out.on_fake);
  LossSum extra;
  for (auto& [name, t] : terms_) t->add_d_loss({out.on_real, out.on_fake, real_in, fake_in}, extra);
  if (extra.total.defined()) out.loss = out.loss + extra.total;
  if (ada_) ada_->observe(out.on_real.detach());
  for (auto& [name, t] : terms_) t->observe_d(out.on_real, out.on_fake, m, k, sync, world_size);
  return out;
}

void Objective::end_d_update(GradSync& sync, int64_t global_images) {
  if (ada_)
    ada_->end_update(global_images, [&](torch::Tensor& sums) { sync.sum_over_ranks(sums, "summing ADA's sign(D(real))"); });
}

void Objective::begin_g_update(int64_t n, at::Generator& noise, const BatchSlice& slice) {
  const bool paired = generator_loss_uses_reals(cfg_.loss);
  if (augment_) {
    fake_draws_ = rank_draws(n, noise, slice);
    if (paired) real_draws_ = rank_draws(n, noise, slice);
  }
  if (paired && !last_real_.defined())
    throw Error("g_step: loss = rpgan pairs G's images with the reals of a D update; run d_step first");
}

torch::Tensor Objective::g_loss(Generator& g, Discriminator& d, const torch::Tensor& z, const torch::Tensor& labels,
                                int64_t m, int64_t k, const Precision& precision) {
  torch::Tensor logits, on_real;
  {
    PrecisionScope scope(precision);
    const torch::Tensor fake = augmented(g->forward(z, labels), fake_draws_, m);
    if (generator_loss_uses_reals(cfg_.loss)) {  // one D call on the paired reals and the fakes
      const torch::Tensor real = augmented(micro_batch(last_real_, m, k), real_draws_, m);
      logits = d->forward(torch::cat({real, fake}), torch::cat({micro_batch(last_real_labels_, m, k), labels}));
      on_real = logits.slice(0, 0, real.size(0)).to(torch::kFloat);
      logits = logits.slice(0, real.size(0));
    } else {
      logits = d->forward(fake, labels);
    }
  }
  const torch::Tensor on_fake = logits.to(torch::kFloat);
  LossSum loss;
  loss.add(generator_loss(cfg_.loss, on_fake, on_real));
  for (auto& [name, t] : terms_) t->add_g_loss(on_fake, loss);
  return loss.total;
}

}  // namespace hamgan
