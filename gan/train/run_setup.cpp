#include "gan/train/run_setup.h"

#include <filesystem>
#include <iostream>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "gan/checkpoint/run_dir.h"
#include "gan/report/provenance.h"
#include "gan/train/resume_check.h"
#include "core/rng.h"

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
  const int64_t r = cfg.model.resolution;
  // Formats that keep their own size (HDF5) are checked here, not at the first batch.
  if (dataset->height() != r || dataset->width() != r)
    throw DataError(dataset->describe() + ": images are " + std::to_string(dataset->height()) + "x" +
                    std::to_string(dataset->width()) + " but the model's resolution is " + std::to_string(r) +
                    "; write a copy at that size with 'hamgan prepare --input " + cfg.dataset + " --size " +
                    std::to_string(r) + " --output FILE.hdf5' or set resolution to match");
  if (dataset->num_classes() > cfg.model.num_classes) {
    int64_t above = 0, first = -1;
    for (int64_t i = 0; i < dataset->size(); ++i)
      if (dataset->label(i) >= cfg.model.num_classes && above++ == 0) first = i;
    throw ConfigError("num_classes: the model has " + std::to_string(cfg.model.num_classes) + " classes but " +
                      std::to_string(above) + " example(s) of " + dataset->describe() + " have labels up to " +
                      std::to_string(dataset->num_classes() - 1) + " (the first at index " + std::to_string(first) +
                      "); fix those labels, or set num_classes = " + std::to_string(dataset->num_classes()) +
                      " if the data has that many classes");
  }
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

void remove_stale_files(const TrainConfig& cfg) {
  for (const fs::path dir : {fs::path(cfg.run_dir), fs::path(cfg.run_dir) / "checkpoints", fs::path(cfg.run_dir) / "samples"})
    for (const auto& f : remove_stale_temporaries(dir.string()))
      std::cerr << "train: removed " << f << " (left by a process that no longer runs)\n";
}

EvalSettings eval_settings(const TrainConfig& c) {
  EvalSettings s;
  s.classifier = c.eval_every > 0 ? c.classifier : "";
  s.dataset = c.dataset;
  s.resolution = c.model.resolution;
  s.image_channels = c.model.image_channels;
  s.n = c.eval_n;
  s.standing_stats = c.standing_stats;
  s.standing_batch_size = c.batch_size;
  s.seed = c.seed;
  return s;
}

void prepare_run_evaluation(const TrainConfig& cfg, torch::Device device) {
  const EvalSettings s = eval_settings(cfg);
  if (s.classifier.empty()) return;
  if (!fs::exists(s.classifier))
    std::cerr << "train: evaluation (eval_every = " << cfg.eval_every << ") needs the classifier " << s.classifier
              << ", which does not exist: training it now (minutes; make it beforehand with "
              << "`hamgan train-classifier --out " << s.classifier << "`, or set eval_every = 0)\n";
  ScopedRngRestore keep_rng;  // the run's random streams do not depend on whether the files were ready
  prepare_evaluation(s, device);
}

void resume_state(TrainState& state, const TrainConfig& cfg, const std::string& checkpoint) {
  state.load(checkpoint);
  check_resume_config(cfg, state.config_text, state.step);
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
