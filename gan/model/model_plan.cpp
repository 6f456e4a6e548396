// Channel plans of G and D for 32/64/128 (see model_plan.h; docs/models.md, "Channel plans").
#include "gan/model/model_plan.h"

#include <algorithm>

#include "core/errors.h"

namespace hamgan {
namespace {

// Width multiplier of a map of side `side` when the widest maps carry 16×.
int64_t width(int64_t numerator, int64_t side) { return std::min<int64_t>(16, numerator / side); }

}  // namespace

int64_t generator_stem_channels(const ModelConfig& c) { return c.g_ch * width(c.resolution, 4); }

std::vector<BlockPlan> generator_plan(const ModelConfig& c) {
  std::vector<BlockPlan> plan;
  int64_t ch = generator_stem_channels(c);
  for (int64_t side = 4, i = 1; side < c.resolution; side *= 2, ++i) {
    const int64_t out = c.g_ch * width(c.resolution, side * 2);
    plan.push_back({"block" + std::to_string(i), ch, out, side, side * 2, true});
    ch = out;
  }
  return plan;
}

std::vector<BlockPlan> discriminator_plan(const ModelConfig& c) {
  std::vector<BlockPlan> plan;
  int64_t ch = c.image_channels;
  int64_t i = 1;
  for (int64_t side = c.resolution; side > 4; side /= 2, ++i) {
    const int64_t out = c.d_ch * width(c.resolution / 2, side / 2);
    plan.push_back({"block" + std::to_string(i), ch, out, side, side / 2, true});
    ch = out;
  }
  plan.push_back({"block" + std::to_string(i), ch, ch, 4, 4, false});  // final block, identity shortcut
  return plan;
}

int64_t context_index(const std::vector<BlockPlan>& plan, int64_t side) {
  for (size_t i = 0; i < plan.size(); ++i)
    if (plan[i].out_side == side) return static_cast<int64_t>(i);
  return -1;
}

// Declared in model_config.h; here because the block position needs the plans.
void ModelConfig::validate() const {
  const auto fields = model_config_fields();
  validate_fields("model", fields, *this);
  for (const auto& [key, value] : block_options) {
    bool known = false;
    for (const auto& f : fields) known |= f.spec.key == key;
    if (!known)
      throw ConfigError("model: " + key + " is an option of no registered block; remove it from block_options");
  }
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

}  // namespace hamgan
