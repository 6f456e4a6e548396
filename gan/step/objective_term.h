#pragma once
// The terms the objective adds to the adversarial loss, one class per term and one
// row per term in objective_terms() (objective_terms.cpp): a new regulariser is its
// own file plus that row; neither the objective's flow nor the step functions change.
// A term sees the logits of each micro-batch (and D's inputs, for the penalties),
// may add to D's or G's loss, may keep rank-local state that checkpoints save under
// its name, and may report values for the training log.
#include <torch/torch.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gan/step/grad_sync.h"
#include "gan/step/recipe_config.h"

namespace hamgan {

// A loss built by adding terms in a fixed order (the order fixes the float rounding).
struct LossSum {
  torch::Tensor total;  // undefined until a term adds to it
  void add(const torch::Tensor& term) { total = total.defined() ? total + term : term; }
};

// One D micro-batch as a term sees it: float32 logits, and D's inputs before augmentation
// (leaves with gradients where a term asked for them through needs_input_grad).
struct DTermInput {
  const torch::Tensor& on_real;
  const torch::Tensor& on_fake;
  const torch::Tensor& real_in;
  const torch::Tensor& fake_in;
};

using LogRow = std::vector<std::pair<std::string, double>>;

class ObjectiveTerm {
 public:
  virtual ~ObjectiveTerm() = default;
  // D update `d_update` (counted from 0 over the run) begins.
  virtual void begin_d_update(int64_t d_update) {}
  // Whether D's real (or fake) input of this update must be a leaf with gradients.
  virtual bool needs_input_grad(bool real) const { return false; }
  virtual void add_d_loss(const DTermInput& in, LossSum& loss) {}
  // After micro-batch m of k of a D update, with its logits (detached by the term as it needs).
  virtual void observe_d(const torch::Tensor& on_real, const torch::Tensor& on_fake, int64_t m, int64_t k,
                         GradSync& sync, int64_t world_size) {}
  // G's update: `on_fake` are D's float32 logits on G's images of one micro-batch.
  virtual void add_g_loss(const torch::Tensor& on_fake, LossSum& loss) {}
  // Rank-local state as a float64 row (undefined: the term keeps none), saved as
  // "objective/<name>"; load_state_row gets back what state_row gave.
  virtual torch::Tensor state_row() const { return {}; }
  virtual void load_state_row(const torch::Tensor& row) {}
  virtual void log(LogRow& row) const {}
};

struct ObjectiveTermRow {
  const char* name;  // the checkpoint key under "objective/"
  // The term, or null where the recipe leaves it off.
  std::unique_ptr<ObjectiveTerm> (*make)(const RecipeConfig& recipe, torch::Device device);
};

// Every term, in the order they add to the loss.
const std::vector<ObjectiveTermRow>& objective_terms();

}  // namespace hamgan
