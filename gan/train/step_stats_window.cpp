#include "gan/train/step_stats_window.h"

#include <cmath>

#include "gan/report/run_log.h"

namespace hamgan {

bool StepValues::finite() const {
  return std::isfinite(d_loss) && std::isfinite(g_loss) && std::isfinite(d_real) && std::isfinite(d_fake);
}

std::string StepValues::describe() const {
  return "d_loss " + json_number(d_loss) + ", g_loss " + json_number(g_loss) + " (mean of the last " +
         std::to_string(steps) + (steps == 1 ? " step)" : " steps)");
}

void StepStatsWindow::add(const StepStats& s) {
  const torch::Tensor step = torch::stack({s.d_loss, s.g_loss, s.d_real, s.d_fake}).to(torch::kDouble);
  sums_ = steps_ == 0 ? step : sums_ + step;
  ++steps_;
}

StepValues StepStatsWindow::means(Communicator& comm) const {
  StepValues v;
  v.steps = steps_;
  if (steps_ == 0) return v;
  torch::Tensor sums = sums_.clone();
  comm.all_reduce_sum(sums, "averaging the logged losses");
  const double count = static_cast<double>(steps_) * static_cast<double>(comm.world_size());
  const torch::Tensor host = (sums / count).to(torch::kCPU);
  const double* m = host.data_ptr<double>();
  v.d_loss = m[0], v.g_loss = m[1], v.d_real = m[2], v.d_fake = m[3];
  return v;
}

void StepStatsWindow::clear() {
  sums_ = torch::Tensor();
  steps_ = 0;
}

}  // namespace hamgan
