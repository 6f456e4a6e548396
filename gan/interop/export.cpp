#include "gan/interop/export.h"

#include "core/build_info.h"
#include "core/device.h"
#include "core/errors.h"
#include "core/safetensors.h"
#include "core/text.h"
#include "gan/checkpoint/checkpoint.h"
#include "gan/checkpoint/run_dir.h"
#include "gan/interop/generator_tensors.h"
#include "gan/sample/load_generator.h"

namespace hamgan {
std::string run_export(const ExportConfig& cfg) {
  if (cfg.out.empty()) throw ConfigError("export: give --out FILE.safetensors (or --hub DIR for a Hub-layout folder)");
  if (!ends_with(cfg.out, ".safetensors"))
    throw ConfigError("export: --out " + cfg.out + " must end in .safetensors (the only format written)");
  if (!cfg.weights.empty() && cfg.weights != "ema" && cfg.weights != "raw")
    throw ConfigError("export: --weights " + cfg.weights + ": use ema or raw");
  const std::string ckpt = resolve_checkpoint_path(cfg.checkpoint, cfg.which);
  const bool ema = cfg.weights == "ema" || (cfg.weights.empty() && checkpoint_has_ema(ckpt));
  if (ema && !checkpoint_has_ema(ckpt))
    throw ConfigError("export: " + ckpt + " has no EMA generator (the run had ema = false); use --weights raw");
  const ModelConfig mc = read_checkpoint_model_config(ckpt);
  const torch::Device device = resolve_device(cfg.device);
  Generator g = load_generator(ckpt, ema, device, cfg.standing_stats, cfg.seed);

  SafetensorsFile file;
  file.tensors = generator_tensors(g);
  if (cfg.with_d) {
    Discriminator d(mc);
    CheckpointRefs refs;
    refs.d = d;
    load_checkpoint(ckpt, refs, /*restore_rng=*/false);
    for (auto& item : discriminator_tensors(d)) file.tensors.push_back(std::move(item));
  }
  CheckpointReader reader(ckpt);
  file.metadata = {
      {"format", "hamgan"},
      {"format_version", "1"},
      {"networks", cfg.with_d ? "G,D" : "G"},
      {"model", model_config_to_text(mc)},
      {"weights", ema ? "ema" : "raw"},
      {"step", std::to_string(reader.get_int("step"))},
      {"standing_stats", cfg.standing_stats > 0 ? std::to_string(cfg.standing_stats) + " batches of " +
                                                      std::to_string(kStandingBatchSize) + ", seed " +
                                                      std::to_string(cfg.seed) + ", on " + device.str()
                                                : "none: stored moving averages"},
      {"source", ckpt},
      {"hamgan_version", "0.1.0"},  // as `hamgan --version` says (cli/main.cpp, CMakeLists.txt)
      {"git_revision", std::string(build_git_revision()) + (build_git_dirty() ? "-dirty" : "")},
  };
  write_safetensors(cfg.out, file);
  return std::to_string(file.tensors.size()) + " tensors (" + (ema ? "EMA" : "raw") + " G" +
         (cfg.with_d ? " and D" : "") + ", step " + file.metadata["step"] + ", " + ckpt + ") -> " + cfg.out;
}

}  // namespace hamgan
