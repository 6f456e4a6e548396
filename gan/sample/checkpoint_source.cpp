#include "gan/sample/checkpoint_source.h"

#include "core/device.h"
#include "core/errors.h"
#include "gan/checkpoint/checkpoint.h"
#include "gan/checkpoint/run_dir.h"
#include "gan/sample/latents_file.h"
#include "gan/sample/load_generator.h"
#include "gan/sample/noise.h"
#include "gan/sample/sampler.h"
#include "core/seeds.h"

namespace hamgan {

namespace {

// The images of G on `inputs` (the whole set, sliced per batch, so any batching gives the same images).
std::unique_ptr<ImageSource> generator_source(std::shared_ptr<Generator> g, std::shared_ptr<const NoiseBatch> inputs,
                                              const std::string& description) {
  const int64_t n = inputs->z.size(0);
  auto make = [g, inputs](int64_t count, int64_t offset) {
    return quantize_images(generate_on_device(*g, inputs->z.slice(0, offset, offset + count),
                                              inputs->labels.slice(0, offset, offset + count)));  // stays on G's device
  };
  // The classes G was asked for, so intra-class FID compares each class with its real images.
  LabelMaker label;
  if ((*g)->config().num_classes > 1)
    label = [inputs](int64_t count, int64_t offset) { return inputs->labels.slice(0, offset, offset + count); };
  return make_callable_source(make, n, description, label, (*g)->config().image_channels, (*g)->config().num_classes);
}

std::shared_ptr<Generator> load_ema_generator(const std::string& file, uint64_t seed, int64_t standing_stats,
                                              torch::Device device, std::optional<ResampleConv> resample) {
  return std::make_shared<Generator>(load_generator(file, /*use_ema=*/true, device, standing_stats,
                                                    derived_seed(seed, SeedPurpose::kLoadStandingStats), resample));
}

std::string standing_text(int64_t standing_stats) {
  return standing_stats > 0 ? ", standing BN statistics over " + std::to_string(standing_stats) + " batches"
                            : ", stored BN statistics";
}

}  // namespace

std::unique_ptr<ImageSource> open_checkpoint_source(const std::string& path, int64_t n, uint64_t seed,
                                                    int64_t standing_stats, torch::Device device,
                                                    const LabelDraw& labels, std::optional<ResampleConv> resample) {
  const std::string file = resolve_checkpoint_path(path);
  auto g = load_ema_generator(file, seed, standing_stats, device, resample);
  const ModelConfig mc = (*g)->config();
  const FixedNoise noise(n, mc.z_dim, mc.num_classes, seed, 0.0, 0, &labels);
  return generator_source(g, std::make_shared<const NoiseBatch>(NoiseBatch{noise.z(), noise.labels()}),
                          "generator " + file + " (EMA weights on " + device_name(device) + ", " + std::to_string(n) +
                              " samples, labels " + labels.describe() + ", seed " + std::to_string(seed) +
                              standing_text(standing_stats) + ")");
}

std::unique_ptr<ImageSource> open_latents_source(const std::string& path, const std::string& latents, int64_t n,
                                                 uint64_t seed, int64_t standing_stats, torch::Device device,
                                                 std::optional<ResampleConv> resample) {
  const std::string file = resolve_checkpoint_path(path);
  const ModelConfig mc = read_checkpoint_model_config(file);  // the file is checked before G is loaded
  auto inputs = std::make_shared<const NoiseBatch>(read_latents(latents, mc.z_dim, mc.num_classes));
  if (inputs->z.size(0) != n)
    throw ConfigError("--latents " + latents + " holds " + std::to_string(inputs->z.size(0)) + " rows but " +
                      std::to_string(n) + " images of " + path + " are asked for (--n, times --repeats); drop --n "
                      "to score every row, or give a file of " + std::to_string(n) + " rows");
  auto g = load_ema_generator(file, seed, standing_stats, device, resample);
  // As FixedNoise does: blocks that draw in eval mode (the NMF's random bases) follow the seed, so a file
  // holding a seed's z and labels gives that seed's images.
  torch::manual_seed(seed);
  return generator_source(g, inputs,
                          "generator " + file + " (EMA weights on " + device_name(device) + ", " + std::to_string(n) +
                              " samples, z and labels from " + latents + ", seed " + std::to_string(seed) +
                              standing_text(standing_stats) + ")");
}

CheckpointOpener checkpoint_opener(const std::string& device, const std::string& resample_conv) {
  const std::optional<ResampleConv> resample = resample_override(resample_conv);
  return [device, resample](const std::string& path, const SampleOptions& options) {
    if (!options.latents.empty()) {
      if (options.labels != LabelMode::balanced)
        throw ConfigError("--latents " + options.latents + " gives the classes; drop --labels " +
                          to_string(options.labels));
      return open_latents_source(path, options.latents, options.n, options.seed, options.standing_stats,
                                 resolve_device(device), resample);
    }
    DatasetSpec label_data = options.data;
    label_data.path = options.label_data;
    return open_checkpoint_source(path, options.n, options.seed, options.standing_stats, resolve_device(device),
                                  make_label_draw(options.labels, label_data, path), resample);
  };
}

}  // namespace hamgan
