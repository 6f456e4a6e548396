#include "cli/model_options.h"

#include <sstream>

#include "modules/context_block.h"

namespace hamgan::cli {
namespace {
std::string fmt(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}
}  // namespace

std::vector<std::string> model_option_names() {
  return {"resolution",     "image_channels",  "num_classes", "z_dim",       "g_ch",     "d_ch",
          "block_resolution", "g_block",       "d_block",     "ham_type",    "ham_train_steps",
          "ham_eval_steps", "ham_rank",        "ham_gradient", "ham_temperature", "ham_beta", "ham_init", "init"};
}

void add_model_options(CLI::App* app, hamgan::ModelConfig& cfg) {
  const std::string group = "Model";
  app->add_option("--resolution", cfg.resolution, "Image side (32, 64 or 128)")
      ->check(CLI::IsMember({32, 64, 128}))->capture_default_str()->group(group);
  app->add_option("--image_channels", cfg.image_channels, "Image channels (1 grey, 3 RGB)")
      ->check(CLI::PositiveNumber)->capture_default_str()->group(group);
  app->add_option("--num_classes", cfg.num_classes, "Number of classes")
      ->check(CLI::PositiveNumber)->capture_default_str()->group(group);
  app->add_option("--z_dim", cfg.z_dim, "Latent dimension")->check(CLI::PositiveNumber)->capture_default_str()
      ->group(group);
  app->add_option("--g_ch", cfg.g_ch, "Generator channel multiplier (reference 64)")
      ->check(CLI::PositiveNumber)->capture_default_str()->group(group);
  app->add_option("--d_ch", cfg.d_ch, "Discriminator channel multiplier (reference 64)")
      ->check(CLI::PositiveNumber)->capture_default_str()->group(group);
  app->add_option("--block_resolution", cfg.block_resolution,
                  "Feature-map side of the context block in G and D (8..resolution/2); 0 = min(32, resolution/2)")
      ->check(CLI::IsMember({0, 8, 16, 32, 64}))->capture_default_str()->group(group);
  const auto blocks = context_block_names();
  app->add_option("--g_block", cfg.g_block.name, "Context block of G")
      ->check(CLI::IsMember(blocks))->capture_default_str()->group(group);
  app->add_option("--d_block", cfg.d_block.name, "Context block of D")
      ->check(CLI::IsMember(blocks))->capture_default_str()->group(group);

  // Hamburger options apply to both networks' blocks (§3.1: G and D differ only in d and r = d/8).
  auto* c = &cfg;
  app->add_option_function<std::string>(
         "--ham_type", [c](const std::string& s) { c->g_block.ham_type = c->d_block.ham_type = parse_ham_type(s); },
         "Matrix decomposition of the ham block: nmf, vq or cd")
      ->check(CLI::IsMember({"nmf", "vq", "cd"}))->default_str(to_string(cfg.g_block.ham_type))->group(group);
  app->add_option_function<int64_t>(
         "--ham_train_steps", [c](int64_t k) { c->g_block.train_steps = c->d_block.train_steps = k; },
         "Ham iterations K while training")
      ->check(CLI::PositiveNumber)->default_str(std::to_string(cfg.g_block.train_steps))->group(group);
  app->add_option_function<int64_t>(
         "--ham_eval_steps", [c](int64_t k) { c->g_block.eval_steps = c->d_block.eval_steps = k; },
         "Ham iterations K in eval")
      ->check(CLI::PositiveNumber)->default_str(std::to_string(cfg.g_block.eval_steps))->group(group);
  app->add_option_function<int64_t>(
         "--ham_rank", [c](int64_t r) { c->g_block.rank = c->d_block.rank = r; }, "Ham rank r; 0 = d/8")
      ->check(CLI::NonNegativeNumber)->default_str(std::to_string(cfg.g_block.rank))->group(group);
  app->add_option_function<std::string>(
         "--ham_gradient",
         [c](const std::string& s) { c->g_block.gradient = c->d_block.gradient = parse_ham_gradient(s); },
         "Ham gradient: one-step or bptt")
      ->check(CLI::IsMember({to_string(HamGradient::kOneStep), to_string(HamGradient::kBPTT)}))
      ->default_str(to_string(cfg.g_block.gradient))->group(group);
  app->add_option_function<double>(
         "--ham_temperature", [c](double t) { c->g_block.temperature = c->d_block.temperature = t; },
         "Ham softmax temperature; 0 = reference (NMF 1, VQ/CD 0.01)")
      ->check(CLI::NonNegativeNumber)->default_str(fmt(cfg.g_block.temperature))->group(group);
  app->add_option_function<double>(
         "--ham_beta", [c](double b) { c->g_block.beta = c->d_block.beta = b; }, "CD ridge term")
      ->check(CLI::PositiveNumber)->default_str(fmt(cfg.g_block.beta))->group(group);
  app->add_option_function<std::string>(
         "--ham_init", [c](const std::string& s) { c->g_block.init = c->d_block.init = parse_ham_init(s); },
         "Ham bases: random (fresh each forward) or online")
      ->check(CLI::IsMember({to_string(HamInit::kRandom), to_string(HamInit::kOnline)}))
      ->default_str(to_string(cfg.g_block.init))->group(group);
  app->add_option_function<std::string>(
         "--init", [c](const std::string& s) { c->init = parse_init_scheme(s); },
         "Weight init of SN layers: xavier (reference), orthogonal or n02")
      ->check(CLI::IsMember({"xavier", "orthogonal", "n02"}))->default_str(to_string(cfg.init))->group(group);
}

}  // namespace hamgan::cli
