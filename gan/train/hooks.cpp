// The log, checkpoint and callback hooks; the grid and evaluation hooks are in
// sample_hooks.cpp.
#include "gan/train/hooks.h"

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "core/errors.h"
#include "gan/checkpoint/run_dir.h"
#include "core/stop_signal.h"
#include "gan/train/data_parallel.h"

namespace hamgan {
namespace fs = std::filesystem;

RunContext::RunContext(const TrainConfig& c, int64_t resume_step, bool main_rank)
    : cfg(c), run_dir(c.run_dir), checkpoint_dir((fs::path(c.run_dir) / "checkpoints").string()), main(main_rank) {
  if (!main) return;
  log = std::make_unique<MetricsLog>((fs::path(c.run_dir) / "metrics.jsonl").string(), resume_step);
  if (cfg.tensorboard) tb = std::make_unique<TensorBoardWriter>(run_dir);
}

namespace {

std::string last_good(const RunContext& run) {
  return run.last_checkpoint.empty() ? "no checkpoint written yet (start again without --resume)"
                                     : "last good checkpoint: " + run.last_checkpoint + " (continue from it with --resume)";
}

}  // namespace

DivergenceError divergence_error(const TrainState& state, const RunContext& run, const std::string& what) {
  if (run.last_checkpoint.empty())
    return DivergenceError("training diverged at step " + std::to_string(state.step) + " (" + what +
                           "); no checkpoint written yet: start again with lower g_lr/d_lr");
  return DivergenceError("training diverged at step " + std::to_string(state.step) + " (" + what +
                         "); last good checkpoint: " + run.last_checkpoint +
                         " (continue from it with --resume, e.g. with lower g_lr/d_lr)");
}

StepValues read_step_values(const TrainState& state, const RunContext& run, Communicator* comm) {
  const StepValues v = run.stats.means(comm);
  if (!v.finite()) throw divergence_error(state, run, v.describe());
  return v;
}

namespace {

// `comm` null: this process writes alone (a single process, or rank 0 after a
// peer failed). `best`: the kept best checkpoint, outside the step files.
void write_checkpoint(TrainState& state, RunContext& run, Communicator* comm, bool best = false) {
  read_step_values(state, run, comm);
  if (!state.all_finite()) throw divergence_error(state, run, "non-finite weights; checkpoint not written");
  const std::string name = best ? kBestCheckpointName : checkpoint_file_name(state.step);
  const std::string path = (fs::path(run.checkpoint_dir) / name).string();
  if (comm) {
    gather_noise_states(*comm, state);
    comm->barrier("the barrier before a checkpoint");
  }
  std::string failure;
  if (run.main) {
    try {
      state.save(path);
      if (!best) mark_latest_checkpoint(run.checkpoint_dir, name, run.cfg.keep_checkpoints);
    } catch (const Error& e) {
      failure = e.what();
    }
  }
  state.rank_noise_states = torch::Tensor();
  if (comm && comm->any(!failure.empty(), "agreeing on the checkpoint") && failure.empty())
    failure = "rank 0 could not write " + path;
  // The previous checkpoint and `latest` are untouched; retrying at once would fail alike.
  if (!failure.empty()) throw CheckpointError(failure + "; " + last_good(run));
  if (best) return;
  run.last_checkpoint = path;
  run.last_checkpoint_step = state.step;
}

}  // namespace

void save_checkpoint(TrainState& state, RunContext& run) { write_checkpoint(state, run, run.comm); }
void save_best_checkpoint(TrainState& state, RunContext& run) { write_checkpoint(state, run, run.comm, /*best=*/true); }

std::string save_after_failure(TrainState& state, RunContext& run, bool step_whole) {
  if (!step_whole) return "the step in progress is lost; " + last_good(run);
  if (run.last_checkpoint_step == state.step)
    return "checkpoint of step " + std::to_string(state.step) + ": " + run.last_checkpoint + " (continue with --resume)";
  if (!state.all_finite()) return "the weights are non-finite and were not saved; " + last_good(run);
  if (!run.main) return "rank 0 saves the state; " + last_good(run);
  try {
    write_checkpoint(state, run, nullptr);  // a peer may be gone: rank 0 writes alone
  } catch (const std::exception& e) {
    return std::string("saving the state failed too (") + e.what() + "); " + last_good(run);
  }
  std::cerr << "train: state at step " << state.step << " saved to " << run.last_checkpoint << "\n";
  return "state at step " + std::to_string(state.step) + " saved to " + run.last_checkpoint + " (continue with --resume)";
}

namespace {

// A row of the means since the last one, and the progress bar (its losses are
// those of the last row: reading them every step would wait for the device).
class LogHook final : public TrainHook {
 public:
  explicit LogHook(const TrainConfig& cfg) : every_(cfg.log_every) {}
  void after_step(TrainState& state, RunContext& run) override {
    ++steps_;
    if (run.bar) run.bar->advance();
    if (state.step % every_ != 0 && !run.last_step(state)) return;
    const StepValues v = read_step_values(state, run, run.comm);
    run.stats.clear();
    if (v.steps == 0) return;  // every update since the last row was skipped as non-finite
    if (run.bar) {
      char post[96];
      std::snprintf(post, sizeof(post), "step %lld  d %.3f  g %.3f", static_cast<long long>(state.step), v.d_loss,
                    v.g_loss);
      run.bar->set_postfix(post);
    }
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    const double its = static_cast<double>(steps_) / std::max(secs, 1e-9);
    const TrainConfig& cfg = run.cfg;
    const MetricRow row = {{"d_loss", v.d_loss}, {"g_loss", v.g_loss},
                           {"d_real", v.d_real}, {"d_fake", v.d_fake},
                           {"g_lr", cfg.g_lr},   {"d_lr", cfg.d_lr},
                           {"it_per_s", its},    {"img_per_s", its * static_cast<double>(cfg.batch_size * cfg.d_steps)}};
    if (run.log) run.log->append(state.step, row);
    if (run.tb) {
      for (const auto& [k, val] : row) run.tb->add_scalar(k, val, state.step);
      run.tb->flush();
    }
    steps_ = 0;
    start_ = std::chrono::steady_clock::now();
  }

 private:
  int64_t every_;
  int64_t steps_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// At its interval, at the last step, and whenever a stop was requested.
class CheckpointHook final : public TrainHook {
 public:
  explicit CheckpointHook(const TrainConfig& cfg) : every_(cfg.checkpoint_every) {}
  void after_step(TrainState& state, RunContext& run) override {
    if ((every_ > 0 && state.step % every_ == 0) || run.stop_requested || run.last_step(state))
      save_checkpoint(state, run);
  }

 private:
  int64_t every_;
};

class StopHook final : public TrainHook {
 public:
  void after_step(TrainState&, RunContext& run) override {
    const bool local = stop_requested();
    run.stop_requested = run.sync ? run.sync->any(local) : local;
  }
};

class CallbackHook final : public TrainHook {
 public:
  explicit CallbackHook(std::function<void(TrainState&, RunContext&)> fn) : fn_(std::move(fn)) {}
  void after_step(TrainState& state, RunContext& run) override { fn_(state, run); }

 private:
  std::function<void(TrainState&, RunContext&)> fn_;
};

}  // namespace

std::unique_ptr<TrainHook> make_log_hook(const TrainConfig& cfg) { return std::make_unique<LogHook>(cfg); }
std::unique_ptr<TrainHook> make_stop_hook() { return std::make_unique<StopHook>(); }
std::unique_ptr<TrainHook> make_checkpoint_hook(const TrainConfig& cfg) { return std::make_unique<CheckpointHook>(cfg); }
std::unique_ptr<TrainHook> make_callback_hook(std::function<void(TrainState&, RunContext&)> fn) {
  return std::make_unique<CallbackHook>(std::move(fn));
}

TrainHooks standard_hooks(const TrainConfig& cfg) {
  TrainHooks hooks;
  hooks.push_back(make_log_hook(cfg));
  hooks.push_back(make_stop_hook());
  hooks.push_back(make_checkpoint_hook(cfg));
  hooks.push_back(make_grid_hook(cfg));
  hooks.push_back(make_eval_hook(cfg));
  return hooks;
}

}  // namespace hamgan
