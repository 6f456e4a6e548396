// Shared attention parts and the SAGAN self-attention block (docs/modules.md, `sa`).
#include "modules/attention.h"

#include "core/errors.h"
#include "modules/builtin_blocks.h"
#include "modules/fp32_region.h"

namespace hamgan {

AttentionBaseImpl::AttentionBaseImpl(int64_t channels_, int64_t qk_channels) : channels(channels_) {
  // Bias-free 1×1 convs with exact SN W/σ, Glorot-uniform init (docs/modules.md, "Context blocks").
  auto conv = [](int64_t in, int64_t out) {
    return SNConv2dOptions(in, out, 1).padding(0).bias(false).mode(SNMode::kExact);
  };
  theta = register_module("theta", SNConv2d(conv(channels, qk_channels)));
  phi = register_module("phi", SNConv2d(conv(channels, qk_channels)));
  g = register_module("g", SNConv2d(conv(channels, channels / 2)));
  o = register_module("o", SNConv2d(conv(channels / 2, channels)));
  sigma = register_parameter("sigma", torch::zeros({}));  // sigma_ratio, init 0 → identity at init
}

AttentionBaseImpl::Projections AttentionBaseImpl::project(const torch::Tensor& x, const char* block, bool pooled) {
  const bool odd = pooled && (x.dim() != 4 || x.size(2) % 2 || x.size(3) % 2 || x.size(2) < 2 || x.size(3) < 2);
  if (x.dim() != 4 || x.size(1) != channels || odd)
    throw ModelError(std::string("context block ") + block + ": expected (N, " + std::to_string(channels) +
                     (pooled ? ", H, W) with even H and W, got " : ", H, W), got ") + c10::str(x.sizes()));
  const int64_t b = x.size(0), n = x.size(2) * x.size(3);
  const int64_t keys = pooled ? n / 4 : n;
  auto pool = [pooled](const torch::Tensor& t) { return pooled ? torch::max_pool2d(t, {2, 2}, {2, 2}) : t; };
  Projections p;
  p.q = theta->forward(x).reshape({b, -1, n});         // (B, C/8, N)
  p.k = pool(phi->forward(x)).reshape({b, -1, keys});  // (B, C/8, keys)
  p.v = pool(g->forward(x)).reshape({b, -1, keys});    // (B, C/2, keys)
  return p;
}

torch::Tensor AttentionBaseImpl::finish(const torch::Tensor& x, const torch::Tensor& attended) {
  return x + sigma * o->forward(attended);
}

// ---------------------------------------------------------------- SA

int64_t checked_attention_channels(int64_t channels, int64_t multiple, const char* block) {
  if (channels < multiple || channels % multiple)
    throw ModelError(std::string("context block ") + block + " needs channels divisible by " +
                     std::to_string(multiple) + (multiple == 8 ? " (C/8 query/key channels)" : " (8 heads of C/64 query/key channels)") +
                     ", got " + std::to_string(channels));
  return channels;
}

SelfAttentionImpl::SelfAttentionImpl(int64_t channels_, bool pooled_)
    : AttentionBaseImpl(checked_attention_channels(channels_, 8, pooled_ ? "sa" : "sa_dense"), channels_ / 8),
      pooled(pooled_) {}

torch::Tensor SelfAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor&) {
  const auto p = project(x, pooled ? "sa" : "sa_dense", pooled);
  // A = softmax over the keys (N/4 pooled, N dense) of θᵀφ, no 1/√d scale (docs/modules.md, `sa`).
  const auto attn = torch::softmax(to_fp32_if_reduced(p.q.transpose(1, 2).bmm(p.k)), -1);  // (B, N, keys)
  const auto out = p.v.bmm(attn.transpose(1, 2));                        // (B, C/2, N)
  // Row-major (h·W + w) flattening both ways, as the reference.
  return finish(x, out.view({x.size(0), channels / 2, x.size(2), x.size(3)}));
}

std::string SelfAttentionImpl::describe() const {
  return std::string(pooled ? "sa" : "sa_dense") + "(C=" + std::to_string(channels) +
         ", qk=" + std::to_string(channels / 8) + ", v=" + std::to_string(channels / 2) +
         (pooled ? ", pooled keys)" : ", all keys)");
}

int64_t attention_macs(const std::vector<int64_t>& shape, bool pooled) {
  const int64_t batch = shape.at(0), c = shape.at(1), n = shape.at(2) * shape.at(3);
  const int64_t keys = pooled ? (shape.at(2) / 2) * (shape.at(3) / 2) : n;
  return batch * (n * c * (c / 8) * 2 + n * c * (c / 2) * 2 + n * keys * (c / 8) + n * keys * (c / 2));
}

ContextBlock make_sa_block(const ContextOptions&, int64_t channels) {
  return std::make_shared<SelfAttentionImpl>(channels);
}

int64_t sa_block_macs(const ContextOptions&, const std::vector<int64_t>& shape) {
  return attention_macs(shape, /*pooled=*/true);
}

// SAGAN's channel split with all n keys (the non-local product of Wang et al.). The Hamburger
// paper's Table 3 "SA" is also unpooled but keeps C channels in θ, φ, g (4C² weights, not
// ≈1.25·C²); docs/modules.md.
ContextBlock make_sa_dense_block(const ContextOptions&, int64_t channels) {
  return std::make_shared<SelfAttentionImpl>(channels, /*pooled=*/false);
}

int64_t sa_dense_block_macs(const ContextOptions&, const std::vector<int64_t>& shape) {
  return attention_macs(shape, /*pooled=*/false);
}

}  // namespace hamgan
