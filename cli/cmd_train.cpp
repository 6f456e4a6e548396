// `hamgan train`: maps options (TOML keys = long option names) onto TrainConfig and calls hamgan::train.
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>

#include "cli/command.h"
#include "cli/model_options.h"
#include "gan/trainer.h"

namespace hamgan::cli {

static CommandRegistrar train_registrar("train", [](CLI::App& root) {
  auto cfg = std::make_shared<TrainConfig>();
  auto loss = std::make_shared<std::string>(to_string(cfg->loss));
  auto quiet = std::make_shared<bool>(false);
  auto* sub = root.add_subcommand("train", "Train a class-conditional GAN (run dir: config, metrics, samples, checkpoints)");
  add_config_file_option(sub);
  add_model_options(sub, cfg->model);
  TrainConfig& c = *cfg;
  sub->add_option("--dataset", c.dataset, "IDX directory, image folder or .hdf5 file")->capture_default_str();
  sub->add_option("--dataset_split", c.dataset_split, "IDX split")->check(CLI::IsMember({"train", "test"}))->capture_default_str();
  sub->add_option("--flip", c.flip, "Random horizontal flips of real images")->capture_default_str();
  sub->add_option("--workers", c.workers, "Data decoding threads")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--batch_size", c.batch_size, "Images per D and per G update")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--steps", c.steps, "Total steps (d_steps D updates + 1 G update each)")->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_option("--g_lr", c.g_lr, "Generator Adam learning rate")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--d_lr", c.d_lr, "Discriminator Adam learning rate")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--beta1", c.beta1, "Adam beta1")->check(CLI::Range(0.0, 0.999999))->capture_default_str();
  sub->add_option("--beta2", c.beta2, "Adam beta2")->check(CLI::Range(0.0, 0.999999))->capture_default_str();
  sub->add_option("--adam_eps", c.adam_eps, "Adam epsilon")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--d_steps", c.d_steps, "D updates per G update")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--loss", *loss, "hinge | ns (non-saturating)")->check(CLI::IsMember({"hinge", "ns"}))->capture_default_str();
  sub->add_option("--ema", c.ema, "Keep an EMA of G's weights for samples and evaluation")->capture_default_str();
  sub->add_option("--ema_decay", c.ema_decay, "EMA decay")->check(CLI::Range(0.0, 0.999999999))->capture_default_str();
  sub->add_option("--ema_start", c.ema_start, "G updates before which the EMA copies G")->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_option("--seed", c.seed, "Seed of weights, noise, labels and data order")->capture_default_str();
  sub->add_option("--device", c.device, "auto | cpu | cuda | cuda:N")->capture_default_str();
  sub->add_option("--threads", c.threads, "LibTorch CPU threads (0 = default)")->check(CLI::NonNegativeNumber)->capture_default_str();
  auto* run_dir = sub->add_option("--run_dir,--run-dir", c.run_dir, "Run directory (default runs/<config name>)")->capture_default_str();
  sub->add_flag("--resume", c.resume, "Continue from the run dir's latest checkpoint");
  sub->add_option("--log_every", c.log_every, "Steps between metrics rows")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--sample_every", c.sample_every, "Steps between sample grids (0: end only)")->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_option("--checkpoint_every", c.checkpoint_every, "Steps between checkpoints (0: end only)")->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_option("--keep_checkpoints", c.keep_checkpoints, "Newest checkpoint files kept")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--eval_every", c.eval_every, "Steps between class-consistency evaluations (0: off)")->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_option("--eval_n", c.eval_n, "Generated images per evaluation")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--standing_stats", c.standing_stats, "Batches to recompute G's BN statistics over before grids and evaluation (0: stored moving averages)")->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_option("--classifier", c.classifier, "Fashion-MNIST classifier for evaluation (built if missing)")->capture_default_str();
  sub->add_option("--tensorboard", c.tensorboard, "Write TensorBoard event files into the run dir")->capture_default_str();
  sub->add_flag("--quiet", *quiet, "No progress bar")->configurable(false);
  sub->callback([cfg, loss, quiet, sub, run_dir] {
    cfg->loss = parse_loss_type(*loss);
    cfg->progress = !*quiet;
    // Same command + --resume finds the run again: its directory is named after the config file.
    const CLI::Option* config = sub->get_config_ptr();
    if (run_dir->count() == 0 && config != nullptr && config->count() > 0) {
      cfg->run_dir = "runs/" + std::filesystem::path(config->as<std::string>()).stem().string();
      run_dir->add_result(cfg->run_dir);
    }
    // The resolved file names every value itself, so the config-file key is left out.
    std::istringstream all(sub->config_to_str(/*default_also=*/true, /*write_description=*/false));
    cfg->config_text = "# resolved by hamgan train; reproduce with: hamgan train --config THIS_FILE\n";
    for (std::string line; std::getline(all, line);)
      if (line.rfind("config=", 0) != 0 && line.rfind("config =", 0) != 0) cfg->config_text += line + "\n";
    const TrainResult r = train(*cfg);
    std::cout << "train: " << (r.interrupted ? "stopped" : "finished") << " at step " << r.step << "; checkpoint "
              << r.checkpoint << "; samples in " << cfg->run_dir << "/samples; curves: hamgan plot " << cfg->run_dir
              << "\n";
  });
});

}  // namespace hamgan::cli
