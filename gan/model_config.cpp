// ModelConfig validation, init-scheme names and the reference presets.
#include "gan/model_config.h"

#include <algorithm>
#include <sstream>

#include "core/errors.h"
#include "gan/model_plan.h"

namespace hamgan {
namespace {

void require_positive(int64_t v, const char* key) {
  if (v <= 0) throw ConfigError("model: " + std::string(key) + " must be positive, got " + std::to_string(v));
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

void validate_block(const ContextOptions& o, const char* key) {
  const auto names = context_block_names();
  if (std::find(names.begin(), names.end(), o.name) == names.end())
    throw ConfigError("model: " + std::string(key) + " '" + o.name + "' is not a context block; use one of: " +
                      join(names));
  if (o.train_steps < 1 || o.eval_steps < 1)
    throw ConfigError("model: ham_train_steps and ham_eval_steps must be >= 1");
  if (o.rank < 0) throw ConfigError("model: ham_rank must be >= 0 (0 means channels / 8)");
  if (o.temperature < 0) throw ConfigError("model: ham_temperature must be >= 0 (0 means the reference value)");
  if (o.beta <= 0) throw ConfigError("model: ham_beta must be positive");
}

// The shortest decimal that reads back as exactly `v`.
std::string shortest(double v) {
  for (int digits = 6;; ++digits) {
    std::ostringstream s;
    s.precision(digits);
    s << v;
    if (digits >= 17 || std::stod(s.str()) == v) return s.str();
  }
}

}  // namespace

int64_t ModelConfig::context_side() const {
  return block_resolution != 0 ? block_resolution : std::min<int64_t>(32, resolution / 2);
}

void ModelConfig::validate() const {
  if (resolution != 32 && resolution != 64 && resolution != 128)
    throw ConfigError("model: resolution must be 32, 64 or 128, got " + std::to_string(resolution));
  require_positive(image_channels, "image_channels");
  require_positive(num_classes, "num_classes");
  require_positive(z_dim, "z_dim");
  require_positive(g_ch, "g_ch");
  require_positive(d_ch, "d_ch");
  validate_block(g_block, "g_block");
  validate_block(d_block, "d_block");
  // The block needs a feature map of that side after a block in both networks:
  // G block outputs are 8..R, D block outputs R/2..4 (see model_plan.h).
  const int64_t side = context_side();
  if (context_index(generator_plan(*this), side) < 0 || context_index(discriminator_plan(*this), side) < 0) {
    std::string ok;
    for (int64_t s = 8; s <= resolution / 2; s *= 2) ok += (ok.empty() ? "" : ", ") + std::to_string(s);
    throw ConfigError("model: block_resolution " + std::to_string(side) + " has no feature map in both G and D at " +
                      "resolution " + std::to_string(resolution) + "; use one of " + ok + " (or 0 for the default)");
  }
}

InitScheme parse_init_scheme(const std::string& s) {
  if (s == "xavier") return InitScheme::kXavier;
  if (s == "orthogonal") return InitScheme::kOrthogonal;
  if (s == "n02") return InitScheme::kN02;
  throw ConfigError("model: init '" + s + "' is unknown; use xavier, orthogonal or n02");
}

std::string to_string(InitScheme s) {
  switch (s) {
    case InitScheme::kXavier: return "xavier";
    case InitScheme::kOrthogonal: return "orthogonal";
    case InitScheme::kN02: return "n02";
  }
  return "?";
}

std::string to_toml(const ModelConfig& c) {
  std::ostringstream s;
  const auto& h = c.g_block;
  s << "resolution = " << c.resolution << "\nimage_channels = " << c.image_channels << "\nnum_classes = "
    << c.num_classes << "\nz_dim = " << c.z_dim << "\ng_ch = " << c.g_ch << "\nd_ch = " << c.d_ch
    << "\nblock_resolution = " << c.block_resolution << "\ng_block = \"" << c.g_block.name << "\"\nd_block = \""
    << c.d_block.name << "\"\nham_type = \"" << to_string(h.ham_type) << "\"\nham_train_steps = " << h.train_steps
    << "\nham_eval_steps = " << h.eval_steps << "\nham_rank = " << h.rank << "\nham_gradient = \""
    << to_string(h.gradient) << "\"\nham_temperature = " << shortest(h.temperature)
    << "\nham_beta = " << shortest(h.beta)
    << "\nham_init = \"" << to_string(h.init) << "\"\ninit = \"" << to_string(c.init) << "\"\n";
  return s.str();
}

std::vector<std::string> model_preset_names() { return {"sagan128", "hamgan128", "ylg128", "sngan128"}; }

ModelConfig model_preset(const std::string& name) {
  ModelConfig c;
  c.resolution = 128;
  c.image_channels = 3;
  c.num_classes = 1000;
  c.z_dim = 128;
  c.g_ch = c.d_ch = 64;
  c.block_resolution = 32;
  std::string block;
  if (name == "sagan128") block = "sa";
  else if (name == "hamgan128") block = "ham";  // NMF, K = 6/6, r = d/8, one-step gradient (§3.1)
  else if (name == "ylg128") block = "ylg";
  else if (name == "sngan128") block = "none";
  else throw ConfigError("model: preset '" + name + "' is unknown; use one of: " + join(model_preset_names()));
  c.g_block.name = c.d_block.name = block;
  return c;
}

}  // namespace hamgan
