#pragma once
// Options shared by `hamgan fid`, `hamgan fid-stats` and `hamgan bench fid`.
#include <memory>

#include "cli/command.h"
#include "cli/data_options.h"
#include "metrics/fid.h"

namespace hamgan::cli {

// Adds --features/--inception/--resize/--device; the resize mode is parsed into
// `features.resize` when the command runs (call the returned function first).
inline std::function<void()> add_feature_options(CLI::App* sub, FeatureOptions& f) {
  auto resize = std::make_shared<std::string>(to_string(f.resize));
  sub->add_option("--features", f.spec, "Feature extractor: inception, inception:PATH or classifier:PATH")
      ->capture_default_str();
  sub->add_option("--inception", f.inception,
                  "Inception weights: NVIDIA inception-2015-12-05.pt or pytorch-fid .pth (default: $HAMGAN_INCEPTION)")
      ->capture_default_str();
  sub->add_option("--resize", *resize, "Inception preprocessing (legacy_tensorflow = TF1/StyleGAN2-ADA protocol)")
      ->check(CLI::IsMember(resize_mode_names()))
      ->capture_default_str();
  sub->add_option("--device", f.device, "auto, cpu, cuda or cuda:N (features and generator checkpoints)")->capture_default_str();
  return [&f, resize] { f.resize = parse_resize_mode(*resize); };
}

inline void add_sample_options(CLI::App* sub, SampleOptions& s) {
  sub->add_option("--n", s.n, "Images per data set or generator (0: a whole data set; generators class-balanced)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  sub->add_option("--batch", s.batch, "Images per feature-extractor batch")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--seed", s.seed, "Generator noise and data-subset seed")->capture_default_str();
  sub->add_option("--standing_stats", s.standing_stats, "Generators: batches of 64 to recompute G's BN statistics over (0: stored moving averages)")->check(CLI::NonNegativeNumber)->capture_default_str();
  add_dataset_options(sub, s.data);  // --split, --size, --channels, --idx_resize, --in_memory
}

}  // namespace hamgan::cli
