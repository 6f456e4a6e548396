// Run directories whose checkpoints all fail to load (declared in gan/checkpoint/run_dir.h).
#include "gan/checkpoint/run_dir.h"

#include <filesystem>
#include <iostream>

#include "core/errors.h"
#include "gan/checkpoint/archive.h"

namespace hamgan {
namespace fs = std::filesystem;
namespace {

std::string names_of(const std::vector<std::string>& files) {
  constexpr size_t kNamed = 4;
  std::string out;
  for (size_t i = 0; i < files.size() && i < kNamed; ++i)
    out += (i ? ", " : "") + fs::path(files[i]).filename().string();
  if (files.size() > kNamed) out += " and " + std::to_string(files.size() - kNamed) + " more";
  return out;
}

int64_t step_of(const std::string& file) {
  CheckpointReader reader(file);
  return reader.get_int("step");
}

}  // namespace

std::vector<std::string> unloadable_checkpoints(const std::string& dir) {
  std::vector<std::string> bad;
  for (const auto& f : step_checkpoints(dir))
    if (!checkpoint_is_loadable(f)) bad.push_back(f);
  return bad;
}

std::string unloadable_checkpoints_summary(const std::string& dir) {
  const auto all = step_checkpoints(dir);
  const auto bad = unloadable_checkpoints(dir);
  if (bad.empty() || bad.size() != all.size()) return "";
  return std::to_string(bad.size()) + " checkpoint" + (bad.size() == 1 ? "" : "s") + ", none loadable (" +
         names_of(bad) + ": incomplete or damaged)";
}

void refuse_unloadable_checkpoints(const std::string& dir) {
  const std::string summary = unloadable_checkpoints_summary(dir);
  if (summary.empty()) return;
  throw ConfigError("run_dir: " + dir + " holds " + summary + "; nothing in it was changed. Continue from a good " +
                    "copy with --resume FILE (e.g. " + (fs::path(dir) / kBestCheckpointName).string() +
                    " if it is there, or a copy from a backup), or start in another --run_dir");
}

std::string named_checkpoint_to_resume(const std::string& file, const std::string& dir) {
  if (!fs::is_regular_file(file))
    throw ConfigError("resume: " + file + ": no such checkpoint file (--resume takes false, true, auto or a file)");
  const int64_t step = step_of(file);  // throws CheckpointError naming the file when it does not load
  const std::string own = fs::weakly_canonical(file).string();
  // One open per step file (a checkpoint can be gigabytes): its step, or the fact that it does not load.
  std::vector<std::string> damaged;
  for (const auto& f : step_checkpoints(dir)) {
    if (fs::weakly_canonical(f).string() == own) continue;
    int64_t later = -1;
    try {
      if (checkpoint_is_complete(f)) later = step_of(f);
    } catch (const CheckpointError&) {
    }
    if (later < 0) {
      damaged.push_back(f);
    } else if (later > step) {
      throw ConfigError("resume: " + file + " is at step " + std::to_string(step) + " but " + f +
                        " is later and loads, and the run would write over it; resume with --resume (the newest), "
                        "or move the later checkpoints away first");
    }
  }
  for (const auto& f : damaged) {
    const std::string aside = f + ".damaged";
    std::error_code ec;
    fs::rename(f, aside, ec);
    if (ec) throw ConfigError("resume: cannot set the damaged " + f + " aside (" + ec.message() + ")");
    fs::rename(completeness_marker_path(f), completeness_marker_path(aside), ec);
    std::cerr << "train: set the damaged " << f << " aside as " << aside << " (kept, never pruned)\n";
  }
  return file;
}

}  // namespace hamgan
