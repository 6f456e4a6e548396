#include "gan/step/ada.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/errors.h"

namespace hamgan {

namespace {

torch::Tensor zero_sums(torch::Device device) { return torch::zeros({2}, torch::TensorOptions(device)); }

}  // namespace

AdaController::AdaController(AdaSettings settings, torch::Device device)
    : settings_(settings), device_(device), last_rt_(std::numeric_limits<double>::quiet_NaN()),
      sign_sums_(zero_sums(device)) {
  if (!(settings_.target >= -1 && settings_.target <= 1))
    throw ConfigError("ada_target: " + std::to_string(settings_.target) +
                      " lies outside [-1, 1], the range of E[sign(D(real))]; use a value such as 0.6");
  if (settings_.interval < 1)
    throw ConfigError("ada_interval: " + std::to_string(settings_.interval) + "; use 1 or more D updates");
  if (!(settings_.kimg > 0))
    throw ConfigError("ada_kimg: " + std::to_string(settings_.kimg) + "; use a positive number of thousands of images");
}

void AdaController::observe(const torch::Tensor& real_logits) {
  const torch::Tensor logits = real_logits.detach();
  sign_sums_.select(0, 0).add_(logits.sign().sum(torch::kFloat));  // sign(0) = 0, as np.sign
  sign_sums_.select(0, 1).add_(static_cast<double>(logits.numel()));
}

bool AdaController::end_update(int64_t batch_images, const std::function<void(torch::Tensor&)>& reduce) {
  ++updates_;
  images_ += batch_images;
  if (updates_ < settings_.interval) return false;
  if (reduce) reduce(sign_sums_);
  const torch::Tensor sums = sign_sums_.cpu();  // the one host read per interval
  const double sign_sum = sums[0].item<double>(), count = sums[1].item<double>();
  const int64_t images = images_;
  sign_sums_.zero_();
  updates_ = images_ = 0;
  if (count == 0) return false;  // nothing observed: no evidence either way
  last_rt_ = sign_sum / count;
  const double direction = (last_rt_ > settings_.target) - (last_rt_ < settings_.target);
  p_ = std::clamp(p_ + direction * static_cast<double>(images) / (settings_.kimg * 1000), 0.0, 1.0);
  return true;
}

AdaState AdaController::state() const { return AdaState{p_, sign_sums_.cpu().clone(), updates_, images_}; }

void AdaController::load_state(const AdaState& state) {
  if (!(state.p >= 0 && state.p <= 1) || state.updates < 0 || state.images < 0 || !state.sign_sums.defined() ||
      state.sign_sums.numel() != 2)
    throw CheckpointError("ada state: p " + std::to_string(state.p) + ", " + std::to_string(state.updates) +
                          " updates, " + std::to_string(state.images) +
                          " images and a pair of sums expected; the checkpoint's augmentation state is damaged");
  p_ = state.p;
  sign_sums_ = state.sign_sums.to(device_, torch::kFloat).reshape({2}).clone();
  updates_ = state.updates;
  images_ = state.images;
}

}  // namespace hamgan
