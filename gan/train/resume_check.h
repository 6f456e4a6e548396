#pragma once
// What a resume may change. A run is reproducible from its config.toml only if
// the keys that shape its random streams and updates (seed, batch_size, data,
// loss, Adam's betas, the EMA) stay what they were; those are refused on
// --resume unless --allow_config_change, and every change that is accepted
// (learning rates, intervals, or a forced one) is appended to
// <run>/config_changes.log with its step, so the run directory tells the truth.
// Each train key's row says which it is (FieldSpec::resume in train_config_fields()).
#include <string>
#include <vector>

#include "gan/train/train_config.h"

namespace hamgan {

struct ConfigChange {
  std::string key, before, after;
  bool breaks_reproduction = false;
};

// The train keys whose values differ between the run's recorded config and `now`.
std::vector<ConfigChange> config_changes(const TrainConfig& recorded, const TrainConfig& now);

// Compares `cfg` with the checkpoint's recorded config text; throws ConfigError
// naming the first refused key (unless cfg.allow_config_change), otherwise
// returns the changes, to be recorded once the whole resume is accepted.
std::vector<ConfigChange> check_resume_config(const TrainConfig& cfg, const std::string& recorded_config_text);

// Appends `changes` to <run_dir>/config_changes.log at `step` and says so on stderr.
void record_config_changes(const std::string& run_dir, const std::vector<ConfigChange>& changes, int64_t step);

}  // namespace hamgan
