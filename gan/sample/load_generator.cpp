#include "gan/sample/load_generator.h"

#include "core/errors.h"
#include "core/finite.h"
#include "gan/checkpoint/checkpoint.h"
#include "gan/sample/standing_stats.h"

namespace hamgan {
namespace {

// Training refuses to save non-finite weights, but a file from elsewhere (or an
// older run) may hold them; sampling it would write black images and exit 0.
void check_finite(const Generator& g, const std::string& path, bool ema) {
  const std::string bad = first_nonfinite_tensor(*g);
  if (!bad.empty())
    throw CheckpointError(path + ": the " + (ema ? "EMA" : "raw") + " generator's tensor '" + bad +
                          "' holds NaN or Inf; sample an earlier checkpoint (a step_*.pt file)" +
                          (ema ? " or the raw weights (--raw)" : ""));
}

}  // namespace

Generator load_generator(const std::string& path, bool use_ema, torch::Device device, int64_t standing_batches,
                         uint64_t standing_seed) {
  const ModelConfig cfg = read_checkpoint_model_config(path);
  Generator g(cfg);
  g->to(device);
  CheckpointRefs refs;
  const bool ema = use_ema && checkpoint_has_ema(path);
  if (ema)
    refs.g_ema = g;
  else
    refs.g = g;
  load_checkpoint(path, refs, /*restore_rng=*/false, device);
  check_finite(g, path, ema);
  accumulate_standing_stats(g, standing_batches, kStandingBatchSize, standing_seed);  // leaves g in eval mode
  return g;
}

}  // namespace hamgan
