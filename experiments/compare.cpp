#include "experiments/compare.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <set>
#include <sstream>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "core/run_paths.h"
#include "experiments/child_process.h"
#include "experiments/compare_report.h"
#include "experiments/run_result.h"
#include "gan/checkpoint/checkpoint.h"
#include "gan/report/run_log.h"
#include "gan/sample/sampler.h"

namespace hamgan {
namespace fs = std::filesystem;

namespace {

std::string run_name(const std::string& config) { return fs::path(config).stem().string(); }

std::string run_dir_for(const CompareConfig& c, const std::string& name, uint64_t seed) {
  return (fs::path(c.out) / "runs" / (name + "_seed" + std::to_string(seed))).string();
}

}  // namespace

std::string run_compare(const CompareConfig& c) {
  if (c.configs.empty()) throw ConfigError("compare: --configs needs at least one experiment file");
  if (c.out.empty()) throw ConfigError("compare: --out is required (e.g. results/fmnist)");
  if (c.seeds < 1) throw ConfigError("compare: --seeds must be >= 1");
  std::set<std::string> seen;
  for (const auto& cfg : c.configs) {
    if (!fs::is_regular_file(cfg)) throw ConfigError("compare: " + cfg + ": no such experiment file");
    if (!seen.insert(run_name(cfg)).second)
      throw ConfigError("compare: two configs are named " + run_name(cfg) + "; rename one (run dirs are named by file)");
  }
  std::vector<RunResult> results;
  const int64_t total = static_cast<int64_t>(c.configs.size()) * c.seeds;
  int64_t k = 0;
  for (const auto& cfg : c.configs) {
    for (uint64_t seed = 0; seed < static_cast<uint64_t>(c.seeds); ++seed) {
      const std::string name = run_name(cfg), dir = run_dir_for(c, name, seed);
      ++k;
      const auto marker = read_run_marker(dir);
      const bool finished = !marker.empty() && (c.steps == 0 || marker.at("steps") >= static_cast<double>(c.steps));
      if (!c.report_only && !finished) {
        fs::create_directories(dir);
        const bool resume = !latest_checkpoint(RunPaths(dir).checkpoints()).empty();
        std::cerr << "compare [" << k << "/" << total << "] " << name << " seed " << seed
                  << (resume ? " (resuming)" : "") << " → " << dir << "\n";
        std::vector<std::string> args = {"train", "--config", cfg, "--run_dir", dir, "--seed", std::to_string(seed)};
        if (c.steps > 0) args.insert(args.end(), {"--steps", std::to_string(c.steps)});
        if (c.eval_n > 0) args.insert(args.end(), {"--eval_n", std::to_string(c.eval_n)});
        if (c.eval_every >= 0) args.insert(args.end(), {"--eval_every", std::to_string(c.eval_every)});
        else if (c.steps > 0) args.insert(args.end(), {"--eval_every", std::to_string(std::max<int64_t>(1, c.steps / 5))});
        if (resume) args.push_back("--resume");
        args.insert(args.end(), c.train_args.begin(), c.train_args.end());
        const ChildResult child = run_child(c.hamgan_exe, args, (fs::path(dir) / "train.log").string());
        if (child.exit_code != 0)
          throw Error("compare: training " + name + " seed " + std::to_string(seed) + " failed (exit " +
                      std::to_string(child.exit_code) + "); see " + dir + "/train.log, fix, then rerun to resume");
        const std::string ckpt = latest_checkpoint(RunPaths(dir).checkpoints());
        const int64_t steps = load_checkpoint(ckpt, CheckpointRefs{}, /*restore_rng=*/false);
        std::ostringstream m;
        m << "{\"steps\": " << steps << ", \"peak_rss_mb\": " << json_number(child.peak_rss_mb)
          << ", \"wall_s\": " << json_number(child.wall_s) << "}\n";
        write_text_atomically((fs::path(dir) / kRunMarker).string(), m.str());
      } else {
        std::cerr << "compare [" << k << "/" << total << "] " << name << " seed " << seed << ": finished, skipped\n";
      }
      results.push_back(read_run_result(name, seed, dir, c.module_batch));
    }
  }
  if (const std::string conflict = protocol_conflict(results); !conflict.empty())
    throw ConfigError("compare: the runs' FIDs were measured under different protocols, which one table cannot "
                      "hold: " + conflict + "; evaluate them alike (eval_labels, eval_n, weights) or compare them apart");
  const std::string md = write_compare_report(results, c.out);
  // A grid of final samples per config (EMA weights, class-balanced, fixed seed).
  for (const auto& cfg : c.configs) {
    SampleConfig s;
    s.checkpoint = run_dir_for(c, run_name(cfg), 0);
    s.out = (fs::path(c.out) / ("samples_" + run_name(cfg) + ".png")).string();
    s.n = 100;
    s.progress = false;
    s.device = "cpu";
    run_sampling(s);
  }
  std::cout << md;
  return (fs::path(c.out) / "results.md").string();
}

}  // namespace hamgan
