#include "experiments/compare_report.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <map>
#include <sstream>

#include "core/atomic_file.h"
#include "experiments/compare_statistics.h"
#include "gan/report/plot.h"

namespace hamgan {
namespace fs = std::filesystem;

namespace {

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

}  // namespace

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

}  // namespace hamgan
