#include "gan/sample/standing_stats.h"

#include "core/stop_signal.h"
#include "core/errors.h"
#include "core/rng.h"
#include "gan/sample/noise.h"
#include "modules/conditional_bn.h"

namespace hamgan {

void accumulate_standing_stats(Generator& g, int64_t batches, int64_t batch_size, uint64_t seed) {
  if (batches < 0) throw ConfigError("standing_stats must be >= 0 (0 keeps the stored moving averages)");
  g->eval();
  if (batches == 0) return;
  // One image is a valid batch, as in training: BN's statistics are over (N, H, W).
  if (batch_size < 1) throw ConfigError("standing_stats needs a positive batch size (got " + std::to_string(batch_size) + ")");
  std::vector<ConditionalBatchNormImpl*> norms;
  for (const auto& m : g->modules(/*include_self=*/false))
    if (auto* bn = m->as<ConditionalBatchNormImpl>()) norms.push_back(bn);
  if (norms.empty()) return;

  torch::NoGradGuard no_grad;
  ScopedRngRestore keep_rng;
  const ModelConfig& mc = g->config();
  const auto device = g->parameters().front().device();
  // z drawn batch by batch, as the values have always been.
  const FixedNoise noise(batches * batch_size, mc.z_dim, mc.num_classes, seed, 0.0, /*chunk=*/batch_size);
  std::vector<double> momenta;
  for (auto* bn : norms) {
    momenta.push_back(bn->options.momentum());
    bn->train(true);
  }
  for (int64_t i = 0; i < batches; ++i) {
    throw_if_stop_requested("standing statistics");
    // Momentum 1/(i+1) turns the moving average into the plain mean of the passes so far.
    for (auto* bn : norms) bn->options.momentum(1.0 / static_cast<double>(i + 1));
    const NoiseBatch b = noise.slice(i * batch_size, batch_size);
    g->forward(b.z.to(device), b.labels.to(device));
  }
  for (size_t k = 0; k < norms.size(); ++k) {
    norms[k]->options.momentum(momenta[k]);
    norms[k]->train(false);
  }
}

BufferSnapshot::BufferSnapshot(torch::nn::Module& module) {
  torch::NoGradGuard no_grad;
  for (auto& b : module.buffers(/*recurse=*/true)) {
    live_.push_back(b);
    saved_.push_back(b.clone());
  }
}

BufferSnapshot::~BufferSnapshot() {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < live_.size(); ++i) live_[i].copy_(saved_[i]);
}

}  // namespace hamgan
