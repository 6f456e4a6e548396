// The hooks that generate images from the shown generator (G_ema, else G):
// fixed-z sample grids and evaluation during training. Both recompute G's BN
// statistics (standing statistics) on a snapshot of its buffers and run under
// ScopedRngRestore, so neither changes what training does next.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <optional>
#include <iostream>
#include <sstream>

#include "core/rng.h"
#include "core/schedule.h"
#include "core/seeds.h"
#include "core/stop_signal.h"
#include "data/image_io.h"
#include "gan/eval/evaluation.h"
#include "gan/sample/sampler.h"
#include "gan/sample/standing_stats.h"
#include "gan/train/hooks.h"
#include "modules/conditional_bn.h"

namespace hamgan {
namespace {

Generator& shown_generator(TrainState& state) { return state.g_ema ? state.g_ema : state.g; }

// Up to 10 evenly spaced classes, one row of 8 per class, with z fixed for the
// whole run (and its resumptions).
class GridHook final : public TrainHook {
 public:
  explicit GridHook(const GridSettings& s) : s_(s) {
    const int64_t classes = std::min<int64_t>(s.num_classes, 10);
    at::Generator gen = make_cpu_generator(derived_seed(s.seed, SeedPurpose::kGridNoise));
    z_ = sample_z(classes * kPerClass, s.z_dim, 0.0, gen);
    std::vector<int64_t> labels;
    for (int64_t k = 0; k < classes; ++k)
      for (int64_t i = 0; i < kPerClass; ++i) labels.push_back(k * s.num_classes / classes);
    y_ = torch::tensor(labels, torch::kLong);
  }

  void after_step(TrainState& state, RunContext& run) override {
    if (!run.main || (run.stopping && !run.last_step(state)) || !due(state.step, s_.every, run.last_step(state)))
      return;
    std::optional<StopDeferral> owed;  // the last step's grid is owed even when a stop has arrived
    if (run.last_step(state)) owed.emplace();
    ScopedRngRestore keep_rng;
    Generator& g = shown_generator(state);
    const bool was_training = g->is_training();
    torch::Tensor images;
    try {
      LocalBatchStatsScope this_rank_only(*g);  // rank 0 draws the grid alone
      BufferSnapshot keep_buffers(*g);
      accumulate_standing_stats(g, s_.standing_stats, kStandingBatchSize,
                                derived_seed(s_.seed, SeedPurpose::kGridStandingStats));
      images = generate(g, z_, y_, 128);
    } catch (const Interrupted&) {
      g->train(was_training);
      // The other ranks are already on their way to the next step: leaving now
      // would strand them in its all-reduce. Skip the grid; the next step's stop
      // agreement then stops every rank with a checkpoint. A single process
      // has nobody waiting: it stops now, with the checkpoint of this step.
      if (run.comm->world_size() > 1) return;
      throw;
    }
    g->train(was_training);
    char name[40];
    std::snprintf(name, sizeof(name), "step_%07lld.png", static_cast<long long>(state.step));
    const std::string path = run.paths.sample_file(name);
    const torch::Tensor grid = make_grid(images, kPerClass);  // uint8 (C, H, W)
    save_png(grid, path);
    if (run.tb) {
      std::ifstream in(path, std::ios::binary);
      run.tb->add_image("samples", std::string(std::istreambuf_iterator<char>(in), {}), grid.size(1), grid.size(2),
                        grid.size(0), state.step);
      run.tb->flush();
    }
  }

 private:
  static constexpr int64_t kPerClass = 8;
  GridSettings s_;
  torch::Tensor z_, y_;
};

// Every metric of eval_metrics on one set of samples; the best value of
// best_metric so far is kept in the state, and its weights as checkpoints/best.pt.
class EvalHook final : public TrainHook {
 public:
  EvalHook(const EvalHookSettings& s, std::shared_ptr<Evaluator> evaluator)
      : s_(s), evaluator_(std::move(evaluator)) {}

  void after_step(TrainState& state, RunContext& run) override {
    // eval_every = 0 turns evaluation off, the last step's included.
    const bool last = s_.every > 0 && run.last_step(state);
    if ((run.stopping && !run.last_step(state)) || !due(state.step, s_.every, last)) return;
    // The last step's evaluation (and best.pt) is owed even when a stop has arrived; a second stop ends it.
    std::optional<StopDeferral> owed;
    if (run.last_step(state)) owed.emplace();
    ScopedRngRestore keep_rng;
    // The last evaluation may use more samples (the number a paper reports). FID's
    // bias depends on the sample count, so it does not compete for best.pt then.
    const int64_t n = evaluator_->settings().n;
    const bool resized = run.last_step(state) && s_.final_n > 0 && s_.final_n != n;
    // Every rank generates its share of the samples; the features are gathered (gan/eval).
    const EvalResult result = evaluator_->evaluate(shown_generator(state), s_.shards, resized ? s_.final_n : n);
    if (result.empty()) return;
    const bool improved = !resized && update_best(state, result.values, run);
    if (improved) save_best_checkpoint(state, run);  // a collective in a data-parallel job
    if (!run.main) return;
    run.log->append(state.step, result.values,
                    {{"protocol", result.protocol}, {"labels", to_string(evaluator_->settings().labels)}});
    std::ostringstream msg;
    for (const auto& [k, v] : result.values) {
      if (run.tb) run.tb->add_scalar("eval/" + k, v, state.step);
      msg << " " << k << " " << v;
    }
    if (run.tb) {
      run.tb->add_text("eval/protocol", result.protocol, state.step);
      run.tb->flush();
    }
    if (improved) msg << " (best " << s_.best_metric << " so far: " << run.paths.best_checkpoint() << ")";
    // The first line says what the scores compare with (the log's protocol says it on every row).
    if (!reference_told_ && !evaluator_->reference_note().empty()) msg << "; " << evaluator_->reference_note();
    reference_told_ = true;
    std::cerr << "\ntrain: step " << state.step << ":" << msg.str() << "\n";
  }

 private:
  // Rank 0 decides, so every rank takes the same decision even if a kept
  // best.pt was readable on rank 0 only (another node's disk).
  bool update_best(TrainState& state, const MetricRow& row, RunContext& run) const {
    double value = std::numeric_limits<double>::quiet_NaN();
    for (const auto& [k, v] : row)
      if (k == s_.best_metric) value = v;
    const bool better = !s_.best_metric.empty() && std::isfinite(value) &&
                        (state.best.step < 0 || state.best.metric != s_.best_metric ||
                         (higher_is_better(s_.best_metric) ? value > state.best.value : value < state.best.value));
    const bool improved = run.comm->any(run.main && better, "agreeing on the best score");
    if (improved) state.best = {s_.best_metric, value, state.step};
    return improved;
  }

  EvalHookSettings s_;
  std::shared_ptr<Evaluator> evaluator_;
  bool reference_told_ = false;
};

}  // namespace

std::unique_ptr<TrainHook> make_grid_hook(const GridSettings& s) { return std::make_unique<GridHook>(s); }
std::unique_ptr<TrainHook> make_eval_hook(const EvalHookSettings& s, std::shared_ptr<Evaluator> evaluator) {
  return std::make_unique<EvalHook>(s, std::move(evaluator));
}

}  // namespace hamgan
