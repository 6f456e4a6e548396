#pragma once
// ADA's adaptive augmentation probability (Karras et al., "Training Generative
// Adversarial Networks with Limited Data", NeurIPS 2020; NVlabs/stylegan2-ada-pytorch,
// training/training_loop.py): the overfitting heuristic r_t = E[sign(D(real))] over
// `interval` D updates moves p by sign(r_t - target) * images / (kimg * 1000), where
// `images` are the real images D saw in the interval (batch * interval), so p can
// cross [0, 1] in `kimg` thousand images. p is the probability with which each
// augmentation transform is applied to each image (gan/step/augment.h).
#include <torch/torch.h>

#include <functional>

namespace hamgan {

// stylegan2-ada-pytorch's defaults (train.py --target, training_loop.py ada_interval and ada_kimg).
inline constexpr double kAdaTarget = 0.6;     // r_t above it: D is overfitting, raise p
inline constexpr int64_t kAdaInterval = 4;    // D updates per adjustment
inline constexpr double kAdaKimg = 500;       // thousands of images for p to move by 1
inline constexpr double kAdaInitialP = 0;     // training starts unaugmented

struct AdaSettings {
  double target = kAdaTarget;
  int64_t interval = kAdaInterval;
  double kimg = kAdaKimg;
};

// What a checkpoint keeps, so that a resumed run adjusts p exactly as an uninterrupted one.
struct AdaState {
  double p = kAdaInitialP;
  torch::Tensor sign_sums;    // (2) float32: sum of sign(D(real)) and the count of logits since the last adjustment
  int64_t updates = 0;        // D updates since the last adjustment
  int64_t images = 0;         // real images in those updates
};

class AdaController {
 public:
  // Throws ConfigError for a target outside [-1, 1], an interval below 1 or a kimg not above 0.
  explicit AdaController(AdaSettings settings = {}, torch::Device device = torch::kCPU);

  double p() const { return p_; }
  // r_t of the latest adjustment (NaN before the first).
  double last_overfitting() const { return last_rt_; }
  const AdaSettings& settings() const { return settings_; }

  // Adds the real-image logits of one D update, or one micro-batch of it, on the device (no host sync).
  void observe(const torch::Tensor& real_logits);
  // Ends one D update of `batch_images` real images (all ranks' in a data-parallel run). At
  // the end of each interval it reads the two sums (the only host read), moves and clamps
  // p and starts the next interval; returns whether it did. `reduce`, when given, combines
  // the (2) sums across ranks in place (a sum) before they are read.
  bool end_update(int64_t batch_images, const std::function<void(torch::Tensor&)>& reduce = {});

  AdaState state() const;  // sums on the CPU
  void load_state(const AdaState& state);

 private:
  AdaSettings settings_;
  torch::Device device_;
  double p_ = kAdaInitialP;
  double last_rt_;
  torch::Tensor sign_sums_;
  int64_t updates_ = 0, images_ = 0;
};

}  // namespace hamgan
