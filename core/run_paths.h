#pragma once
// The layout of a run directory, written down once:
//   <run>/config.toml        the resolved config
//   <run>/provenance.json    where and how the run was made
//   <run>/metrics.jsonl      one row per log interval and evaluation
//   <run>/samples/           sample grids (PNG)
//   <run>/checkpoints/       step_<step>.pt files, `latest`, best.pt
#include <filesystem>
#include <string>

namespace hamgan {

inline constexpr const char* kCheckpointsDirName = "checkpoints";
inline constexpr const char* kLatestFileName = "latest";  // in checkpoints/: names the newest good step file
inline constexpr const char* kBestCheckpointName = "best.pt";  // in checkpoints/, never pruned

struct RunPaths {
  explicit RunPaths(std::filesystem::path run_dir) : dir(std::move(run_dir)) {}
  std::filesystem::path dir;
  std::string checkpoints() const { return (dir / kCheckpointsDirName).string(); }
  std::string best_checkpoint() const { return (dir / kCheckpointsDirName / kBestCheckpointName).string(); }
  std::string samples() const { return (dir / "samples").string(); }
  std::string sample_file(const std::string& name) const { return (dir / "samples" / name).string(); }
  std::string metrics_log() const { return (dir / "metrics.jsonl").string(); }
  std::string config() const { return (dir / "config.toml").string(); }
  std::string provenance() const { return (dir / "provenance.json").string(); }
};

}  // namespace hamgan
