// `hamgan train`: options generated from the model and train field tables (TOML keys = long
// option names) onto TrainConfig, then hamgan::train.
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/field_options.h"
#include "cli/model_options.h"
#include "gan/train/trainer.h"

namespace hamgan::cli {

static CommandRegistrar train_registrar("train", [](CLI::App& root) {
  auto cfg = std::make_shared<TrainConfig>();
  auto quiet = std::make_shared<bool>(false);
  auto* sub = root.add_subcommand("train", "Train a class-conditional GAN (run dir: config, metrics, samples, checkpoints)");
  add_config_file_option(sub);
  add_model_options(sub, cfg->model);
  add_field_options(sub, train_config_fields(), *cfg, "Training", {"run_dir"});  // --run-dir too
  const CLI::Option* run_dir = sub->get_option("--run_dir");
  sub->add_flag("--resume", cfg->resume, "Continue from the run dir's latest checkpoint");
  sub->add_flag("--allow_config_change", cfg->allow_config_change,
                "With --resume: accept a changed seed, batch_size, dataset, ... (recorded in config_changes.log)")
      ->configurable(false);
  sub->add_flag("--quiet", *quiet, "No progress bar")->configurable(false);
  sub->callback([cfg, quiet, sub, run_dir] {
    cfg->progress = !*quiet;
    // Same command + --resume finds the run again: its directory is named after the config file.
    const CLI::Option* config = sub->get_option("--config");
    if (run_dir->count() == 0 && config->count() > 0)
      cfg->run_dir = "runs/" + std::filesystem::path(config->as<std::string>()).stem().string();
    cfg->config_text = resolved_config_text(*cfg);
    const TrainResult r = train(*cfg);
    std::cout << "train: " << (r.interrupted ? "stopped" : "finished") << " at step " << r.step << "; "
              << (r.checkpoint.empty() ? std::string("no checkpoint") : "checkpoint " + r.checkpoint)
              << "; samples in " << cfg->run_dir << "/samples; curves: hamgan plot " << cfg->run_dir << "\n";
  });
});

}  // namespace hamgan::cli
