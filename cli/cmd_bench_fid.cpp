// `hamgan bench fid`: the FID pipeline end to end (sample a 128×128 generator,
// Inception features, statistics, Fréchet distance), timed per stage;
// --extract_only: feature-extraction images/s of Inception and the classifier.
#include <filesystem>
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
void refuse_options_of_other_mode(const CLI::App* sub, bool extract_only) {
  const std::vector<std::string> pipeline_only{"n", "checkpoint", "block", "reference", "json"};
  const std::vector<std::string> extract_only_options{"images", "size", "classifier"};
  for (const auto& name : extract_only ? pipeline_only : extract_only_options)
    if (option_given(sub, name))
      throw ConfigError(extract_only ? "bench fid: --" + name + " is for the end-to-end run; drop it or --extract_only"
                                     : "bench fid: --" + name + " is for --extract_only (the end-to-end run samples "
                                           "its images from the generator: set its side with --resolution)");
}

// A file or directory that exists.
std::string existing_path(const std::string& path) {
  return std::filesystem::exists(path) ? "" : path + ": no such file; give the path of an existing file";
}

FieldTable<BenchFidArgs> bench_fid_fields() {
  using A = BenchFidArgs;
  using P = FidPipelineBenchConfig;
  FieldTable<FeatureOptions> features = feature_option_fields();
  features[0].spec.help = "Feature extractor: inception, inception:PATH, classifier:PATH or classifier (an untrained "
                          "one, for a quick check)";
  const FieldTable<P> pipeline = {
      member_field(int_field("n", "Images sampled and scored", at_least(2)), &P::n),
      member_field(int_field("batch", "Images per generator and extractor call", at_least(1)), &P::batch),
      member_field(int_field("seed", "Seed of z, random weights and the synthetic reference", at_least(0)), &P::seed),
      member_field(int_field("threads", "CPU threads (0: LibTorch default)", at_least(0)), &P::threads),
      member_field(string_field("checkpoint", "Trained generator (checkpoint file or run directory; default: random "
                                              "weights)",
                                existing_path),
                   &P::checkpoint),
      member_field(string_field("reference", "Reference statistics .npz (default: synthetic statistics of the "
                                             "feature size)"),
                   &P::reference),
      member_field(string_field("json", "Also write the result as JSON to this file"), &P::json),
  };
  const FieldTable<FidBenchConfig> extract = {
      member_field(string_field("classifier", "--extract_only: classifier file (default: an untrained one)"),
                   &FidBenchConfig::classifier),
      member_field(int_field("images", "--extract_only: images timed per extractor", at_least(1)),
                   &FidBenchConfig::images),
      member_field(int_field("size", "--extract_only: side of the synthetic input images", between(8, 4096)),
                   &FidBenchConfig::size),
  };
  const FieldTable<A> own = {
      member_field(flag_field("extract_only", "Time feature extraction alone on synthetic images (Inception and the "
                                              "classifier)"),
                   &A::extract_only),
      member_field(string_field("block", "Context block of the random-weight G (sets --g_block; default ham)"),
                   &A::block),
  };
  const FieldTable<P> pipeline_features = nested_fields(features, &P::features);
  auto t = concat_fields(nested_fields(pipeline_features, &A::pipeline), own);
  t = concat_fields(t, nested_fields(pipeline, &A::pipeline));
  return concat_fields(t, nested_fields(extract, &A::extract));
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
  add_field_options(sub, bench_fid_fields(), *args, "Options");
  add_model_options(sub, p.model);  // the generator: hamgan128 unless changed here or by --config
  on_run(sub, [sub, args] {
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
        if (option_given(sub, name) || (name == "g_block" && !args->block.empty()))
          throw ConfigError("bench fid: --checkpoint brings its own model; drop --" +
                            std::string(name == "g_block" && !args->block.empty() ? "block" : name));
    run_fid_pipeline_bench(p, std::cout);
  });
});

}  // namespace hamgan::cli
