#pragma once
// What the recipe terms (gan/train/recipe_config.h) carry from step to step: the
// ADA controller's p and its partial sums, and LeCam's EMA anchors of D's mean
// logits. Saved in every checkpoint so that a resumed run continues bit for bit.
// In a data-parallel run the anchors and ADA's partial sums are rank-local (each
// rank's own logits): every rank's row is gathered before a checkpoint and each
// rank restores its own, as with the noise streams.
#include <torch/torch.h>

#include <memory>

#include "core/distributed/communicator.h"
#include "gan/train/ada.h"
#include "gan/train/recipe_config.h"

namespace hamgan {

class CheckpointReader;
class CheckpointWriter;

class RecipeState {
 public:
  RecipeState() = default;
  RecipeState(const RecipeConfig& cfg, torch::Device device);

  // Null unless augment = ada.
  AdaController* ada() { return ada_.get(); }
  // p of the augmentation applied now: 1 for DiffAugment, the controller's for ADA, 0 without.
  double augment_p() const;

  // LeCam: the anchors' value before this update (undefined before the first), then the
  // update with this D update's mean logits (device scalars, no host read).
  const torch::Tensor& lecam_anchors() const { return anchors_; }  // (2) float32: real, fake
  void update_lecam_anchors(const torch::Tensor& real_mean, const torch::Tensor& fake_mean, double decay);

  // Before a checkpoint, on every rank of `comm` (a collective).
  void gather(Communicator& comm);
  void save(CheckpointWriter& w) const;
  // `rank`, `world_size`: this rank's; a file of another world size restores rank 0's row on every rank.
  void load(CheckpointReader& r, int64_t rank, int64_t world_size);

  // G's rpgan loss pairs the fakes with the last D update's reals (not saved: a G update
  // always follows a D update in the same process).
  torch::Tensor last_real, last_real_labels;

 private:
  torch::Tensor local_row() const;  // float64 CPU: anchors (2), anchors defined, ADA sign sum, ADA count
  void set_local_row(const torch::Tensor& row);
  torch::Device device_ = torch::kCPU;
  std::unique_ptr<AdaController> ada_;
  bool augment_ = false;
  torch::Tensor anchors_;
  torch::Tensor rank_rows_;  // (world, 5) after gather; undefined otherwise
};

}  // namespace hamgan
