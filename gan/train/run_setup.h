#pragma once
// What train() does before its first step: decide between a fresh run and a
// resume, open the data, restore the state, and record the run's resolved
// config and provenance in its directory.
#include <memory>
#include <string>

#include "data/dataset.h"
#include "data/loader.h"
#include "gan/eval/evaluation.h"
#include "gan/train/precision.h"
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

// `shard` of `shards` ranks: each reads its slice of every global batch.
LoaderOptions loader_options(const TrainConfig& cfg, int64_t shard = 0, int64_t shards = 1);

// Removes the temporaries that killed runs left in the run and checkpoint directories.
void remove_stale_files(const TrainConfig& cfg);

// What evaluation during training uses, from the run's config.
EvalSettings eval_settings(const TrainConfig& cfg);
// With evaluation on, opens the classifier and the real images now (training
// the missing Fashion-MNIST classifier first, with a line saying so), so that a
// bad file ends the run at its start rather than after hours of training.
void prepare_run_evaluation(const TrainConfig& cfg, torch::Device device);

// Loads `checkpoint` into `state` (configured learning rates win) and says so on stderr.
void resume_state(TrainState& state, const TrainConfig& cfg, const std::string& checkpoint);

// A run's precision set up: the math mode, and the memory format of G, D and G_ema.
void apply_precision(const Precision& p, TrainState& state);

// <run>/config.toml (the resolved config) and <run>/provenance.json.
void write_run_files(const TrainConfig& cfg, const TrainState& state, bool resumed, int64_t world_size = 1);

}  // namespace hamgan
