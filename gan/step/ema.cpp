#include "gan/step/ema.h"

#include "core/errors.h"

namespace hamgan {

double ema_decay_at(int64_t g_updates, int64_t start, double decay) { return g_updates < start ? 0.0 : decay; }

EmaUpdater::EmaUpdater(const torch::nn::Module& source, torch::nn::Module& target) {
  const auto pair_up = [this](const torch::OrderedDict<std::string, torch::Tensor>& src,
                              const torch::OrderedDict<std::string, torch::Tensor>& dst) {
    if (src.size() != dst.size()) throw ModelError("EMA: source and target modules differ in structure");
    for (const auto& item : dst) {
      const torch::Tensor* s = src.find(item.key());
      if (s == nullptr || !s->defined() || !item.value().defined()) continue;
      if (item.value().sizes() != s->sizes()) throw ModelError("EMA: shape mismatch for " + item.key());
      const bool blend = item.value().is_floating_point();
      (blend ? src_float_ : src_other_).push_back(*s);
      (blend ? dst_float_ : dst_other_).push_back(item.value());
    }
  };
  pair_up(source.named_parameters(true), target.named_parameters(true));
  pair_up(source.named_buffers(true), target.named_buffers(true));
}

void EmaUpdater::update(double decay) {
  torch::NoGradGuard no_grad;
  if (decay == 0.0) {
    if (!dst_float_.empty()) at::_foreach_copy_(dst_float_, src_float_);
  } else if (!dst_float_.empty()) {
    at::_foreach_lerp_(dst_float_, src_float_, 1.0 - decay);
  }
  if (!dst_other_.empty()) at::_foreach_copy_(dst_other_, src_other_);
}

void ema_update(const torch::nn::Module& source, torch::nn::Module& target, double decay) {
  EmaUpdater(source, target).update(decay);
}

}  // namespace hamgan
