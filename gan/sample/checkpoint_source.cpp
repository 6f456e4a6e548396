#include "gan/sample/checkpoint_source.h"

#include "core/device.h"
#include "gan/checkpoint/run_dir.h"
#include "gan/sample/load_generator.h"
#include "gan/sample/noise.h"
#include "gan/sample/sampler.h"
#include "core/seeds.h"

namespace hamgan {

std::unique_ptr<ImageSource> open_checkpoint_source(const std::string& path, int64_t n, uint64_t seed,
                                                    int64_t standing_stats, torch::Device device,
                                                    const LabelDraw& labels) {
  const std::string file = resolve_checkpoint_path(path);
  auto g = std::make_shared<Generator>(load_generator(file, /*use_ema=*/true, device, standing_stats,
                                                                    derived_seed(seed, SeedPurpose::kLoadStandingStats)));
  const ModelConfig mc = (*g)->config();
  auto noise = std::make_shared<const FixedNoise>(n, mc.z_dim, mc.num_classes, seed, 0.0, 0, &labels);
  auto make = [g, noise](int64_t count, int64_t offset) {
    const NoiseBatch b = noise->slice(offset, count);
    return quantize_images(generate_on_device(*g, b.z, b.labels));  // stays on G's device
  };
  // The classes G was asked for, so intra-class FID compares each class with its real images.
  LabelMaker label;
  if (mc.num_classes > 1) label = [noise](int64_t count, int64_t offset) { return noise->slice(offset, count).labels; };
  return make_callable_source(make, n, "generator " + file + " (EMA weights on " + device_name(device) + ", " +
                                           std::to_string(n) + " samples, labels " + labels.describe() + ", seed " + std::to_string(seed) +
                                           (standing_stats > 0 ? ", standing BN statistics over " + std::to_string(standing_stats) + " batches"
                                                               : ", stored BN statistics") + ")",
                              label);
}

CheckpointOpener checkpoint_opener(const std::string& device) {
  return [device](const std::string& path, const SampleOptions& options) {
    DatasetSpec label_data = options.data;
    label_data.path = options.label_data;
    return open_checkpoint_source(path, options.n, options.seed, options.standing_stats, resolve_device(device),
                                  make_label_draw(options.labels, label_data, path));
  };
}

}  // namespace hamgan
