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
  torch::Tensor step = torch::stack({s.d_loss, s.g_loss, s.d_real, s.d_fake, torch::ones_like(s.d_loss)})
                           .to(torch::kDouble);
  if (s.skipped.defined()) {
    const torch::Tensor skipped = s.skipped.gt(0);
    step = torch::where(skipped, torch::zeros_like(step), step);
    nonfinite_ = nonfinite_.defined() ? nonfinite_ + skipped : skipped.to(torch::kLong);
    const torch::Tensor applied = skipped.logical_not().to(torch::kLong);
    applied_ = applied_.defined() ? applied_ + applied : applied;
  } else {
    ++unguarded_;
  }
  sums_ = steps_ == 0 ? step : sums_ + step;
  ++steps_;
}

StepValues StepStatsWindow::means(Communicator& comm) {
  StepValues v;
  if (nonfinite_.defined()) {
    v.nonfinite_steps = nonfinite_.item<int64_t>();
    nonfinite_ = torch::Tensor();
  }
  if (steps_ == 0) return v;
  torch::Tensor sums = sums_.clone();
  comm.all_reduce_sum(sums, "averaging the logged losses");
  const torch::Tensor host = sums.to(torch::kCPU);
  const double* m = host.data_ptr<double>();
  const double count = m[4];  // steps averaged, summed over the ranks
  v.steps = static_cast<int64_t>(count / static_cast<double>(comm.world_size()) + 0.5);
  if (count == 0) return v;
  v.d_loss = m[0] / count, v.g_loss = m[1] / count, v.d_real = m[2] / count, v.d_fake = m[3] / count;
  return v;
}

int64_t StepStatsWindow::take_applied_steps() {
  int64_t n = unguarded_;
  if (applied_.defined()) n += applied_.item<int64_t>();
  applied_ = torch::Tensor();
  unguarded_ = 0;
  return n;
}

void StepStatsWindow::clear() {
  sums_ = torch::Tensor();
  steps_ = 0;
}

}  // namespace hamgan
