#include "gan/model/generator.h"

#include "core/errors.h"
#include "core/tensor_text.h"
#include "gan/model/context_slot.h"
#include "gan/model/model_init.h"
#include "gan/model/model_plan.h"

namespace hamgan {
GeneratorImpl::GeneratorImpl(const ModelConfig& config) : config_(config) {
  config_.validate();
  const auto plan = generator_plan(config_);
  const int64_t stem = generator_stem_channels(config_);
  linear_ = register_module("linear", SNLinear(config_.z_dim, 4 * 4 * stem));
  for (const auto& b : plan)
    blocks_.push_back(register_module(b.name, GBlock(b.in_ch, b.out_ch, config_.num_classes)));
  context_after_ = context_index(plan, config_.context_side());
  ContextOptions ctx = config_.g_context();
  ctx.num_classes = config_.num_classes;  // G's Hamburger has class-conditional BN (docs/ham.md)
  const int64_t width = plan[context_after_].out_ch;
  context_ = register_module("context",
                             make_positioned_context_block(ctx, width, config_.context_side(), "g_block", "g_ch"));
  bn_ = register_module("bn", ConditionalBatchNorm(ConditionalBatchNormOptions(plan.back().out_ch, 0)));
  conv_out_ = register_module("conv_out", SNConv2d(SNConv2dOptions(plan.back().out_ch, config_.image_channels, 3)));
  init_weights(*this, config_.init);
  set_resample_conv(config_.resample_conv);
}

void GeneratorImpl::set_resample_conv(ResampleConv form) {
  config_.resample_conv = form;
  for (auto& block : blocks_) block->resample = form;
}

torch::Tensor GeneratorImpl::forward(const torch::Tensor& z, const torch::Tensor& labels) {
  return forward_traced(z, labels, nullptr);
}

torch::Tensor GeneratorImpl::forward_traced(const torch::Tensor& z, const torch::Tensor& labels,
                                            std::vector<std::vector<int64_t>>* shapes) {
  // Every spectral-norm layer's power iteration at once (modules/spectral_norm_group.h).
  if (!sn_group_) sn_group_ = std::make_shared<SpectralNormGroup>(*this);
  SpectralNormScope sn(sn_group_.get(), is_training());
  if (!z.defined() || z.dim() != 2 || z.size(1) != config_.z_dim)
    throw ModelError("generator: z must be (N, " + std::to_string(config_.z_dim) + "), got " + tensor_text(z));
  if (!labels.defined() || labels.dim() != 1 || labels.size(0) != z.size(0) || labels.scalar_type() != torch::kLong)
    throw ModelError("generator: labels must be int64 of shape (" + std::to_string(z.size(0)) + "), got " +
                     tensor_text(labels));
  auto record = [&](const torch::Tensor& t) {
    if (shapes) shapes->push_back(t.sizes().vec());
  };
  // (N, 16·stem) → (N, stem, 4, 4), channel-major; TF's NHWC reshape is a fixed
  // permutation of the same linear layer (docs/models.md, "Sources").
  auto h = linear_->forward(z).view({z.size(0), -1, 4, 4});
  // With NHWC conv weights (channels_last) every conv would otherwise copy its
  // input to NHWC, and its backward the gradient: start G in that layout.
  const torch::Tensor& w = conv_out_->weight;
  if (!w.is_contiguous() && w.is_contiguous(torch::MemoryFormat::ChannelsLast))
    h = h.contiguous(torch::MemoryFormat::ChannelsLast);
  record(h);
  for (size_t i = 0; i < blocks_.size(); ++i) {
    h = blocks_[i]->forward(h, labels);
    record(h);
    if (static_cast<int64_t>(i) == context_after_) {
      h = context_->forward(h, labels);
      record(h);
    }
  }
  h = torch::relu(bn_->forward(h));
  return torch::tanh(conv_out_->forward(h));
}

void GeneratorImpl::pretty_print(std::ostream& s) const {
  s << "hamgan::Generator(resolution=" << config_.resolution << ", g_ch=" << config_.g_ch
    << ", classes=" << config_.num_classes << ", context=" << context_->describe() << " after "
    << "block" << context_after_ + 1 << ", init=" << to_string(config_.init) << ")";
}

}  // namespace hamgan
