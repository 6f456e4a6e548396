// The results of `hamgan bench modules` as a Markdown table and as JSON; see bench_modules.h.
#include "modules/bench_modules.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace hamgan {
namespace {

// 1234567 -> "1.23M" (decimal prefixes; integers below 1000 as they are).
std::string human(double v) {
  const char* prefix[] = {"", "K", "M", "G", "T"};
  int p = 0;
  while (std::abs(v) >= 1000 && p < 4) v /= 1000, ++p;
  std::ostringstream s;
  s << std::fixed << std::setprecision(p == 0 ? 0 : v < 10 ? 2 : 1) << v << prefix[p];
  return s.str();
}

// Bytes in MiB, or KiB below 1 MiB.
std::string human_bytes(int64_t b) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(1);
  if (b < 1048576) {
    s << b / 1024.0 << " KiB";
  } else {
    s << b / 1048576.0 << " MiB";
  }
  return s.str();
}

}  // namespace

std::string format_bench_table(const std::vector<ModuleBenchResult>& rs) {
  std::ostringstream s;
  s << std::fixed;
  s << "| block | params | MACs | memory train | memory infer | time train | time infer |\n"
    << "|---|---|---|---|---|---|---|\n";
  for (const auto& r : rs) {
    s << "| " << r.block << " | " << human(static_cast<double>(r.params)) << " | "
      << (r.macs >= 0 ? human(static_cast<double>(r.macs)) : "?") << " | " << human_bytes(r.peak_bytes_train) << " | "
      << human_bytes(r.peak_bytes_fwd) << " | " << std::setprecision(2) << r.train_ms << " ms | " << r.fwd_ms
      << " ms |\n";
  }
  const auto sa = std::find_if(rs.begin(), rs.end(), [](const auto& r) { return r.block == "sa"; });
  if (sa != rs.end()) {
    s << "\nSA / block ratios (higher: the block is cheaper than SA):\n";
    for (const auto& r : rs) {
      if (r.block == "sa" || r.block == "none") continue;
      s << std::setprecision(2) << "  " << r.block << ": train time " << sa->train_ms / r.train_ms << "x, train memory "
        << static_cast<double>(sa->peak_bytes_train) / std::max<int64_t>(1, r.peak_bytes_train) << "x, infer time "
        << sa->fwd_ms / r.fwd_ms << "x, infer memory "
        << static_cast<double>(sa->peak_bytes_fwd) / std::max<int64_t>(1, r.peak_bytes_fwd) << "x\n";
    }
  }
  return s.str();
}

std::string bench_results_json(const std::vector<ModuleBenchResult>& rs) {
  std::ostringstream s;
  s << std::setprecision(6) << "[\n";
  for (size_t i = 0; i < rs.size(); ++i) {
    const auto& r = rs[i];
    s << "  {\"block\": \"" << r.block << "\", \"params\": " << r.params << ", \"macs\": " << r.macs
      << ", \"fwd_ms\": " << r.fwd_ms << ", \"train_ms\": " << r.train_ms << ", \"peak_bytes_fwd\": " << r.peak_bytes_fwd
      << ", \"peak_bytes_train\": " << r.peak_bytes_train << "}" << (i + 1 < rs.size() ? "," : "") << "\n";
  }
  s << "]\n";
  return s.str();
}

}  // namespace hamgan
