#include "gan/train/owed_hooks.h"

#include <cstdio>
#include <filesystem>

#include "core/errors.h"
#include "gan/report/run_log.h"

namespace hamgan {
namespace {

bool grid_written(const RunPaths& paths, int64_t step) {
  char name[40];
  std::snprintf(name, sizeof(name), "step_%07lld.png", static_cast<long long>(step));
  std::error_code ec;
  return std::filesystem::exists(paths.sample_file(name), ec);
}

// An evaluation row carries its protocol as text; log rows carry numbers only.
bool evaluation_logged(const RunPaths& paths, int64_t step) {
  std::vector<std::map<std::string, double>> rows;
  std::vector<std::map<std::string, std::string>> texts;
  try {
    rows = read_metrics(paths.metrics_log());
    texts = read_metric_texts(paths.metrics_log());
  } catch (const DataError&) {
    return false;  // no log, or an unreadable one: evaluating again costs time, not results
  }
  for (size_t i = 0; i < rows.size() && i < texts.size(); ++i) {
    const auto at = rows[i].find("step");
    if (at != rows[i].end() && static_cast<int64_t>(at->second) == step && texts[i].count("protocol")) return true;
  }
  return false;
}

}  // namespace

TrainHooks owed_final_hooks(const HookSettings& s, std::shared_ptr<Evaluator> evaluator, const RunPaths& paths,
                            int64_t step, Communicator& comm) {
  const bool main = comm.rank() == 0;
  TrainHooks hooks;
  if (main && !grid_written(paths, step)) hooks.push_back(make_grid_hook(s.grid));  // rank 0 draws grids alone
  const bool eval_owed = evaluator && s.eval.every > 0 &&
                         comm.any(main && !evaluation_logged(paths, step), "agreeing on the owed evaluation");
  if (eval_owed) hooks.push_back(make_eval_hook(s.eval, std::move(evaluator)));
  return hooks;
}

}  // namespace hamgan
