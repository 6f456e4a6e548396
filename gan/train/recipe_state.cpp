#include "gan/train/recipe_state.h"

#include "gan/checkpoint/archive.h"

namespace hamgan {

RecipeState::RecipeState(const RecipeConfig& cfg, torch::Device device)
    : device_(device), augment_(cfg.augment != AugmentMode::kNone) {
  if (cfg.augment == AugmentMode::kAda) ada_ = std::make_unique<AdaController>(cfg.ada_settings(), device);
}

double RecipeState::augment_p() const {
  if (!augment_) return 0;
  return ada_ ? ada_->p() : 1.0;
}

void RecipeState::update_lecam_anchors(const torch::Tensor& real_mean, const torch::Tensor& fake_mean, double decay) {
  const torch::Tensor now = torch::stack({real_mean.detach(), fake_mean.detach()}).to(torch::kFloat);
  // The first update sets the anchors to the means (an EMA started at 0 would pull D's logits to 0).
  anchors_ = anchors_.defined() ? anchors_ * decay + now * (1 - decay) : now.clone();
}

torch::Tensor RecipeState::local_row() const {
  torch::Tensor row = torch::zeros({5}, torch::kDouble);
  if (anchors_.defined()) {
    row.slice(0, 0, 2).copy_(anchors_.cpu());
    row[2] = 1;
  }
  if (ada_) row.slice(0, 3, 5).copy_(ada_->state().sign_sums);
  return row;
}

void RecipeState::set_local_row(const torch::Tensor& row) {
  const torch::Tensor r = row.to(torch::kDouble).cpu();
  anchors_ = r[2].item<double>() != 0 ? r.slice(0, 0, 2).to(device_, torch::kFloat) : torch::Tensor();
  if (ada_) {
    AdaState s = ada_->state();
    s.sign_sums = r.slice(0, 3, 5).to(torch::kFloat);
    ada_->load_state(s);
  }
}

void RecipeState::gather(Communicator& comm) {
  rank_rows_ = torch::stack(comm.all_gather(local_row(), "gathering the LeCam anchors and ADA sums for a checkpoint"));
}

void RecipeState::save(CheckpointWriter& w) const {
  w.put("recipe_row", local_row());
  if (rank_rows_.defined() && rank_rows_.size(0) > 1) w.put("rank_recipe_rows", rank_rows_);
  if (ada_) {
    const AdaState s = ada_->state();
    w.put("ada_p", s.p);
    w.put("ada_updates", s.updates);
    w.put("ada_images", s.images);
  }
}

void RecipeState::load(CheckpointReader& r, int64_t rank, int64_t world_size) {
  if (!r.has("recipe_row")) return;  // written without these terms: they start afresh
  torch::Tensor row = r.get_tensor("recipe_row");
  if (r.has("rank_recipe_rows")) {
    const torch::Tensor all = r.get_tensor("rank_recipe_rows");
    if (all.size(0) == world_size) row = all[rank];
  }
  set_local_row(row);
  if (ada_ && r.has("ada_p")) {
    AdaState s = ada_->state();
    s.p = r.get_double("ada_p");
    s.updates = r.get_int("ada_updates");
    s.images = r.get_int("ada_images");
    ada_->load_state(s);
  }
}

}  // namespace hamgan
