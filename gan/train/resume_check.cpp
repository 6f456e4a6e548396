#include "gan/train/resume_check.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "core/config_file.h"
#include "core/errors.h"

namespace hamgan {
namespace {

bool listed(const std::vector<std::string>& keys, const std::string& key) {
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

}  // namespace

std::vector<ConfigChange> config_changes(const TrainConfig& recorded, const TrainConfig& now) {
  std::vector<ConfigChange> changes;
  for (const auto& f : train_config_fields()) {
    if (f.spec.resume == ResumeRule::kNotCompared) continue;
    const std::string before = f.get(recorded), after = f.get(now);
    // A key whose rule was never declared is held to the strict rule.
    const bool must_match = f.spec.resume != ResumeRule::kMayChange;
    if (before != after) changes.push_back({f.spec.key, before, after, must_match});
  }
  return changes;
}

std::vector<ConfigChange> check_resume_config(const TrainConfig& cfg, const std::string& recorded_config_text) {
  TrainConfig recorded;
  try {
    recorded = train_config_from_text(recorded_config_text);
  } catch (const ConfigError& e) {
    std::cerr << "hamgan: warning: resume: the checkpoint's recorded config does not read back (" << e.what()
              << "); resumed settings are not compared\n";
    return {};
  }
  // Only keys the run recorded can be compared (a hand-made or older text may hold a few).
  std::vector<std::string> recorded_keys;
  for (const auto& item : parse_config_text(recorded_config_text, "resume")) recorded_keys.push_back(item.key);
  std::vector<ConfigChange> changes;
  for (auto& c : config_changes(recorded, cfg))
    if (listed(recorded_keys, c.key)) changes.push_back(std::move(c));
  if (!cfg.allow_config_change)
    for (const auto& c : changes)
      if (c.breaks_reproduction)
        throw ConfigError("resume: " + c.key + " = " + c.after + " differs from the run's " + c.key + " = " + c.before +
                          ", so the run would no longer reproduce from its config; drop the override, or pass "
                          "--allow_config_change to continue anyway (recorded in config_changes.log)");
  return changes;
}

void record_config_changes(const std::string& run_dir, const std::vector<ConfigChange>& changes, int64_t step) {
  if (changes.empty()) return;
  const std::string log_path = (std::filesystem::path(run_dir) / "config_changes.log").string();
  std::ofstream log(log_path, std::ios::app);
  for (const auto& c : changes) {
    log << "step " << step << ": " << c.key << " " << c.before << " -> " << c.after
        << (c.breaks_reproduction ? " (forced with --allow_config_change)" : "") << "\n";
    std::cerr << "train: resume changes " << c.key << " from " << c.before << " to " << c.after << "\n";
  }
  if (!log.flush()) throw Error(log_path + ": cannot write (disk full or no permission?)");
}

}  // namespace hamgan
