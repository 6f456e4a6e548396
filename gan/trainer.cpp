#include "gan/trainer.h"

#include <ATen/CPUGeneratorImpl.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "core/progress.h"
#include "data/image_io.h"
#include "data/loader.h"
#include "gan/checkpoint.h"
#include "gan/ema.h"
#include "gan/evaluation.h"
#include "gan/standing_stats.h"
#include "gan/run_log.h"
#include "gan/sampler.h"
#include "gan/tensorboard.h"

namespace hamgan {
namespace fs = std::filesystem;

namespace {

std::atomic<bool> g_stop_requested{false};

extern "C" void on_stop_signal(int sig) {
  g_stop_requested.store(true);
  std::signal(sig, SIG_DFL);  // a second Ctrl-C ends the process at once
}

// Installs the SIGINT/SIGTERM handlers for the duration of a run.
struct StopSignalGuard {
  struct sigaction old_int {}, old_term {};
  StopSignalGuard() {
    g_stop_requested.store(false);
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
  }
  ~StopSignalGuard() {
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
  }
};

bool all_finite(torch::nn::Module& m) {
  torch::NoGradGuard no_grad;
  for (const auto& p : m.parameters())
    if (!torch::isfinite(p).all().item<bool>()) return false;
  return true;
}

void set_requires_grad(torch::nn::Module& m, bool on) {
  for (auto& p : m.parameters()) p.set_requires_grad(on);
}

int64_t count_parameters(torch::nn::Module& m) {
  int64_t n = 0;
  for (const auto& p : m.parameters()) n += p.numel();
  return n;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Running sums of the per-step numbers between two log rows.
struct Window {
  double d_loss = 0, g_loss = 0, d_real = 0, d_fake = 0;
  int64_t steps = 0;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};

}  // namespace

void request_training_stop() { g_stop_requested.store(true); }

TrainResult train(const TrainConfig& cfg) {
  cfg.validate();
  const torch::Device device = training_device(cfg.device);
  if (cfg.threads > 0) torch::set_num_threads(static_cast<int>(cfg.threads));
  const fs::path run(cfg.run_dir);
  const std::string ckdir = (run / "checkpoints").string();
  const std::string resume_from = latest_checkpoint(ckdir);
  if (!cfg.resume && !resume_from.empty())
    throw ConfigError("run_dir: " + run.string() + " already holds checkpoints (" + resume_from +
                      "); pass --resume to continue that run or choose another --run-dir");
  if (cfg.resume && resume_from.empty())
    throw ConfigError("resume: " + ckdir + " has no checkpoint to resume from; start without --resume");

  torch::manual_seed(cfg.seed);
  DatasetSpec spec;
  spec.path = cfg.dataset;
  spec.split = cfg.dataset_split;
  spec.size = cfg.model.resolution;
  spec.channels = cfg.model.image_channels;
  auto dataset = open_dataset(spec);
  if (dataset->num_classes() > cfg.model.num_classes)
    throw ConfigError("num_classes: the model has " + std::to_string(cfg.model.num_classes) + " classes but " +
                      dataset->describe() + " has " + std::to_string(dataset->num_classes()) +
                      "; set num_classes = " + std::to_string(dataset->num_classes()));

  Generator g(cfg.model);
  Discriminator d(cfg.model);
  g->to(device);
  d->to(device);
  Generator g_ema{nullptr};
  if (cfg.ema) {
    g_ema = Generator(cfg.model);
    g_ema->to(device);
    ema_update(*g, *g_ema, 0.0);
    g_ema->eval();
  }
  auto adam = [&](torch::nn::Module& m, double lr) {
    return torch::optim::Adam(m.parameters(),
                              torch::optim::AdamOptions(lr).betas({cfg.beta1, cfg.beta2}).eps(cfg.adam_eps));
  };
  torch::optim::Adam g_opt = adam(*g, cfg.g_lr);
  torch::optim::Adam d_opt = adam(*d, cfg.d_lr);
  const CheckpointRefs refs{g, d, g_ema, &g_opt, &d_opt};

  TrainingState state;
  std::string last_checkpoint;
  if (cfg.resume) {
    const std::string want = model_config_to_text(cfg.model);
    const std::string have = model_config_to_text(read_checkpoint_model_config(resume_from));
    if (want != have)
      throw ConfigError("resume: the configured model differs from the one in " + resume_from +
                        "; resume with the run's own config (" + (run / "config.toml").string() + ")");
    state = load_checkpoint(resume_from, refs, /*restore_rng=*/true, device);
    last_checkpoint = resume_from;
    // Configured learning rates win over the stored ones (an override on resume takes effect).
    for (auto& group : g_opt.param_groups()) static_cast<torch::optim::AdamOptions&>(group.options()).lr(cfg.g_lr);
    for (auto& group : d_opt.param_groups()) static_cast<torch::optim::AdamOptions&>(group.options()).lr(cfg.d_lr);
    std::cerr << "train: resumed from step " << state.step << " (" << resume_from << ")\n";
  }
  write_text_atomically((run / "config.toml").string(), cfg.config_text);
  std::cerr << "train: " << dataset->describe() << "; device " << device << "; G " << count_parameters(*g)
            << " parameters, D " << count_parameters(*d) << "; run dir " << run.string() << "\n";

  LoaderOptions lo;
  lo.batch_size = cfg.batch_size;
  lo.seed = cfg.seed;
  lo.flip = cfg.flip;
  lo.workers = cfg.workers;
  DataLoader loader(dataset, lo, state.data_position);
  MetricsLog log((run / "metrics.jsonl").string(), cfg.resume ? state.step : -1);
  std::unique_ptr<TensorBoardWriter> tb;
  if (cfg.tensorboard) tb = std::make_unique<TensorBoardWriter>(run.string());

  // Fixed z and classes for the grids across the whole run (and its resumptions):
  // up to 10 evenly spaced classes, one row of 8 per class.
  const int64_t grid_classes = std::min<int64_t>(cfg.model.num_classes, 10), per_class = 8;
  at::Generator grid_gen = at::detail::createCPUGenerator(cfg.seed + 12345);
  const torch::Tensor grid_z = sample_z(grid_classes * per_class, cfg.model.z_dim, 0.0, grid_gen);
  std::vector<int64_t> grid_labels;
  for (int64_t k = 0; k < grid_classes; ++k)
    for (int64_t i = 0; i < per_class; ++i) grid_labels.push_back(k * cfg.model.num_classes / grid_classes);
  const torch::Tensor grid_y = torch::tensor(grid_labels, torch::kLong);
  Generator& shown = g_ema ? g_ema : g;
  auto write_grid = [&](int64_t step) {
    ScopedRngRestore keep_rng;  // the training random stream must not depend on sampling
    const bool was_training = shown->is_training();
    torch::Tensor images;
    {
      BufferSnapshot keep_buffers(*shown);  // standing statistics only for the grid
      accumulate_standing_stats(shown, cfg.standing_stats, cfg.batch_size, cfg.seed + 12346);
      images = generate(shown, grid_z, grid_y, 128);
    }
    shown->train(was_training);
    char name[40];
    std::snprintf(name, sizeof(name), "step_%07lld.png", static_cast<long long>(step));
    const std::string path = (run / "samples" / name).string();
    const torch::Tensor grid = make_grid(images, per_class);  // uint8 (C, H, W)
    save_png(grid, path);
    if (tb) {
      tb->add_image("samples", read_file(path), grid.size(1), grid.size(2), grid.size(0), step);
      tb->flush();
    }
  };
  auto evaluate = [&](int64_t step) {
    ScopedRngRestore keep_rng;
    const MetricRow row = evaluate_during_training(shown, cfg, step);
    if (row.empty()) return;
    log.append(step, row);
    std::ostringstream msg;
    for (const auto& [k, v] : row) {
      if (tb) tb->add_scalar("eval/" + k, v, step);
      msg << " " << k << " " << v;
    }
    if (tb) tb->flush();
    std::cerr << "\ntrain: step " << step << ":" << msg.str() << "\n";
  };

  int64_t step = state.step;
  auto diverged = [&](const std::string& what) {
    return Error("training diverged at step " + std::to_string(step) + " (" + what + "); last good checkpoint: " +
                 (last_checkpoint.empty() ? std::string("none") : last_checkpoint) +
                 " (continue from it with --resume, e.g. with lower g_lr/d_lr)");
  };
  auto save = [&] {
    if (!all_finite(*g) || !all_finite(*d)) throw diverged("non-finite weights; checkpoint not written");
    state.step = step;
    state.data_position = loader.position();
    state.config_text = cfg.config_text;
    const std::string name = checkpoint_file_name(step);
    save_checkpoint((fs::path(ckdir) / name).string(), cfg.model, refs, state);
    mark_latest_checkpoint(ckdir, name, cfg.keep_checkpoints);
    last_checkpoint = (fs::path(ckdir) / name).string();
  };

  TrainResult result;
  if (step >= cfg.steps) {
    std::cerr << "train: already at step " << step << " of " << cfg.steps << "; nothing to do\n";
    result.step = step;
    result.checkpoint = last_checkpoint;
    return result;
  }

  StopSignalGuard signals;
  ProgressBar::set_enabled(cfg.progress);
  ProgressBar bar("train", cfg.steps - step, "step");
  const auto opts = torch::TensorOptions().device(device);
  const int64_t nc = cfg.model.num_classes, zd = cfg.model.z_dim;
  Window win;
  g->train();
  d->train();
  while (step < cfg.steps) {
    torch::Tensor d_loss, d_real, d_fake;
    set_requires_grad(*d, true);
    for (int64_t k = 0; k < cfg.d_steps; ++k) {
      const Batch batch = loader.next();
      const int64_t b = batch.images.size(0);
      const torch::Tensor real = batch.images.to(device), y_real = batch.labels.to(device);
      const torch::Tensor z = torch::randn({b, zd}, opts);
      const torch::Tensor y_fake = torch::randint(0, nc, {b}, opts.dtype(torch::kLong));
      torch::Tensor fake;
      {
        torch::NoGradGuard no_grad;
        fake = g->forward(z, y_fake);
      }
      // One D call on real and fake together: one spectral-norm power iteration per D update.
      const torch::Tensor logits = d->forward(torch::cat({real, fake}), torch::cat({y_real, y_fake}));
      d_real = logits.slice(0, 0, b).mean();
      d_fake = logits.slice(0, b).mean();
      d_loss = discriminator_loss(cfg.loss, logits.slice(0, 0, b), logits.slice(0, b));
      d_opt.zero_grad();
      d_loss.backward();
      d_opt.step();
    }
    set_requires_grad(*d, false);
    const torch::Tensor z = torch::randn({cfg.batch_size, zd}, opts);
    const torch::Tensor y_fake = torch::randint(0, nc, {cfg.batch_size}, opts.dtype(torch::kLong));
    const torch::Tensor g_loss = generator_loss(cfg.loss, d->forward(g->forward(z, y_fake), y_fake));
    g_opt.zero_grad();
    g_loss.backward();
    g_opt.step();
    ++step;
    if (g_ema) ema_update(*g, *g_ema, ema_decay_at(step, cfg.ema_start, cfg.ema_decay));

    const torch::Tensor nums = torch::stack({d_loss.detach(), g_loss.detach(), d_real.detach(), d_fake.detach()})
                                   .to(torch::kCPU, torch::kDouble);
    const double* v = nums.data_ptr<double>();
    if (!std::isfinite(v[0]) || !std::isfinite(v[1])) {
      bar.finish();
      if (tb) tb->flush();
      throw diverged("d_loss " + json_number(v[0]) + ", g_loss " + json_number(v[1]));
    }
    win.d_loss += v[0], win.g_loss += v[1], win.d_real += v[2], win.d_fake += v[3], ++win.steps;
    bar.advance();
    char post[96];
    std::snprintf(post, sizeof(post), "step %lld  d %.3f  g %.3f", static_cast<long long>(step), v[0], v[1]);
    bar.set_postfix(post);
    if (cfg.after_step) cfg.after_step(step, *g, *d);

    if (step % cfg.log_every == 0 || step == cfg.steps) {
      const double secs =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - win.start).count();
      const double n = static_cast<double>(win.steps), its = n / std::max(secs, 1e-9);
      const MetricRow row = {{"d_loss", win.d_loss / n},
                             {"g_loss", win.g_loss / n},
                             {"d_real", win.d_real / n},
                             {"d_fake", win.d_fake / n},
                             {"g_lr", cfg.g_lr},
                             {"d_lr", cfg.d_lr},
                             {"it_per_s", its},
                             {"img_per_s", its * static_cast<double>(cfg.batch_size * cfg.d_steps)}};
      log.append(step, row);
      if (tb) {
        for (const auto& [k, val] : row) tb->add_scalar(k, val, step);
        tb->flush();
      }
      win = Window{};
    }
    const bool last = step == cfg.steps;
    if ((cfg.sample_every > 0 && step % cfg.sample_every == 0) || last) write_grid(step);
    if (cfg.eval_every > 0 && (step % cfg.eval_every == 0 || last)) evaluate(step);
    const bool stop = g_stop_requested.load();
    if ((cfg.checkpoint_every > 0 && step % cfg.checkpoint_every == 0) || stop || last) save();
    if (stop) {
      result.interrupted = true;
      bar.finish();
      std::cerr << "train: stopped at step " << step << "; checkpoint " << last_checkpoint
                << " (continue with --resume)\n";
      break;
    }
  }
  bar.finish();
  if (tb) tb->flush();
  result.step = step;
  result.checkpoint = last_checkpoint;
  return result;
}

}  // namespace hamgan
