#include "experiments/compare.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <torch/torch.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "data/image_io.h"
#include "experiments/compare_statistics.h"
#include "gan/checkpoint/checkpoint.h"
#include "gan/model/model_info.h"
#include "gan/report/plot.h"
#include "gan/report/run_log.h"
#include "gan/sample/sampler.h"
#include "modules/bench_modules.h"
#include "core/run_paths.h"

extern char** environ;

namespace hamgan {
namespace fs = std::filesystem;

namespace {

constexpr const char* kRunMarker = "compare_run.json";  // written when a run finished cleanly

std::string run_name(const std::string& config) { return fs::path(config).stem().string(); }

std::string run_dir_for(const CompareConfig& c, const std::string& name, uint64_t seed) {
  return (fs::path(c.out) / "runs" / (name + "_seed" + std::to_string(seed))).string();
}

// The marker of a finished run: flat JSON numbers, read back with read_metrics.
std::map<std::string, double> read_marker(const std::string& run_dir) {
  const std::string path = (fs::path(run_dir) / kRunMarker).string();
  if (!fs::exists(path)) return {};
  const auto rows = read_metrics(path);
  return rows.empty() ? std::map<std::string, double>{} : rows.back();
}

struct ChildResult {
  int exit_code = -1;
  double peak_rss_mb = 0, wall_s = 0;
};

// Runs `hamgan train ...` as a child process (its own address space, so its
// peak resident memory is the run's own), stdout appended to run_dir/train.log.
ChildResult run_child(const std::string& exe, const std::vector<std::string>& args, const std::string& log_path) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(exe.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  pid_t pid = 0;
  const auto start = std::chrono::steady_clock::now();
  const int rc = posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw ConfigError("compare: cannot start " + exe + " (" + std::strerror(rc) + ")");
  int status = 0;
  struct rusage usage {};
  while (wait4(pid, &status, 0, &usage) < 0) {
    if (errno != EINTR) throw Error("compare: lost the training process (" + std::string(std::strerror(errno)) + ")");
  }
  ChildResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.peak_rss_mb = static_cast<double>(usage.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

std::string fixed(double v, int digits) {
  if (v < 0 || !std::isfinite(v)) return "–";
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

std::string mean_std(const SeedSummary& s, int digits) {
  if (s.n == 0) return "–";
  return fixed(s.mean, digits) + (s.n > 1 ? " ± " + fixed(s.std, digits) : "");
}

// A number that may be negative (differences, interval bounds), with a true minus sign.
std::string signed_fixed(double v, int digits) {
  if (!std::isfinite(v)) return "–";
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << std::abs(v);
  return (v < 0 && s.str().find_first_not_of("0.") != std::string::npos ? "−" : "") + s.str();
}

std::string p_value(double p) { return p < 0.001 ? "p < 0.001" : "p = " + fixed(p, 3); }

// "12.000 [10.1, 13.9]", bold when best, "≈ " in front when within the noise of the best.
std::string fid_interval_cell(const ConfigFid& f) {
  if (f.interval.n == 0) return "–";
  std::string cell = f.best ? "**" + fixed(f.interval.mean, 3) + "**" : fixed(f.interval.mean, 3);
  cell += f.interval.has_interval()
              ? " [" + signed_fixed(f.interval.lower, 3) + ", " + signed_fixed(f.interval.upper, 3) + "]"
              : " (n=1)";
  return f.within_noise ? "≈ " + cell : cell;
}

// "a vs b: −1.310 FID (t = −3.20, df = 3.9), p = 0.034, Holm p = 0.067 *"
std::string pairwise_line(const PairwiseFid& p) {
  std::string line = "- " + p.a + " vs " + p.b + ": " + signed_fixed(p.test.difference, 3) + " FID";
  if (!p.test.tested) return line + ", not tested (needs 2 or more seeds on each side)";
  if (std::isfinite(p.test.df))
    line += " (t = " + signed_fixed(p.test.t, 2) + ", df = " + fixed(p.test.df, 1) + ")";
  line += ", " + p_value(p.test.p) + ", Holm " + p_value(p.holm_p);
  return p.larger_than_noise() ? line + " *" : line;
}

std::string csv_number(double v) {
  if (!std::isfinite(v)) return "";
  std::ostringstream s;
  s << std::setprecision(10) << v;
  return s.str();
}

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
  const auto marker = read_marker(run_dir);
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

std::string write_compare_report(const std::vector<RunResult>& runs, const std::string& out) {
  fs::create_directories(out);
  std::vector<std::string> names;  // in first-seen order
  for (const auto& r : runs)
    if (std::find(names.begin(), names.end(), r.name) == names.end()) names.push_back(r.name);

  std::vector<std::pair<std::string, std::vector<double>>> measured_fids;
  for (const auto& name : names) {
    measured_fids.push_back({name, {}});
    for (const auto& r : runs)
      if (r.name == name && r.fid >= 0 && std::isfinite(r.fid)) measured_fids.back().second.push_back(r.fid);
  }
  const FidComparison fid_stats = compare_fids(measured_fids);
  auto fid_of = [&](const std::string& name) -> const ConfigFid& {
    return *std::find_if(fid_stats.configs.begin(), fid_stats.configs.end(),
                         [&](const ConfigFid& f) { return f.name == name; });
  };

  std::ostringstream md, csv, pairs_csv;
  csv << "name,seed,block,g_params,d_params,module_train_ms,it_per_s,peak_rss_mb,steps,fid_key,fid,class_consistency,"
         "fid_mean,fid_ci95_low,fid_ci95_high,fid_vs_best,fid_p_vs_best\n";
  for (const auto& r : runs) {
    const ConfigFid& f = fid_of(r.name);
    csv << r.name << ',' << r.seed << ",\"" << r.block << "\"," << r.g_params << ',' << r.d_params << ','
        << r.module_ms << ',' << r.it_per_s << ',' << r.peak_rss_mb << ',' << r.steps << ',' << r.fid_key << ','
        << std::setprecision(10) << r.fid << ',' << r.class_consistency << std::setprecision(6) << ','
        // Config-level FID statistics, repeated on each of its runs; empty where undefined (n < 2).
        << (f.interval.n ? csv_number(f.interval.mean) : "") << ','
        << (f.interval.has_interval() ? csv_number(f.interval.lower) + ',' + csv_number(f.interval.upper) : ",")
        << ',' << (f.best ? "best" : f.within_noise ? "within_noise" : f.interval.n ? "worse" : "") << ','
        << (f.vs_best.tested ? csv_number(f.vs_best.p) : "") << '\n';
  }

  md << "| config | G block | G params | D params | module fwd+bwd ms | train it/s | peak RSS MB | steps | seeds |"
        " FID best | FID mean ± std | FID mean [95% CI] | class-consistency best | class-consistency mean ± std |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& name : names) {
    std::vector<double> fids, ccs, its, rss, mod;
    const RunResult* first = nullptr;
    int64_t steps = 0;
    for (const auto& r : runs) {
      if (r.name != name) continue;
      if (!first) first = &r;
      fids.push_back(r.fid), ccs.push_back(r.class_consistency), its.push_back(r.it_per_s);
      rss.push_back(r.peak_rss_mb), mod.push_back(r.module_ms);
      steps = std::max(steps, r.steps);
    }
    const SeedSummary f = summarize(fids, true), c = summarize(ccs, false);
    md << "| " << name << " | " << first->block << " | " << first->g_params << " | " << first->d_params << " | "
       << fixed(summarize(mod, true).mean, 2) << " | " << fixed(summarize(its, false).mean, 2) << " | "
       << fixed(summarize(rss, true).mean, 0) << " | " << steps << " | " << fids.size() << " | "
       << (f.n ? fixed(f.best, 3) : "–") << " | " << mean_std(f, 3) << " | " << fid_interval_cell(fid_of(name))
       << " | " << (c.n ? fixed(c.best, 3) : "–")
       << " | " << mean_std(c, 3) << " |\n";
  }
  std::string fid_key;
  for (const auto& r : runs)
    if (!r.fid_key.empty()) fid_key = r.fid_key;
  md << "\nFID: " << (fid_key.empty() ? "not measured" : "`" + fid_key + "`")
     << " at the last evaluation of each run (lower is better); best = lowest over seeds, as the paper reports "
        "the best of 6. Module time: G's context block, forward + backward on CPU at its place in G. "
        "Peak RSS: the training process's maximum resident memory.\n";
  if (!fid_key.empty())
    md << "\nFID mean [95% CI]: mean over seeds with its 95% Student-t interval (n=1: one seed, no interval); "
        "**bold** = lowest mean FID, ≈ = not distinguishable from it (Welch's t-test p ≥ 0.05, or too few seeds "
        "to test).\n";
  pairs_csv << "a,b,fid_difference,t,df,p,p_holm,larger_than_noise\n";
  if (!fid_stats.pairs.empty()) {
    md << "\n### FID differences between configs (Welch's t-test over seeds)\n\n";
    for (const auto& p : fid_stats.pairs) {
      md << pairwise_line(p) << "\n";
      pairs_csv << p.a << ',' << p.b << ',' << csv_number(p.test.difference) << ','
                << (p.test.tested ? csv_number(p.test.t) + ',' + csv_number(p.test.df) + ',' + csv_number(p.test.p) +
                                        ',' + csv_number(p.holm_p)
                                  : ",,,")
                << ',' << (p.larger_than_noise() ? 1 : 0) << '\n';
    }
    md << "\nDifference = mean FID of the first − the second. * = p < " << kSignificanceLevel
       << ": larger than the seed-to-seed noise. Holm p corrects for testing all pairs at once; with few seeds the "
          "test has little power, so a missing * does not show that two configs are equal.\n";
  }
  write_text_atomically((fs::path(out) / "results_pairwise.csv").string(), pairs_csv.str());
  write_text_atomically((fs::path(out) / "results.csv").string(), csv.str());
  write_text_atomically((fs::path(out) / "results.md").string(), md.str());

  // FID against steps, one series per config (first seed).
  std::vector<std::map<std::string, double>> rows;
  std::vector<std::string> series;
  for (const auto& name : names)
    for (const auto& r : runs) {
      if (r.name != name || r.fid_curve.empty()) continue;
      series.push_back(name);
      for (const auto& [step, fid] : r.fid_curve) rows.push_back({{"step", double(step)}, {name, fid}});
      break;
    }
  if (!rows.empty())
    plot_rows(rows, {{"FID (" + fid_key + ") vs steps", series}}, (fs::path(out) / "fid_vs_steps.png").string(),
              720, 420);
  return md.str();
}

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
      const auto marker = read_marker(dir);
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
