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
#include "core/dir_lock.h"
#include "core/errors.h"
#include "core/stop_signal.h"
#include "core/distributed/local_launcher.h"
#include "gan/train/data_parallel.h"
#include "gan/train/run_control.h"
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
  auto* sub = root.add_subcommand("train", "Train a class-conditional GAN (run dir: config, metrics, samples, checkpoints)");
  add_config_file_option(sub);
  add_model_options(sub, cfg->model);
  add_field_options(sub, train_config_fields(), *cfg, "Training", {"run_dir"});  // --run-dir too
  add_field_options(sub, train_run_control_fields(), *cfg, "Run");
  auto nproc = std::make_shared<int64_t>(1);
  add_field_option(
      sub,
      int_field("nproc", "Data-parallel ranks to start on this machine (without torchrun); batch_size stays the "
                         "global batch",
                between(1, 1024)),
      [nproc](const std::string& value) { parse_value(value, *nproc); }, "1", "Run");
  command_line_only(sub, "nproc");  // the workers re-read the --config file
  on_run(sub, [cfg, sub, nproc] {
    // Same command + --resume finds the run again: its directory is named after the config file.
    const CLI::Option* config = sub->get_option("--config");
    if (!option_given(sub, "run_dir") && config->count() > 0)
      cfg->run_dir = "runs/" + std::filesystem::path(config->as<std::string>()).stem().string();
    if (*nproc > 1) {
      if (std::getenv("WORLD_SIZE") || std::getenv("RANK"))
        throw ConfigError("--nproc: this process is already a rank of a launched job (RANK/WORLD_SIZE are set); "
                          "drop --nproc when starting through torchrun or SLURM");
      // Checked once here, before any rank starts: otherwise each rank prints the same error, or
      // the ranks that got past it wait dist_timeout for the one that did not.
      cfg->validate();
      check_local_ranks(*nproc, cfg->device, cfg->batch_size, cfg->accumulate);
      { const DirectoryLock run_is_free(cfg->run_dir); }  // released at once: rank 0 takes it
      run_local_workers(worker_arguments(command_arguments()), *nproc, std::chrono::seconds(cfg->dist_timeout));
      std::cout << "train: " << *nproc << " ranks " << (stop_requested() ? "stopped (checkpoint saved)" : "finished")
                << "; samples in " << cfg->run_dir << "/samples; curves: hamgan plot " << cfg->run_dir << "\n";
      return;
    }
    cfg->config_text = resolved_config_text(*cfg);
    const TrainResult r = train(*cfg);
    // A time-limit stop is a job to continue, like SIGUSR1: exit status 75, which batch scripts requeue on.
    if (r.time_limit_reached) request_requeue();
    if (!r.main_rank) return;
    const std::string why = r.time_limit_reached ? " before the time limit (" + format_duration(cfg->time_limit) + ")"
                            : requeue_requested()  ? " on SIGUSR1"
                                                   : "";
    const std::string status = requeue_requested() ? " (exit status " + std::to_string(kRequeueExitStatus) + ")"
                                                   : "";
    std::cout << "train: " << (r.interrupted ? "stopped" : "finished") << " at step " << r.step << why << status << "; "
              << (r.checkpoint.empty() ? std::string("no checkpoint") : "checkpoint " + r.checkpoint)
              << "; samples in " << cfg->run_dir << "/samples; curves: hamgan plot " << cfg->run_dir << "\n";
  });
});

}  // namespace hamgan::cli
