#pragma once
// The pieces open_run (gan/train/open_run.h) assembles before a run's first
// step: decide between a fresh run and a resume, open the data and the
// evaluation, restore the state, and record the run's resolved config and
// provenance in its directory.
#include <memory>
#include <string>

#include "core/distributed/communicator.h"
#include "core/run_paths.h"
#include "data/dataset.h"
#include "data/loader.h"
#include "gan/eval/evaluation.h"
#include "gan/step/precision.h"
#include "gan/train/resume_check.h"
#include "gan/train/train_config.h"
#include "gan/train/train_state.h"

namespace hamgan {

// The checkpoint to resume from, or "" for a fresh run. Throws ConfigError when
// the run directory and cfg.resume disagree (checkpoints without --resume, or
// --resume without checkpoints).
std::string checkpoint_to_resume(const TrainConfig& cfg);

// The training split at the model's resolution and channels; data that does not
// fit the model (data/dataset_checks.h) is a DataError naming the fix.
std::shared_ptr<Dataset> open_training_data(const TrainConfig& cfg);

// `shard` of `shards` ranks: each reads its slice of every global batch; batches
// are page-locked for a CUDA `device` (the host→device copy then runs without blocking).
LoaderOptions loader_options(const TrainConfig& cfg, torch::Device device, int64_t shard = 0, int64_t shards = 1);
// The same on the device cfg.device names.
LoaderOptions loader_options(const TrainConfig& cfg, int64_t shard = 0, int64_t shards = 1);

// Removes the temporaries that killed runs left in the run, checkpoint and sample directories.
void remove_stale_files(const RunPaths& paths);

// What evaluation during training uses, from the run's config.
EvalSettings eval_settings(const TrainConfig& cfg);
// With evaluation on (some metric in `s`), the run's evaluator: the classifier
// and the real images opened now (training the missing Fashion-MNIST classifier
// first, with a line saying so), so that a bad file ends the run at its start
// rather than after hours of training; rank 0 first, so that a missing
// classifier is trained once while the others wait. Null without metrics.
std::shared_ptr<Evaluator> open_run_evaluator(const EvalSettings& s, int64_t eval_every, torch::Device device,
                                              Communicator& ranks);

// Loads `checkpoint` into `state` (configured learning rates win) and says so on stderr; returns the
// config changes it accepted, to be recorded (record_config_changes) once the whole resume is.
std::vector<ConfigChange> resume_state(TrainState& state, const TrainConfig& cfg, const std::string& checkpoint);

// A run's precision set up: the math mode, and the memory format of G, D and G_ema.
void apply_precision(const Precision& p, TrainState& state);

// <run>/config.toml (the resolved `config_text`) and <run>/provenance.json.
void write_run_files(const RunPaths& paths, const std::string& config_text, const TrainState& state,
                     const Precision& precision, bool resumed, int64_t world_size);

}  // namespace hamgan
