// `hamgan bench fid`: the FID pipeline end to end (sample a 128×128 generator,
// Inception features, statistics, Fréchet distance), timed per stage;
// --extract_only: feature-extraction images/s of Inception and the classifier.
#include <iostream>

#include "cli/fid_options.h"
#include "cli/model_options.h"
#include "core/errors.h"
#include "core/threads.h"
#include "gan/eval/fid_bench.h"

namespace hamgan::cli {
namespace {

struct BenchFidArgs {
  FidPipelineBenchConfig pipeline;
  FidBenchConfig extract;
  bool extract_only = false;
  std::string block;
};

// Options that belong to one mode only: naming one in the other mode is a mistake, not a no-op.
void refuse_options_of_other_mode(CLI::App* sub, bool extract_only) {
  const std::vector<std::string> pipeline_only{"--n", "--checkpoint", "--block", "--reference", "--json"};
  const std::vector<std::string> extract_only_options{"--images", "--size", "--classifier"};
  for (const auto& name : extract_only ? pipeline_only : extract_only_options)
    if (sub->get_option(name)->count() > 0)
      throw ConfigError(extract_only ? "bench fid: " + name + " is for the end-to-end run; drop it or --extract_only"
                                     : "bench fid: " + name + " is for --extract_only (the end-to-end run samples "
                                           "its images from the generator: set its side with --resolution)");
}

}  // namespace

static CommandRegistrar bench_fid_registrar("bench.fid", [](CLI::App& root) {
  auto* sub = root.get_subcommand("bench")->add_subcommand(
      "fid", "FID pipeline time per stage: sample G, Inception features, statistics, Fréchet distance "
             "(random weights unless given); --extract_only: feature extraction images/s");
  add_config_file_option(sub);
  auto args = std::make_shared<BenchFidArgs>();
  auto& p = args->pipeline;
  p.model = model_preset("hamgan128");
  p.model.block_resolution = 0;  // the paper's 32 at 128×128; still valid when --resolution 32 shrinks G
  auto finish_features = add_feature_options(sub, p.features);
  sub->get_option("--features")
      ->description("Feature extractor: inception, inception:PATH, classifier:PATH or classifier (an untrained one, "
                    "for a quick check)");
  sub->add_flag("--extract_only", args->extract_only,
                "Time feature extraction alone on synthetic images (Inception and the classifier)");
  sub->add_option("--n", p.n, "Images sampled and scored")->check(CLI::Range(int64_t{2}, INT64_MAX))->capture_default_str();
  sub->add_option("--batch", p.batch, "Images per generator and extractor call")->check(CLI::PositiveNumber)->capture_default_str();
  sub->add_option("--seed", p.seed, "Seed of z, random weights and the synthetic reference")->capture_default_str();
  sub->add_option("--threads", p.threads, "CPU threads (0: LibTorch default)")->check(CLI::NonNegativeNumber)->capture_default_str();
  sub->add_option("--checkpoint", p.checkpoint, "Trained generator (checkpoint file or run directory; default: random weights)")
      ->check(CLI::ExistingPath);
  sub->add_option("--block", args->block, "Context block of the random-weight G (sets --g_block; default ham)");
  sub->add_option("--reference", p.reference, "Reference statistics .npz (default: synthetic statistics of the feature size)");
  sub->add_option("--json", p.json, "Also write the result as JSON to this file");
  sub->add_option("--classifier", args->extract.classifier, "--extract_only: classifier file (default: an untrained one)");
  sub->add_option("--images", args->extract.images, "--extract_only: images timed per extractor")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sub->add_option("--size", args->extract.size, "--extract_only: side of the synthetic input images")
      ->check(CLI::Range(8, 4096))
      ->capture_default_str();
  add_model_options(sub, p.model);  // the generator: hamgan128 unless changed here or by --config
  sub->callback([sub, args, finish_features] {
    finish_features();
    refuse_options_of_other_mode(sub, args->extract_only);
    auto& p = args->pipeline;
    if (args->extract_only) {
      args->extract.features = p.features;
      args->extract.batch = p.batch;
      apply_thread_count(p.threads);
      run_fid_bench(args->extract, std::cout);
      return;
    }
    if (!args->block.empty()) p.model.g_block.name = args->block;
    if (!p.checkpoint.empty())
      for (const auto& name : model_option_names())
        if (sub->get_option("--" + name)->count() > 0 || (name == "g_block" && !args->block.empty()))
          throw ConfigError("bench fid: --checkpoint brings its own model; drop --" +
                            std::string(name == "g_block" && !args->block.empty() ? "block" : name));
    run_fid_pipeline_bench(p, std::cout);
  });
});

}  // namespace hamgan::cli
