#include "gan/sample/load_generator.h"

#include "core/errors.h"
#include "core/finite.h"
#include "core/text.h"
#include "gan/checkpoint/checkpoint.h"
#include "gan/sample/standing_stats.h"

namespace hamgan {
namespace {

// Where a damaged generator points: commands that take the raw weights name the option with its command.
const char* kRawAdvice = " or the raw generator (hamgan sample --raw, hamgan export --weights raw)";

// Training refuses to save non-finite weights, but a file from elsewhere (or an
// older run) may hold them; sampling it would write black images and exit 0.
void check_finite(const Generator& g, const std::string& path, bool ema) {
  const std::string bad = first_nonfinite_tensor(*g);
  if (!bad.empty())
    throw CheckpointError(path + ": the " + (ema ? "EMA" : "raw") + " generator's tensor '" + bad +
                          "' holds NaN or Inf; use an earlier checkpoint (a step_*.pt file)" +
                          (ema ? kRawAdvice : ""));
}

// A variance below zero normalises by the square root of a negative number: NaN images, exit 0. Batch
// variances are never negative, so neither is any average of them that training stores.
void check_variances(const Generator& g, const std::string& path, bool ema) {
  for (const auto& b : g->named_buffers()) {
    const std::string& name = b.key();
    if (!ends_with(name, "running_var")) continue;
    const torch::Tensor negative = b.value().reshape(-1) < 0;
    if (!negative.any().item<bool>()) continue;
    const int64_t i = negative.nonzero()[0][0].item<int64_t>();
    throw CheckpointError(path + ": the " + (ema ? "EMA" : "raw") + " generator's tensor '" + name +
                          "' holds a negative variance (" + c10::str(b.value().reshape(-1)[i].item<double>()) +
                          " at element " + std::to_string(i) + "), which no training writes: the file is damaged; "
                          "use an earlier checkpoint (a step_*.pt file)" + (ema ? kRawAdvice : ""));
  }
}

}  // namespace

const std::vector<std::string>& resample_conv_choices() {
  static const std::vector<std::string> choices = [] {
    std::vector<std::string> c = {"checkpoint"};  // then the model key's own names
    for (const std::string& name : resample_conv_names().names()) c.push_back(name);
    return c;
  }();
  return choices;
}

std::optional<ResampleConv> resample_override(const std::string& choice) {
  if (choice == "checkpoint") return std::nullopt;
  return resample_conv_names().parse(choice);
}

Generator load_generator(const std::string& path, bool use_ema, torch::Device device, int64_t standing_batches,
                         uint64_t standing_seed, std::optional<ResampleConv> resample) {
  ModelConfig cfg = read_checkpoint_model_config(path);
  if (resample) cfg.resample_conv = *resample;
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
  check_variances(g, path, ema);
  accumulate_standing_stats(g, standing_batches, kStandingBatchSize, standing_seed);  // leaves g in eval mode
  return g;
}

}  // namespace hamgan
