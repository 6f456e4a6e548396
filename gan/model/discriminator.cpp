#include "gan/model/discriminator.h"

#include "core/errors.h"
#include "core/tensor_text.h"
#include "gan/model/context_slot.h"
#include "gan/model/model_init.h"
#include "gan/model/model_plan.h"

namespace hamgan {
DiscriminatorImpl::DiscriminatorImpl(const ModelConfig& config) : config_(config) {
  config_.validate();
  const auto plan = discriminator_plan(config_);
  for (size_t i = 0; i < plan.size(); ++i) {
    const auto& b = plan[i];
    blocks_.push_back(register_module(
        b.name, DBlock(DBlockOptions(b.in_ch, b.out_ch).downsample(b.resample).optimized(i == 0))));
  }
  context_after_ = context_index(plan, config_.context_side());
  ContextOptions ctx = config_.d_context();
  ctx.num_classes = 0;  // D's blocks are unconditional (HamGAN: use_bn=False)
  const int64_t width = plan[context_after_].out_ch;
  context_ = register_module("context",
                             make_positioned_context_block(ctx, width, config_.context_side(), "d_block", "d_ch"));
  const int64_t feat = plan.back().out_ch;
  linear_ = register_module("linear", SNLinear(feat, 1));
  embed_ = register_module("embed", SNEmbedding(config_.num_classes, feat));
  init_weights(*this, config_.init);
  set_resample_conv(config_.resample_conv);
}

void DiscriminatorImpl::set_resample_conv(ResampleConv form) {
  config_.resample_conv = form;
  for (auto& block : blocks_) block->resample = form;
}

torch::Tensor DiscriminatorImpl::features(const torch::Tensor& images, std::vector<std::vector<int64_t>>* shapes) {
  const int64_t r = config_.resolution;
  if (!images.defined() || images.dim() != 4 || images.size(1) != config_.image_channels || images.size(2) != r ||
      images.size(3) != r)
    throw ModelError("discriminator: images must be (N, " + std::to_string(config_.image_channels) + ", " +
                     std::to_string(r) + ", " + std::to_string(r) + "), got " + tensor_text(images));
  auto h = images;
  for (size_t i = 0; i < blocks_.size(); ++i) {
    h = blocks_[i]->forward(h);
    if (shapes) shapes->push_back(h.sizes().vec());
    if (static_cast<int64_t>(i) == context_after_) {
      h = context_->forward(h);
      if (shapes) shapes->push_back(h.sizes().vec());
    }
  }
  return torch::relu(h).sum({2, 3});  // (N, C): sum, not mean, over H, W, as TF-GAN
}

torch::Tensor DiscriminatorImpl::forward(const torch::Tensor& images, const torch::Tensor& labels) {
  // Every spectral-norm layer's power iteration at once (modules/spectral_norm_group.h).
  if (!sn_group_) sn_group_ = std::make_shared<SpectralNormGroup>(*this);
  SpectralNormScope sn(sn_group_.get(), is_training());
  const int64_t n = images.defined() && images.dim() > 0 ? images.size(0) : -1;
  if (!labels.defined() || labels.dim() != 1 || labels.size(0) != n || labels.scalar_type() != torch::kLong)
    throw ModelError("discriminator: labels must be int64 of shape (" + std::to_string(n) + "), got " +
                     tensor_text(labels));
  const auto h = features(images);                                  // (N, C)
  const auto projection = (embed_->forward(labels) * h).sum(1);    // ⟨E[y], h⟩, (N)
  return linear_->forward(h).squeeze(1) + projection;               // (N)
}

void DiscriminatorImpl::pretty_print(std::ostream& s) const {
  s << "hamgan::Discriminator(resolution=" << config_.resolution << ", d_ch=" << config_.d_ch
    << ", classes=" << config_.num_classes << ", context=" << context_->describe() << " after "
    << "block" << context_after_ + 1 << ", init=" << to_string(config_.init) << ")";
}

}  // namespace hamgan
