// The generator-checkpoint image source behind `hamgan fid CHECKPOINT` (it
// replaces metrics/checkpoint_source_stub.cpp): n class-balanced samples
// (label i mod K) from the EMA generator, z drawn from the seed up front so any
// batch [offset, offset + count) is the same whatever the batching.
#include <ATen/CPUGeneratorImpl.h>

#include "gan/checkpoint.h"
#include "gan/sampler.h"
#include "gan/train_config.h"
#include "metrics/image_source.h"

namespace hamgan {

std::unique_ptr<ImageSource> open_checkpoint_source(const std::string& path, int64_t n, uint64_t seed,
                                                    int64_t standing_stats) {
  const std::string file = resolve_checkpoint_path(path);
  auto g = std::make_shared<Generator>(
      load_generator(file, /*use_ema=*/true, training_device("auto"), standing_stats, seed + 1));
  const ModelConfig mc = (*g)->config();
  at::Generator gen = at::detail::createCPUGenerator(seed);
  const torch::Tensor z = sample_z(n, mc.z_dim, 0.0, gen);
  torch::manual_seed(seed);  // blocks that draw random numbers in eval (NMF init) follow the seed
  auto make = [g, z, k = mc.num_classes](int64_t count, int64_t offset) {
    const torch::Tensor labels = balanced_labels(offset, count, k);
    return quantize_images(generate(*g, z.slice(0, offset, offset + count), labels, count));
  };
  return make_callable_source(make, n, "generator " + file + " (EMA weights, " + std::to_string(n) +
                                           " class-balanced samples, seed " + std::to_string(seed) +
                                           (standing_stats > 0 ? ", standing BN statistics over " + std::to_string(standing_stats) + " batches"
                                                               : ", stored BN statistics") + ")");
}

}  // namespace hamgan
