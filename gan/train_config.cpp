#include "gan/train_config.h"

#include <torch/torch.h>

#include "core/errors.h"

namespace hamgan {

static void positive(int64_t v, const char* key) {
  if (v <= 0) throw ConfigError(std::string("train: ") + key + " must be positive, got " + std::to_string(v));
}
static void non_negative(int64_t v, const char* key) {
  if (v < 0) throw ConfigError(std::string("train: ") + key + " must be >= 0, got " + std::to_string(v));
}

void TrainConfig::validate() const {
  model.validate();
  positive(batch_size, "batch_size");
  non_negative(steps, "steps");
  positive(d_steps, "d_steps");
  positive(log_every, "log_every");
  positive(keep_checkpoints, "keep_checkpoints");
  positive(eval_n, "eval_n");
  non_negative(sample_every, "sample_every");
  non_negative(checkpoint_every, "checkpoint_every");
  non_negative(eval_every, "eval_every");
  non_negative(standing_stats, "standing_stats");
  non_negative(threads, "threads");
  positive(workers, "workers");
  if (!(g_lr > 0) || !(d_lr > 0)) throw ConfigError("train: g_lr and d_lr must be positive");
  if (beta1 < 0 || beta1 >= 1 || beta2 < 0 || beta2 >= 1)
    throw ConfigError("train: beta1 and beta2 must be in [0, 1)");
  if (!(adam_eps > 0)) throw ConfigError("train: adam_eps must be positive");
  if (ema_decay < 0 || ema_decay >= 1) throw ConfigError("train: ema_decay must be in [0, 1)");
  non_negative(ema_start, "ema_start");
  if (run_dir.empty()) throw ConfigError("train: run_dir must not be empty");
  if (dataset_split != "train" && dataset_split != "test")
    throw ConfigError("train: dataset_split must be train or test, got '" + dataset_split + "'");
  training_device(device);
}

torch::Device training_device(const std::string& name) {
  if (name == "auto") return torch::cuda::is_available() ? torch::Device(torch::kCUDA) : torch::Device(torch::kCPU);
  try {
    torch::Device d(name);
    if (d.is_cuda() && !torch::cuda::is_available())
      throw ConfigError("device: '" + name + "' requested but CUDA is not available; use cpu or auto");
    if (!d.is_cpu() && !d.is_cuda()) throw ConfigError("device: '" + name + "' unsupported; use auto, cpu or cuda");
    return d;
  } catch (const c10::Error&) {
    throw ConfigError("device: '" + name + "' is not a device; use auto, cpu, cuda or cuda:N");
  }
}

}  // namespace hamgan
