#include "gan/train/run_setup.h"

#include <filesystem>
#include <iostream>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "gan/checkpoint/run_dir.h"
#include "gan/report/provenance.h"

namespace hamgan {
namespace fs = std::filesystem;

std::string checkpoint_to_resume(const TrainConfig& cfg) {
  const fs::path run(cfg.run_dir);
  const std::string ckdir = (run / "checkpoints").string();
  const std::string found = latest_checkpoint(ckdir);
  if (!cfg.resume && !found.empty())
    throw ConfigError("run_dir: " + run.string() + " already holds checkpoints (" + found +
                      "); pass --resume to continue that run or choose another --run-dir");
  if (cfg.resume && found.empty())
    throw ConfigError("resume: " + ckdir + " has no checkpoint to resume from; start without --resume");
  return cfg.resume ? found : "";
}

std::shared_ptr<Dataset> open_training_data(const TrainConfig& cfg) {
  DatasetSpec spec;
  spec.path = cfg.dataset;
  spec.split = cfg.dataset_split;
  spec.size = cfg.model.resolution;
  spec.channels = cfg.model.image_channels;
  auto dataset = open_dataset(spec);
  if (dataset->num_classes() > cfg.model.num_classes)
    throw ConfigError("num_classes: the model has " + std::to_string(cfg.model.num_classes) + " classes but " +
                      dataset->describe() + " has " + std::to_string(dataset->num_classes()) +
                      "; set num_classes = " + std::to_string(dataset->num_classes()));
  return dataset;
}

LoaderOptions loader_options(const TrainConfig& cfg) {
  LoaderOptions lo;
  lo.batch_size = cfg.batch_size;
  lo.seed = cfg.seed;
  lo.flip = cfg.flip;
  lo.workers = cfg.workers;
  return lo;
}

void resume_state(TrainState& state, const TrainConfig& cfg, const std::string& checkpoint) {
  state.load(checkpoint);
  state.config_text = cfg.config_text;  // the resumed run's own resolved config goes into its next checkpoints
  state.set_learning_rates(cfg.g_lr, cfg.d_lr);  // an override on resume takes effect
  std::cerr << "train: resumed from step " << state.step << " (" << checkpoint << ")\n";
}

void write_run_files(const TrainConfig& cfg, const TrainState& state, bool resumed) {
  write_text_atomically((fs::path(cfg.run_dir) / "config.toml").string(), cfg.config_text);
  Provenance p;
  p.run_id = state.run_id;
  p.device = state.device;
  p.start_step = resumed ? state.step : 0;
  write_provenance(cfg.run_dir, p);
}

}  // namespace hamgan
