// Channel plans of G and D for 32/64/128 (see model_plan.h; architecture.md §1.3-1.4).
#include "gan/model_plan.h"

#include <algorithm>

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

}  // namespace hamgan
