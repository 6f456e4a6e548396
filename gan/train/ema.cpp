#include "gan/train/ema.h"

#include "core/errors.h"

namespace hamgan {

double ema_decay_at(int64_t g_updates, int64_t start, double decay) { return g_updates < start ? 0.0 : decay; }

static void blend(const torch::OrderedDict<std::string, torch::Tensor>& src,
                  const torch::OrderedDict<std::string, torch::Tensor>& dst, double decay) {
  if (src.size() != dst.size()) throw ModelError("EMA: source and target modules differ in structure");
  for (const auto& item : dst) {
    const torch::Tensor* s = src.find(item.key());
    if (s == nullptr || !s->defined() || !item.value().defined()) continue;
    torch::Tensor t = item.value();
    if (t.sizes() != s->sizes()) throw ModelError("EMA: shape mismatch for " + item.key());
    if (!t.is_floating_point() || decay == 0.0) {
      t.copy_(*s);
    } else {
      t.mul_(decay).add_(*s, 1.0 - decay);
    }
  }
}

void ema_update(const torch::nn::Module& source, torch::nn::Module& target, double decay) {
  torch::NoGradGuard no_grad;
  blend(source.named_parameters(true), target.named_parameters(true), decay);
  blend(source.named_buffers(true), target.named_buffers(true), decay);
}

}  // namespace hamgan
