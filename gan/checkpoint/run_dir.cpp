#include "gan/checkpoint/run_dir.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "gan/checkpoint/archive.h"
#include "core/run_paths.h"

namespace hamgan {
namespace fs = std::filesystem;

std::string checkpoint_file_name(int64_t step) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "step_%07lld.pt", static_cast<long long>(step));
  return buf;
}

std::vector<std::string> step_checkpoints(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("step_", 0) == 0 && e.path().extension() == ".pt" && e.is_regular_file()) files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());  // zero-padded steps sort by name
  return files;
}

bool checkpoint_is_loadable(const std::string& path) {
  if (!checkpoint_is_complete(path)) return false;
  try {
    CheckpointReader reader(path);
    return true;
  } catch (const CheckpointError&) {
    return false;
  }
}

std::string latest_checkpoint(const std::string& dir) {
  std::string named;
  {
    std::ifstream in(fs::path(dir) / kLatestFileName);
    if (in) std::getline(in, named);
  }
  const std::string pointed = named.empty() ? "" : (fs::path(dir) / named).string();
  if (!pointed.empty() && checkpoint_is_loadable(pointed)) return pointed;
  const auto files = step_checkpoints(dir);
  for (auto it = files.rbegin(); it != files.rend(); ++it) {
    if (!checkpoint_is_loadable(*it)) continue;
    if (!pointed.empty())
      std::cerr << "hamgan: warning: " << pointed << " (named by " << (fs::path(dir) / kLatestFileName).string()
                << ") is missing, incomplete, damaged or unreadable; using " << *it << "\n";
    return *it;
  }
  return "";
}

void mark_latest_checkpoint(const std::string& dir, const std::string& file_name, int64_t keep,
                            const std::string& protect) {
  write_text_atomically((fs::path(dir) / kLatestFileName).string(), file_name + "\n");
  const auto files = step_checkpoints(dir);
  const int64_t excess = static_cast<int64_t>(files.size()) - std::max<int64_t>(keep, 1);
  for (int64_t i = 0; i < excess; ++i) {
    const auto name = fs::path(files[static_cast<size_t>(i)]).filename();
    if (name == file_name || (!protect.empty() && name == protect)) continue;
    std::error_code ec;
    fs::remove(files[static_cast<size_t>(i)], ec);
    fs::remove(completeness_marker_path(files[static_cast<size_t>(i)]), ec);
  }
}

bool checkpoint_is_damaged(const std::string& path) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return false;
  if (!checkpoint_is_complete(path)) return true;
  try {
    verify_checkpoint_digest(path);
    // A size-only marker passes the digest check; the file itself says whether it was written with a digest.
    if (marker_holds_size_only(path)) CheckpointReader reader(path);
    return false;
  } catch (const CheckpointError&) {
    return true;
  }
}

std::string resolve_checkpoint_path(const std::string& file_or_dir, const std::string& which) {
  if (which == "best") {
    if (!fs::is_directory(file_or_dir))
      throw CheckpointError(file_or_dir + ": --which best needs a run directory (or its checkpoints/), not a file");
    for (const auto& d : {fs::path(RunPaths(file_or_dir).checkpoints()), fs::path(file_or_dir)}) {
      const std::string p = (d / kBestCheckpointName).string();
      if (checkpoint_is_damaged(p))
        throw CheckpointError(p + ": the best checkpoint is incomplete or damaged (its size or SHA-256 differs "
                              "from its completeness marker); use --which latest, or a step_*.pt file");
      if (checkpoint_is_complete(p)) return p;
    }
    throw CheckpointError(file_or_dir + ": no best checkpoint (checkpoints/best.pt is kept by runs that evaluate: "
                          "eval_every > 0 with a best_metric); use --which latest");
  }
  if (which != "latest") throw ConfigError("--which " + which + ": must be best or latest");
  if (fs::is_regular_file(file_or_dir)) return file_or_dir;
  if (fs::is_directory(file_or_dir)) {
    for (const auto& d : {fs::path(RunPaths(file_or_dir).checkpoints()), fs::path(file_or_dir)}) {
      const std::string p = latest_checkpoint(d.string());
      if (!p.empty()) return p;
    }
    for (const auto& d : {fs::path(RunPaths(file_or_dir).checkpoints()), fs::path(file_or_dir)}) {
      const std::string summary = unloadable_checkpoints_summary(d.string());
      if (!summary.empty())
        throw CheckpointError(d.string() + " holds " + summary + "; name a good copy (e.g. " +
                              (d / kBestCheckpointName).string() + " with --which best, or a file from a backup)");
    }
    throw CheckpointError(file_or_dir + ": no good checkpoint in this directory (expected checkpoints/step_*.pt)");
  }
  throw CheckpointError(file_or_dir + ": no such checkpoint file or run directory");
}

}  // namespace hamgan
