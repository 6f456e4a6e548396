#include "experiments/run_result.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "core/errors.h"
#include "core/run_paths.h"
#include "gan/checkpoint/checkpoint.h"
#include "gan/model/model_info.h"
#include "gan/report/run_log.h"
#include "modules/bench_modules.h"

namespace hamgan {
namespace fs = std::filesystem;

namespace {

// Median forward+backward time of G's context block at its place in G.
double module_time_ms(const ModelConfig& model, const PartInfo& context, int64_t batch) {
  if (model.g_block.name == "none" || context.shape.size() != 3) return 0.0;
  ModuleBenchConfig b;
  b.shape = {batch, context.shape[0], context.shape[1], context.shape[2]};
  b.blocks = {model.g_block.name};
  if (model.g_block.name == "ham") b.ham = parse_ham_options(model.g_context());
  b.warmup = 1;
  b.repeats = 5;
  std::ostringstream quiet;
  const auto rows = bench_modules(b, quiet);
  return rows.empty() ? 0.0 : rows.front().train_ms;
}

}  // namespace

std::string final_fid_protocol(const std::string& log, const std::string& key) {
  if (key.empty()) return "";
  std::string found;
  for (const auto& row : read_metric_texts(log)) {
    const auto it = row.find("protocol");
    if (it == row.end()) continue;
    const std::string& text = it->second;  // "metric: how; metric: how"
    const size_t at = text.find(key + ": ");
    if (at == std::string::npos) continue;
    const size_t end = text.find("; ", at);
    const auto labels = row.find("labels");
    found = "labels " + (labels == row.end() ? std::string("balanced") : labels->second) + "; " +
            text.substr(at, end == std::string::npos ? std::string::npos : end - at);
  }
  return found;
}

std::string protocol_conflict(const std::vector<RunResult>& runs) {
  const RunResult* first = nullptr;
  for (const auto& r : runs) {
    if (r.fid_protocol.empty()) continue;
    if (!first) first = &r;
    else if (r.fid_protocol != first->fid_protocol)
      return first->name + " seed " + std::to_string(first->seed) + " (" + first->fid_protocol + ") and " + r.name +
             " seed " + std::to_string(r.seed) + " (" + r.fid_protocol + ")";
  }
  return "";
}

// Read back with read_metrics: the marker is one JSON row.
std::map<std::string, double> read_run_marker(const std::string& run_dir) {
  const std::string path = (fs::path(run_dir) / kRunMarker).string();
  if (!fs::exists(path)) return {};
  const auto rows = read_metrics(path);
  return rows.empty() ? std::map<std::string, double>{} : rows.back();
}

SeedSummary summarize(const std::vector<double>& values, bool lower_is_better) {
  SeedSummary s;
  std::vector<double> v;
  for (double x : values)
    if (x >= 0 && std::isfinite(x)) v.push_back(x);
  s.n = static_cast<int64_t>(v.size());
  if (v.empty()) return s;
  s.best = lower_is_better ? *std::min_element(v.begin(), v.end()) : *std::max_element(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.std = v.size() > 1 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) : 0.0;  // sample std (n − 1)
  return s;
}

RunResult read_run_result(const std::string& name, uint64_t seed, const std::string& run_dir, int64_t module_batch) {
  RunResult r;
  r.name = name, r.seed = seed, r.run_dir = run_dir;
  const auto marker = read_run_marker(run_dir);
  if (marker.count("peak_rss_mb")) r.peak_rss_mb = marker.at("peak_rss_mb");
  const auto rows = read_metrics(RunPaths(run_dir).metrics_log());
  double its_sum = 0;
  int64_t its_n = 0;
  for (const auto& row : rows) {
    const int64_t step = row.count("step") ? static_cast<int64_t>(row.at("step")) : 0;
    r.steps = std::max(r.steps, step);
    if (auto it = row.find("it_per_s"); it != row.end() && std::isfinite(it->second)) its_sum += it->second, ++its_n;
    if (auto it = row.find("class_consistency"); it != row.end()) r.class_consistency = it->second;
    for (const auto& [key, value] : row) {
      // Prefer Inception FID when a run has both; classifier-feature FID otherwise.
      if (key.rfind("fid", 0) != 0) continue;
      if (!r.fid_key.empty() && r.fid_key != key && key != "fid_inception") continue;
      if (r.fid_key != key) r.fid_curve.clear();
      r.fid_key = key, r.fid = value;
      r.fid_curve.emplace_back(step, value);
    }
  }
  r.it_per_s = its_n ? its_sum / static_cast<double>(its_n) : 0.0;
  r.fid_protocol = final_fid_protocol(RunPaths(run_dir).metrics_log(), r.fid_key);
  const std::string ckpt = latest_checkpoint(RunPaths(run_dir).checkpoints());
  if (ckpt.empty()) throw DataError(run_dir + ": no checkpoint; the run did not finish (rerun hamgan compare to resume it)");
  const ModelConfig model = read_checkpoint_model_config(ckpt);
  const ModelInfo info = model_info(model);
  r.block = info.generator.context;
  r.g_params = info.generator.total, r.d_params = info.discriminator.total;
  for (const auto& part : info.generator.parts)
    if (part.name == "context") r.module_ms = module_time_ms(model, part, module_batch);
  return r;
}

}  // namespace hamgan
