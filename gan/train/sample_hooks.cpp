// The hooks that generate images from the shown generator (G_ema, else G):
// fixed-z sample grids and evaluation during training. Both recompute G's BN
// statistics (standing statistics) on a snapshot of its buffers and run under
// ScopedRngRestore, so neither changes what training does next.
#include <cmath>
#include <cstdio>
#include <limits>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "core/rng.h"
#include "core/stop_signal.h"
#include "data/image_io.h"
#include "gan/checkpoint/run_dir.h"
#include "gan/eval/evaluation.h"
#include "gan/sample/sampler.h"
#include "gan/sample/standing_stats.h"
#include "gan/train/hooks.h"
#include "gan/train/run_setup.h"
#include "modules/conditional_bn.h"
#include "core/seeds.h"

namespace hamgan {
namespace fs = std::filesystem;
namespace {

Generator& shown_generator(TrainState& state) { return state.g_ema ? state.g_ema : state.g; }

// This rank's share of an evaluation and how the shares meet.
EvalShards eval_shards(const RunContext& run) {
  EvalShards shards;
  if (!run.comm) return shards;
  Communicator* comm = run.comm;
  shards.rank = comm->rank();
  shards.world = comm->world_size();
  shards.gather = [comm](const torch::Tensor& t) { return torch::cat(comm->all_gather(t, "gathering evaluation features")); };
  return shards;
}

// Up to 10 evenly spaced classes, one row of 8 per class, with z fixed for the
// whole run (and its resumptions).
class GridHook final : public TrainHook {
 public:
  explicit GridHook(const TrainConfig& cfg) : every_(cfg.sample_every) {
    const int64_t classes = std::min<int64_t>(cfg.model.num_classes, 10);
    at::Generator gen = make_cpu_generator(derived_seed(cfg.seed, SeedPurpose::kGridNoise));
    z_ = sample_z(classes * kPerClass, cfg.model.z_dim, 0.0, gen);
    std::vector<int64_t> labels;
    for (int64_t k = 0; k < classes; ++k)
      for (int64_t i = 0; i < kPerClass; ++i) labels.push_back(k * cfg.model.num_classes / classes);
    y_ = torch::tensor(labels, torch::kLong);
  }

  void after_step(TrainState& state, RunContext& run) override {
    if (!run.main || run.stop_requested || (!(every_ > 0 && state.step % every_ == 0) && !run.last_step(state)))
      return;
    ScopedRngRestore keep_rng;
    Generator& g = shown_generator(state);
    const bool was_training = g->is_training();
    torch::Tensor images;
    try {
      LocalBatchStatsScope this_rank_only(*g);  // rank 0 draws the grid alone
      BufferSnapshot keep_buffers(*g);
      accumulate_standing_stats(g, run.cfg.standing_stats, run.cfg.batch_size, derived_seed(run.cfg.seed, SeedPurpose::kGridStandingStats));
      images = generate(g, z_, y_, 128);
    } catch (const Interrupted&) {
      g->train(was_training);
      // The other ranks are already on their way to the next step: leaving now
      // would strand them in its all-reduce. Skip the grid; the next step's stop
      // agreement then stops every rank with a checkpoint.
      if (run.comm) return;
      throw;
    }
    g->train(was_training);
    char name[40];
    std::snprintf(name, sizeof(name), "step_%07lld.png", static_cast<long long>(state.step));
    const std::string path = (fs::path(run.run_dir) / "samples" / name).string();
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
  int64_t every_;
  torch::Tensor z_, y_;
};

// Every metric of eval_metrics on one set of samples; the best value of
// best_metric so far is kept in the state, and its weights as checkpoints/best.pt.
class EvalHook final : public TrainHook {
 public:
  explicit EvalHook(const TrainConfig& cfg) : every_(cfg.eval_every), best_metric_(resolved_best_metric(cfg)) {}

  void after_step(TrainState& state, RunContext& run) override {
    if (run.stop_requested || every_ <= 0 || (state.step % every_ != 0 && !run.last_step(state))) return;
    ScopedRngRestore keep_rng;
    EvalSettings settings = eval_settings(run.cfg);
    // The last evaluation may use more samples (the number a paper reports). FID's
    // bias depends on the sample count, so it does not compete for best.pt then.
    const bool resized = run.last_step(state) && run.cfg.eval_final_n > 0 && run.cfg.eval_final_n != settings.n;
    if (resized) settings.n = run.cfg.eval_final_n;
    // Every rank generates its share of the samples; the features are gathered (gan/eval).
    const EvalResult result = evaluate_during_training(shown_generator(state), settings, eval_shards(run));
    if (result.empty()) return;
    const bool improved = !resized && update_best(state, result.values, run);
    if (improved) save_best_checkpoint(state, run);  // a collective in a data-parallel job
    if (!run.main) return;
    run.log->append(state.step, result.values, {{"protocol", result.protocol}});
    std::ostringstream msg;
    for (const auto& [k, v] : result.values) {
      if (run.tb) run.tb->add_scalar("eval/" + k, v, state.step);
      msg << " " << k << " " << v;
    }
    if (run.tb) {
      run.tb->add_text("eval/protocol", result.protocol, state.step);
      run.tb->flush();
    }
    if (improved) msg << " (best " << best_metric_ << " so far: " << run.checkpoint_dir << "/" << kBestCheckpointName << ")";
    std::cerr << "\ntrain: step " << state.step << ":" << msg.str() << "\n";
  }

 private:
  // Rank 0 decides, so every rank takes the same decision even if a kept
  // best.pt was readable on rank 0 only (another node's disk).
  bool update_best(TrainState& state, const MetricRow& row, RunContext& run) const {
    double value = std::numeric_limits<double>::quiet_NaN();
    for (const auto& [k, v] : row)
      if (k == best_metric_) value = v;
    const bool better = !best_metric_.empty() && std::isfinite(value) &&
                        (state.best.step < 0 || state.best.metric != best_metric_ ||
                         (higher_is_better(best_metric_) ? value > state.best.value : value < state.best.value));
    const bool improved = run.comm ? run.comm->any(run.main && better, "agreeing on the best score") : better;
    if (improved) state.best = {best_metric_, value, state.step};
    return improved;
  }

  int64_t every_;
  std::string best_metric_;  // "" = no best checkpoint
};

}  // namespace

std::unique_ptr<TrainHook> make_grid_hook(const TrainConfig& cfg) { return std::make_unique<GridHook>(cfg); }
std::unique_ptr<TrainHook> make_eval_hook(const TrainConfig& cfg) { return std::make_unique<EvalHook>(cfg); }

}  // namespace hamgan
