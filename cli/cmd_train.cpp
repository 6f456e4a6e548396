// `hamgan train`: options generated from the model and train field tables (TOML keys = long
// option names) onto TrainConfig, then hamgan::train.
#include <filesystem>
#include <iostream>
#include <cstdlib>
#include <memory>

#include "cli/command.h"
#include "cli/field_options.h"
#include "cli/model_options.h"
#include "core/build_info.h"
#include "core/errors.h"
#include "core/stop_signal.h"
#include "core/distributed/local_launcher.h"
#include "gan/train/trainer.h"

namespace hamgan::cli {

// The launcher's arguments for its workers: the same, less --nproc and its value.
static std::vector<std::string> worker_arguments(const std::vector<std::string>& argv) {
  std::vector<std::string> out;
  for (size_t i = 1; i < argv.size(); ++i) {
    if (argv[i] == "--nproc") {
      ++i;
      continue;
    }
    if (argv[i].rfind("--nproc=", 0) == 0) continue;
    out.push_back(argv[i]);
  }
  return out;
}

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
  auto nproc = std::make_shared<int64_t>(1);
  sub->add_option("--nproc", *nproc,
                  "Data-parallel ranks to start on this machine (without torchrun); batch_size stays the global batch")
      ->check(CLI::Range(int64_t{1}, int64_t{1024}))
      ->configurable(false);
  sub->callback([cfg, quiet, sub, run_dir, nproc] {
    if (*nproc > 1) {
      if (std::getenv("WORLD_SIZE") || std::getenv("RANK"))
        throw ConfigError("--nproc: this process is already a rank of a launched job (RANK/WORLD_SIZE are set); "
                          "drop --nproc when starting through torchrun or SLURM");
      run_local_workers(worker_arguments(command_arguments()), *nproc, std::chrono::seconds(cfg->dist_timeout));
      std::cout << "train: " << *nproc << " ranks " << (stop_requested() ? "stopped (checkpoint saved)" : "finished")
                << "; samples in " << cfg->run_dir << "/samples; curves: hamgan plot " << cfg->run_dir << "\n";
      return;
    }
    cfg->progress = !*quiet;
    // Same command + --resume finds the run again: its directory is named after the config file.
    const CLI::Option* config = sub->get_option("--config");
    if (run_dir->count() == 0 && config->count() > 0)
      cfg->run_dir = "runs/" + std::filesystem::path(config->as<std::string>()).stem().string();
    cfg->config_text = resolved_config_text(*cfg);
    const TrainResult r = train(*cfg);
    if (!r.main_rank) return;
    std::cout << "train: " << (r.interrupted ? "stopped" : "finished") << " at step " << r.step << "; "
              << (r.checkpoint.empty() ? std::string("no checkpoint") : "checkpoint " + r.checkpoint)
              << "; samples in " << cfg->run_dir << "/samples; curves: hamgan plot " << cfg->run_dir << "\n";
  });
});

}  // namespace hamgan::cli
