#include "gan/eval/fid_bench.h"

#include <torch/version.h>

#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <ostream>

#include "core/atomic_file.h"
#include "core/device.h"
#include "core/errors.h"
#include "core/progress.h"
#include "core/rng.h"
#include "core/stage_timer.h"
#include "core/stop_signal.h"
#include "core/threads.h"
#include "gan/checkpoint/run_dir.h"
#include "gan/model/generator.h"
#include "gan/report/provenance.h"
#include "gan/sample/load_generator.h"
#include "metrics/frechet.h"
#include "metrics/image_source.h"
#include "metrics/stats.h"
#include "core/seeds.h"

namespace hamgan {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

std::string side_text(int64_t side) { return std::to_string(side) + "×" + std::to_string(side); }

// Statistics of the right size when no reference file is given: a random mean
// and a random full-rank covariance (A Aᵀ / D), so the Fréchet distance does
// the same work as against real ImageNet statistics.
FeatureStats synthetic_reference(int64_t dim, uint64_t seed) {
  at::Generator gen = make_cpu_generator(derived_seed(seed, SeedPurpose::kSyntheticReference));
  const auto f64 = torch::TensorOptions().dtype(torch::kFloat64);
  FeatureStats s;
  s.mu = torch::randn({dim}, gen, f64);
  const torch::Tensor a = torch::randn({dim, dim}, gen, f64);
  s.sigma = torch::mm(a, a.t()) / double(dim);
  s.n = 50000;
  return s;
}

FeatureStats load_reference(const std::string& path, int64_t dim) {
  FeatureStats s = load_stats(path);
  if (s.mu.size(0) != dim)
    throw ConfigError("bench fid: reference " + path + " holds " + std::to_string(s.mu.size(0)) +
                      "-d statistics but the extractor gives " + std::to_string(dim) +
                      "-d features; use statistics made with the same extractor");
  return s;
}

void check_config(const FidPipelineBenchConfig& c) {
  if (c.n < 2) throw ConfigError("bench fid: --n must be ≥ 2 (a covariance needs two samples), got " + std::to_string(c.n));
  if (c.batch < 1) throw ConfigError("bench fid: --batch must be ≥ 1, got " + std::to_string(c.batch));
  if (c.checkpoint.empty()) c.model.validate();
  // Before any network is built, so a typo costs no setup time.
  if (!c.reference.empty() && !std::filesystem::is_regular_file(c.reference))
    throw ConfigError("bench fid: reference statistics " + c.reference +
                      " not found; make them with 'hamgan fid-stats SRC --out F.npz' or leave --reference out "
                      "for synthetic ones");
}

// The generator in eval mode on `device`, and how to name it.
std::pair<Generator, std::string> make_generator(const FidPipelineBenchConfig& c, torch::Device device) {
  if (!c.checkpoint.empty()) {
    const std::string file = resolve_checkpoint_path(c.checkpoint);
    Generator g = load_generator(file, /*use_ema=*/true, device, /*standing_batches=*/0, c.seed);
    const ModelConfig& m = g->config();
    return {g, "checkpoint " + file + " (EMA weights, stored BN statistics; " + side_text(m.resolution) + ", block " +
                   m.g_block.name + ", " + std::to_string(m.num_classes) + " classes)"};
  }
  Generator g(c.model);  // initialised by its constructor (c.model.init) from the global seed
  g->to(device);
  g->eval();
  return {g, "random weights (" + to_string(c.model.init) + "; " + side_text(c.model.resolution) + ", block " +
                 c.model.g_block.name + ", g_ch " + std::to_string(c.model.g_ch) + ", " +
                 std::to_string(c.model.num_classes) + " classes)"};
}

// One batch of class-balanced samples (image i gets class i mod K), made on the
// device and quantised there, as the FID path quantises generator output.
torch::Tensor sample_batch(Generator& g, int64_t offset, int64_t count, torch::Device device) {
  const ModelConfig& m = g->config();
  const auto on = torch::TensorOptions().device(device);
  const torch::Tensor z = torch::randn({count, m.z_dim}, on.dtype(torch::kFloat32));
  const torch::Tensor labels = torch::arange(offset, offset + count, on.dtype(torch::kInt64)) %
                               std::max<int64_t>(1, m.num_classes);
  return quantize_images(g->forward(z, labels));
}

// As make_feature_extractor, and a bare "classifier" is an untrained default
// classifier (128-d features): a quick check of the pipeline in seconds on a CPU.
std::unique_ptr<FeatureExtractor> make_extractor(const FeatureOptions& o, torch::Device device) {
  if (o.spec == "classifier")
    return make_classifier_features(FeatureClassifier(ClassifierConfig{}), device, "(untrained, default architecture)");
  return make_feature_extractor(o);
}

std::string format_fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

void print_table(const FidPipelineBenchResult& r, std::ostream& out) {
  out << "| stage | seconds | share | images/s |\n|---|---|---|---|\n";
  for (size_t s = 0; s < kFidStageCount; ++s) {
    const double t = r.stage_seconds[s];
    out << "| " << fid_stage_name(s) << " | " << format_fixed(t, 3) << " | "
        << format_fixed(r.total_seconds > 0 ? 100.0 * t / r.total_seconds : 0.0, 1) << "% | "
        << (s == kFrechet || t <= 0 ? std::string("-") : format_fixed(r.n / t, 1)) << " |\n";
  }
  out << "| total | " << format_fixed(r.total_seconds, 3) << " | 100.0% | " << format_fixed(r.n / r.total_seconds, 1)
      << " |\n";
}

}  // namespace

const char* fid_stage_name(size_t stage) {
  static const char* const names[kFidStageCount] = {"sampling", "features", "statistics", "frechet"};
  TORCH_CHECK(stage < kFidStageCount, "fid_stage_name: stage ", stage);
  return names[stage];
}

FidPipelineBenchResult run_fid_pipeline_bench(const FidPipelineBenchConfig& c, std::ostream& out) {
  check_config(c);
  const int threads = apply_thread_count(c.threads);
  const torch::Device device = resolve_device(c.features.device);
  torch::NoGradGuard no_grad;
  torch::manual_seed(c.seed);

  const auto setup_start = Clock::now();
  auto [g, generator_text] = make_generator(c, device);
  FeatureOptions fo = c.features;
  fo.allow_random = true;  // a benchmark: the network's cost does not depend on its weights
  const auto extractor = make_extractor(fo, device);
  const FeatureStats reference =
      c.reference.empty() ? synthetic_reference(extractor->dim(), c.seed) : load_reference(c.reference, extractor->dim());
  // One untimed batch: allocator growth, kernel selection and lazy initialisation.
  extractor->extract(sample_batch(g, 0, std::min(c.batch, c.n), device));
  synchronize(device);

  FidPipelineBenchResult r;
  r.setup_seconds = seconds_since(setup_start);
  r.n = c.n;
  r.batch = c.batch;
  r.threads = threads;
  r.device = device_name(device);
  r.device_name = device_description(device);
  r.torch_version = TORCH_VERSION;
  r.generator = generator_text;
  r.features = extractor->describe();
  r.reference = c.reference.empty() ? "synthetic " + std::to_string(extractor->dim()) + "-d statistics (seed " +
                                          std::to_string(c.seed) + ")"
                                    : c.reference;
  out << "device: " << r.device << " (" << r.device_name << "), LibTorch " << r.torch_version << ", fp32\n"
      << "generator: " << r.generator << "\n"
      << "features: " << r.features << "\n"
      << "reference: " << r.reference << "\n"
      << "images: " << c.n << " in batches of " << c.batch << "\n"
      << "setup (networks, reference, one warm-up batch; not in the total): " << format_fixed(r.setup_seconds, 3)
      << " s\n"
      << std::flush;

  // Everything stays on the device until the statistics are finished: no host
  // wait per batch (on CUDA the timer reads its events once, at the end).
  StageTimer timer(device, kFidStageCount);
  RunningStats running;
  ProgressBar bar("fid bench", c.n, "img");
  const auto wall_start = Clock::now();
  for (int64_t offset = 0; offset < c.n; offset += c.batch) {
    throw_if_stop_requested("bench fid");
    const int64_t count = std::min(c.batch, c.n - offset);
    timer.restart();
    const torch::Tensor images = sample_batch(g, offset, count, device);
    timer.lap(kSampling);
    const torch::Tensor features = extractor->extract(images).features;
    timer.lap(kFeatures);
    running.add(features);
    timer.lap(kStatistics);
    bar.advance(count);
  }
  bar.finish();
  timer.restart();
  const FeatureStats stats = running.finish();
  timer.lap(kStatistics);
  r.fid = frechet_distance(stats.mu, stats.sigma, reference.mu, reference.sigma).distance;
  timer.lap(kFrechet);
  const std::vector<double> seconds = timer.seconds();
  r.wall_seconds = seconds_since(wall_start);

  for (size_t s = 0; s < kFidStageCount; ++s) {
    r.stage_seconds[s] = seconds[s];
    r.total_seconds += seconds[s];
  }
  print_table(r, out);
  const bool real_score = !c.checkpoint.empty() && !c.reference.empty() &&
                          (fo.spec.rfind("classifier:", 0) == 0 || !resolve_inception_path(fo).empty());
  out << "wall (with loop overhead): " << format_fixed(r.wall_seconds, 3) << " s\n"
      << "FID: " << r.fid << (real_score ? "\n" : " (random weights or synthetic reference: a timing, not a score)\n");
  if (!c.json.empty()) {
    write_text_atomically(c.json, fid_pipeline_bench_json(r));
    out << "wrote " << c.json << "\n";
  }
  return r;
}

std::string fid_pipeline_bench_json(const FidPipelineBenchResult& r) {
  nlohmann::ordered_json j;
  j["device"] = r.device;
  j["device_name"] = r.device_name;
  j["torch_version"] = r.torch_version;
  j["precision"] = "fp32";
  j["threads"] = r.threads;
  j["n"] = r.n;
  j["batch"] = r.batch;
  j["generator"] = r.generator;
  j["features"] = r.features;
  j["reference"] = r.reference;
  nlohmann::ordered_json stages;
  for (size_t s = 0; s < kFidStageCount; ++s) stages[fid_stage_name(s)] = r.stage_seconds[s];
  j["stages_s"] = stages;
  j["total_s"] = r.total_seconds;
  j["images_per_s"] = r.total_seconds > 0 ? r.n / r.total_seconds : 0.0;
  j["wall_s"] = r.wall_seconds;
  j["setup_s"] = r.setup_seconds;
  j["fid"] = r.fid;
  return j.dump(2) + "\n";
}

}  // namespace hamgan
