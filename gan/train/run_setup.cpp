#include "gan/train/run_setup.h"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "core/atomic_file.h"
#include "core/device.h"
#include "core/errors.h"
#include "data/subset_dataset.h"
#include "gan/checkpoint/archive.h"
#include "gan/checkpoint/run_dir.h"
#include "gan/eval/eval_extractors.h"
#include "gan/report/provenance.h"
#include "gan/step/precision.h"
#include "gan/train/resume_check.h"
#include "core/rng.h"
#include "data/dataset_checks.h"

namespace hamgan {
namespace fs = std::filesystem;

std::string checkpoint_to_resume(const TrainConfig& cfg) {
  const RunPaths run(cfg.run_dir);
  const std::string ckdir = run.checkpoints();
  std::error_code ec;
  if (fs::exists(ckdir, ec) && !fs::is_directory(ckdir, ec))
    throw ConfigError("run_dir: " + ckdir + " is a file, not the run's checkpoint directory; move it away or choose "
                      "another --run_dir");
  if (!cfg.resume_file.empty()) return named_checkpoint_to_resume(cfg.resume_file, ckdir);
  const std::string found = latest_checkpoint(ckdir);
  // Checkpoints that are there but none loads: starting over would overwrite and prune them.
  if (found.empty()) refuse_unloadable_checkpoints(ckdir);
  switch (cfg.resume) {
    case ResumeMode::kNo:
      if (!found.empty())
        throw ConfigError("run_dir: " + run.dir.string() + " already holds checkpoints (" + found +
                          "); pass --resume to continue that run or choose another --run-dir");
      return "";
    case ResumeMode::kYes:
      if (found.empty())
        throw ConfigError("resume: " + ckdir + " has no checkpoint to resume from; start without --resume");
      return found;
    case ResumeMode::kAuto:
      if (found.empty()) std::cerr << "train: resume = auto: no checkpoint in " << ckdir << "; starting fresh\n";
      return found;
  }
  return "";
}

std::shared_ptr<Dataset> open_training_data(const TrainConfig& cfg) {
  DatasetSpec spec;
  spec.path = cfg.dataset;
  spec.split = dataset_split_names().name(cfg.dataset_split);  // the same names as DatasetSpec::split
  spec.size = cfg.model.resolution;
  spec.channels = cfg.model.image_channels;
  auto dataset = open_dataset(spec);
  // Checked here, not found at the first batch: a size the format keeps (HDF5), a stray label.
  check_dataset_fits(*dataset, cfg.model.resolution, cfg.model.image_channels, cfg.model.num_classes, cfg.dataset);
  return dataset_fraction(std::move(dataset), cfg.dataset_fraction);
}

LoaderOptions loader_options(const TrainConfig& cfg, torch::Device device, int64_t shard, int64_t shards) {
  LoaderOptions lo;
  lo.shard = shard;
  lo.shards = shards;
  lo.batch_size = cfg.batch_size;
  lo.seed = cfg.seed;
  lo.flip = cfg.flip;
  lo.workers = cfg.workers;
  lo.shuffle_window = cfg.shuffle_window;
  // Page-locked batches let the step's host→device copy run without blocking (CUDA only).
  lo.pin_memory = device.is_cuda();
  return lo;
}

LoaderOptions loader_options(const TrainConfig& cfg, int64_t shard, int64_t shards) {
  return loader_options(cfg, resolve_device(cfg.device), shard, shards);
}

void remove_stale_files(const RunPaths& paths) {
  for (const std::string& dir : {paths.dir.string(), paths.checkpoints(), paths.samples()})
    for (const auto& f : remove_stale_temporaries(dir))
      std::cerr << "train: removed " << f << " (left by a process that no longer runs)\n";
}

EvalSettings eval_settings(const TrainConfig& c) {
  EvalSettings s;
  s.metrics = evaluated_metrics(c);
  s.classifier = c.classifier;
  s.inception = c.inception;
  s.reference = c.eval_reference;
  s.dinov2 = c.dinov2;
  s.dinov2_resize = c.dinov2_resize;
  s.dinov2_reference = c.eval_reference_dinov2;
  s.labels = c.eval_labels;
  s.dataset = c.dataset;
  s.resolution = c.model.resolution;
  s.image_channels = c.model.image_channels;
  s.num_classes = c.model.num_classes;
  s.n = c.eval_n;
  s.standing_stats = c.standing_stats;
  s.seed = c.seed;
  return s;
}

namespace {

std::shared_ptr<Evaluator> open_evaluator(const EvalSettings& s, int64_t eval_every, torch::Device device) {
  if (s.metrics.empty()) return nullptr;
  const bool classifier = std::any_of(s.metrics.begin(), s.metrics.end(), uses_classifier);
  check_eval_classifier(s);  // a classifier that does not fit is refused before a missing one is trained
  if (classifier && !fs::exists(s.classifier))
    std::cerr << "train: evaluation (eval_every = " << eval_every << ") needs the classifier " << s.classifier
              << ", which does not exist: training it now (minutes; make it beforehand with "
              << "`hamgan train-classifier --out " << s.classifier << "`, or set eval_every = 0)\n";
  ScopedRngRestore keep_rng;  // the run's random streams do not depend on whether the files were ready
  return std::make_shared<Evaluator>(s, device);
}

}  // namespace

std::shared_ptr<Evaluator> open_run_evaluator(const EvalSettings& s, int64_t eval_every, torch::Device device,
                                              Communicator& ranks) {
  const bool first = ranks.rank() == 0;
  std::shared_ptr<Evaluator> evaluator;
  if (first) evaluator = open_evaluator(s, eval_every, device);
  ranks.barrier("waiting for rank 0 to prepare the evaluation");
  if (!first) evaluator = open_evaluator(s, eval_every, device);
  return evaluator;
}

namespace {

// The evaluation of the checkpoint's own step runs after that checkpoint is
// written, so a best score found then is only in best.pt: take it from there,
// or the resumed run would replace best.pt with a worse state.
void adopt_kept_best(TrainState& state, const TrainConfig& cfg) {
  const std::string best = RunPaths(cfg.run_dir).best_checkpoint();
  if (checkpoint_is_damaged(best) && state.rank == 0)
    std::cerr << "train: warning: " << best << " is incomplete or damaged; the best score restarts from this run "
              << "and its next best evaluation replaces the file\n";
  if (!checkpoint_is_complete(best)) return;
  try {
    CheckpointReader r(best);
    const BestScore kept{r.get_string("best_metric"), r.get_double("best_value"), r.get_int("best_step")};
    if (kept.step > state.best.step && kept.step <= state.step) state.best = kept;
  } catch (const Error& e) {
    if (state.rank == 0) std::cerr << "train: warning: " << e.what() << " (the best score restarts from this run)\n";
  }
}

}  // namespace

std::vector<ConfigChange> resume_state(TrainState& state, const TrainConfig& cfg, const std::string& checkpoint) {
  state.load(checkpoint);
  std::vector<ConfigChange> changes = check_resume_config(cfg, state.config_text);
  state.config_text = cfg.config_text;  // the resumed run's own resolved config goes into its next checkpoints
  state.set_learning_rates(cfg.g_lr, cfg.d_lr);  // an override on resume takes effect
  adopt_kept_best(state, cfg);
  if (state.rank != 0) return changes;
  std::cerr << "train: resumed from step " << state.step << " (" << checkpoint << ")\n";
  if (state.loaded_world_size != state.world_size)
    std::cerr << "train: warning: the checkpoint was written by " << state.loaded_world_size << " rank(s), this run has "
              << state.world_size << ": each rank's data shard and noise stream change, so the run continues "
              << "correctly but not as the original would have\n";
  return changes;
}

void apply_precision(const Precision& p, TrainState& state) {
  apply_math_mode(p);
  apply_memory_format(*state.g, p);
  apply_memory_format(*state.d, p);
  if (state.g_ema) apply_memory_format(*state.g_ema, p);
}

void write_run_files(const RunPaths& paths, const std::string& config_text, const TrainState& state,
                     const Precision& precision, bool resumed, int64_t world_size) {
  write_text_atomically(paths.config(), config_text);
  Provenance p;
  p.run_id = state.run_id;
  p.device = state.device;
  p.start_step = resumed ? state.step : 0;
  p.world_size = world_size;
  p.precision = precision.name();
  write_provenance(paths.dir.string(), p);
}

}  // namespace hamgan
