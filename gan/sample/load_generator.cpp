#include "gan/sample/load_generator.h"

#include "gan/checkpoint/checkpoint.h"
#include "gan/sample/standing_stats.h"

namespace hamgan {

Generator load_generator(const std::string& path, bool use_ema, torch::Device device, int64_t standing_batches,
                         uint64_t standing_seed) {
  const ModelConfig cfg = read_checkpoint_model_config(path);
  Generator g(cfg);
  g->to(device);
  CheckpointRefs refs;
  if (use_ema && checkpoint_has_ema(path))
    refs.g_ema = g;
  else
    refs.g = g;
  load_checkpoint(path, refs, /*restore_rng=*/false, device);
  accumulate_standing_stats(g, standing_batches, kStandingBatchSize, standing_seed);  // leaves g in eval mode
  return g;
}

}  // namespace hamgan
