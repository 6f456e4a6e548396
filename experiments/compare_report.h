#pragma once
// The side-by-side report of `hamgan compare` (docs/compare.md): results.md,
// results.csv, results_pairwise.csv and fid_vs_steps.png.
#include <string>
#include <vector>

#include "experiments/run_result.h"

namespace hamgan {

// Writes results.md, results.csv, results_pairwise.csv and fid_vs_steps.png into `out`; returns the Markdown.
std::string write_compare_report(const std::vector<RunResult>& runs, const std::string& out);

}  // namespace hamgan
