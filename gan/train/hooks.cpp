// The log, checkpoint and callback hooks and the checkpoint writing they share;
// the grid and evaluation hooks are in sample_hooks.cpp.
#include "gan/train/hooks.h"

#include <iostream>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>

#include "core/errors.h"
#include "core/schedule.h"
#include "gan/checkpoint/run_dir.h"
#include "gan/train/data_parallel.h"

namespace hamgan {
namespace fs = std::filesystem;

RunContext::RunContext(const std::string& run_dir, int64_t steps_, std::shared_ptr<Communicator> comm_)
    : paths(run_dir), steps(steps_), comm(std::move(comm_)), main(comm->rank() == 0) {}

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

StepValues read_step_values(const TrainState& state, RunContext& run, Communicator& comm) {
  const StepValues v = run.stats.means(comm);
  if (v.nonfinite_steps > 0) {
    run.nonfinite_steps += v.nonfinite_steps;
    const std::string what = std::to_string(run.nonfinite_steps) + " non-finite steps";
    if (run.nonfinite_steps > run.max_nonfinite_steps)
      throw divergence_error(state, run, what + ", more than max_nonfinite_steps = " +
                                             std::to_string(run.max_nonfinite_steps));
    // Skipped updates leave the weights as they were; anything else is a broken state.
    if (!state.all_finite()) throw divergence_error(state, run, what + "; non-finite weights");
    if (run.main)
      std::cerr << "train: " << v.nonfinite_steps << " non-finite step(s) up to step " << state.step
                << ", their updates skipped (" << run.nonfinite_steps << " of max_nonfinite_steps = "
                << run.max_nonfinite_steps << ")\n";
  }
  if (!v.finite()) throw divergence_error(state, run, v.describe());
  return v;
}

namespace {

// Skipped updates leave finite weights, but a state from which no step has
// succeeded since the last checkpoint cannot train (e.g. one absurd update, then
// every step skipped): it is never saved, and `latest` goes back to the newest
// checkpoint from which a step did succeed.
void refuse_a_stuck_state(TrainState& state, RunContext& run) {
  if (run.stats.take_applied_steps() > 0) {
    run.proven_checkpoint = run.last_checkpoint;  // a step succeeded from it
    return;
  }
  const std::string since =
      run.last_checkpoint_step >= 0 ? "step " + std::to_string(run.last_checkpoint_step) : "the start";
  // Without a proven one (no step succeeded since the resume), the newest checkpoint stays the one to name.
  const std::string good = run.proven_checkpoint.empty() ? run.last_checkpoint : run.proven_checkpoint;
  const bool moved = !good.empty() && good != run.last_checkpoint;
  if (moved && run.main)
    mark_latest_checkpoint(run.paths.checkpoints(), fs::path(good).filename().string(),
                           std::numeric_limits<int64_t>::max());
  run.last_checkpoint = good;
  throw divergence_error(state, run, "every step since " + since + " was skipped as non-finite, so this state " +
                                         "cannot train; checkpoint not written" +
                                         (moved ? ", `latest` points back at the last good one" : ""));
}

// Over the ranks of `comm`: the job's, or a LocalCommunicator when rank 0
// writes alone after a peer failed. `best`: the kept best checkpoint, outside
// the step files.
void write_checkpoint(TrainState& state, RunContext& run, Communicator& comm, bool best = false) {
  read_step_values(state, run, comm);
  if (!state.all_finite()) throw divergence_error(state, run, "non-finite weights; checkpoint not written");
  const std::string dir = run.paths.checkpoints();
  if (!best && state.step > run.last_checkpoint_step) refuse_a_stuck_state(state, run);
  const std::string name = best ? kBestCheckpointName : checkpoint_file_name(state.step);
  const std::string path = (fs::path(dir) / name).string();
  gather_noise_states(comm, state);
  state.objective.gather(comm);
  comm.barrier("the barrier before a checkpoint");
  std::string failure;
  if (run.main) {
    try {
      state.save(path);
      if (!best)
        mark_latest_checkpoint(dir, name, run.keep_checkpoints, fs::path(run.proven_checkpoint).filename().string());
    } catch (const Error& e) {
      failure = e.what();
    }
  }
  state.rank_noise_states = torch::Tensor();
  const bool failed_somewhere = comm.any(!failure.empty(), "agreeing on the checkpoint");
  if (failed_somewhere && failure.empty())
    failure = "rank 0 could not write " + path;
  // The previous checkpoint and `latest` are untouched; retrying at once would fail alike.
  if (!failure.empty()) throw CheckpointError(failure + "; " + last_good(run));
  if (best) return;
  run.last_checkpoint = path;
  run.last_checkpoint_step = state.step;
}

}  // namespace

void save_checkpoint(TrainState& state, RunContext& run) { write_checkpoint(state, run, *run.comm); }
void save_best_checkpoint(TrainState& state, RunContext& run) { write_checkpoint(state, run, *run.comm, /*best=*/true); }

std::string save_after_failure(TrainState& state, RunContext& run, bool step_whole) {
  if (!step_whole) return "the step in progress is lost; " + last_good(run);
  if (run.last_checkpoint_step == state.step)
    return "checkpoint of step " + std::to_string(state.step) + ": " + run.last_checkpoint + " (continue with --resume)";
  if (!state.all_finite()) return "the weights are non-finite and were not saved; " + last_good(run);
  if (!run.main)
    return run.comm->rank0_unreachable() ? "rank 0 is gone, so nothing more is saved; " + last_good(run)
                                         : "rank 0 saves the state; " + last_good(run);
  try {
    LocalCommunicator alone;  // a peer may be gone: rank 0 writes without collectives
    write_checkpoint(state, run, alone);
  } catch (const std::exception& e) {
    return std::string("saving the state failed too (") + e.what() + "); " + last_good(run);
  }
  std::cerr << "train: state at step " << state.step << " saved to " << run.last_checkpoint << "\n";
  return "state at step " + std::to_string(state.step) + " saved to " + run.last_checkpoint + " (continue with --resume)";
}

namespace {

// The learned gate σ of each context block (x + σ·block(x), 0 at init) in the row, as "g/ham16/sigma":
// whether the network uses its block at all. Read in one device→host copy, at a log row only.
void append_block_sigmas(const TrainState& state, const LogSettings& s, MetricRow& row) {
  std::vector<std::string> keys;
  std::vector<torch::Tensor> sigmas;
  auto add = [&](const std::string& key, const torch::nn::Module& block) {
    if (key.empty()) return;
    for (const auto& p : block.named_parameters(/*recurse=*/false))
      if (p.key() == "sigma") {
        keys.push_back(key + "/sigma");
        sigmas.push_back(p.value().detach().reshape({1}).to(torch::kFloat));
      }
  };
  add(s.g_block_key, *state.g->context());
  add(s.d_block_key, *state.d->context());
  if (sigmas.empty()) return;
  const torch::Tensor host = torch::cat(sigmas).cpu();
  for (size_t i = 0; i < keys.size(); ++i) row.emplace_back(keys[i], host[static_cast<int64_t>(i)].item<double>());
}

// A row of the means since the last one, and the progress bar (its losses are
// those of the last row: reading them every step would wait for the device).
class LogHook final : public TrainHook {
 public:
  explicit LogHook(const LogSettings& s) : s_(s) {}
  void after_step(TrainState& state, RunContext& run) override {
    ++steps_;
    if (run.bar) run.bar->advance();
    if (!due(state.step, s_.every, run.last_step(state))) return;
    const StepValues v = read_step_values(state, run, *run.comm);
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
    MetricRow row = {{"d_loss", v.d_loss}, {"g_loss", v.g_loss},
                     {"d_real", v.d_real}, {"d_fake", v.d_fake},
                     {"g_lr", s_.g_lr},    {"d_lr", s_.d_lr},
                     {"it_per_s", its},    {"img_per_s", its * static_cast<double>(s_.images_per_step)}};
    state.objective.log(row);  // ADA's p and what the terms report
    append_block_sigmas(state, s_, row);
    if (run.log) run.log->append(state.step, row);
    if (run.tb) {
      for (const auto& [k, val] : row) run.tb->add_scalar(k, val, state.step);
      run.tb->flush();
    }
    steps_ = 0;
    start_ = std::chrono::steady_clock::now();
  }

 private:
  LogSettings s_;
  int64_t steps_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// At its interval, at the last step, and when the run is stopping.
class CheckpointHook final : public TrainHook {
 public:
  explicit CheckpointHook(const CheckpointSettings& s) : every_(s.every) {}
  void after_step(TrainState& state, RunContext& run) override {
    if (due(state.step, every_, run.last_step(state)) || run.stopping)
      save_checkpoint(state, run);
  }

 private:
  int64_t every_;
};

class CallbackHook final : public TrainHook {
 public:
  explicit CallbackHook(std::function<void(TrainState&, RunContext&)> fn) : fn_(std::move(fn)) {}
  void after_step(TrainState& state, RunContext& run) override { fn_(state, run); }

 private:
  std::function<void(TrainState&, RunContext&)> fn_;
};

}  // namespace

std::unique_ptr<TrainHook> make_log_hook(const LogSettings& s) { return std::make_unique<LogHook>(s); }
std::unique_ptr<TrainHook> make_checkpoint_hook(const CheckpointSettings& s) {
  return std::make_unique<CheckpointHook>(s);
}
std::unique_ptr<TrainHook> make_callback_hook(std::function<void(TrainState&, RunContext&)> fn) {
  return std::make_unique<CallbackHook>(std::move(fn));
}

TrainHooks standard_hooks(const HookSettings& s, std::shared_ptr<Evaluator> evaluator) {
  TrainHooks hooks;
  hooks.push_back(make_log_hook(s.log));
  hooks.push_back(make_checkpoint_hook(s.checkpoint));
  hooks.push_back(make_grid_hook(s.grid));
  if (evaluator) hooks.push_back(make_eval_hook(s.eval, std::move(evaluator)));
  return hooks;
}

}  // namespace hamgan
