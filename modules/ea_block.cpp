// External Attention context block; see ea_block.h. Source: MenghaoGuo/EANet model_torch.py
// (External_attention) and arXiv 2105.02358 ("Double-normalization", "Multi-head external
// attention"); the deviations from the official block are listed in docs/modules.md.
#include "modules/ea_block.h"

#include <sstream>

#include "core/errors.h"
#include "modules/block_options.h"

namespace hamgan {
namespace {

constexpr double kL1Eps = 1e-9;  // model_torch.py: attn / (1e-9 + attn.sum(dim=1))

void validate(const EaOptions& o, int64_t channels, int64_t num_classes) {
  validate_fields("ea", ea_option_table(), o);
  if (channels % o.heads)
    throw ModelError("ea: channels " + std::to_string(channels) + " are not divisible by ea_heads " +
                     std::to_string(o.heads) + "; pick ea_heads dividing the block's channels");
  if (num_classes < 0) throw ConfigError("ea: num_classes must be >= 0");
}

SNConv2dOptions conv1x1(int64_t in, int64_t out) {
  return SNConv2dOptions(in, out, 1).padding(0).bias(false).mode(SNMode::kExact);
}

// Half-precision logits are normalised in float32; float32 and float64 stay as they are.
torch::Tensor widened(const torch::Tensor& logits) {
  const auto t = logits.scalar_type();
  return t == torch::kHalf || t == torch::kBFloat16 ? logits.to(torch::kFloat) : logits;
}

torch::Tensor l1_over_slots(const torch::Tensor& a) { return a / (a.sum(-2, /*keepdim=*/true) + kL1Eps); }

}  // namespace

// ---------------------------------------------------------------- options

const FieldTable<EaOptions>& ea_option_table() {
  using E = EaOptions;
  static const FieldTable<EaOptions> table = {
      member_field(int_field("ea_memory", "External attention memory slots S per head", at_least(1)), &E::memory),
      member_field(int_field("ea_heads", "External attention heads; must divide the block's channels", at_least(1)),
                   &E::heads),
      member_field(bool_field("ea_cbn", "External attention: class-conditional BN after the output map in G"),
                   &E::cbn),
  };
  return table;
}

std::vector<FieldSpec> ea_block_options() { return option_specs(ea_option_table()); }

EaOptions parse_ea_options(const ContextOptions& o) {
  return parse_block_options("ea", ea_option_table(), o);
}

ContextOptions ea_context_options(const EaOptions& e, int64_t num_classes) {
  return block_context_options("ea", ea_option_table(), e, num_classes);
}

torch::Tensor ea_double_normalize(const torch::Tensor& logits) {
  return l1_over_slots(torch::softmax(widened(logits), -1));
}

// ---------------------------------------------------------------- block

EaBlockImpl::EaBlockImpl(const EaOptions& o, int64_t channels_, int64_t num_classes)
    : options(o), channels(channels_), head_dim(o.heads > 0 ? channels_ / o.heads : 0) {
  validate(o, channels, num_classes);
  // All four maps bias-free with exact SN W/σ, as the attention convs and the Hamburger breads.
  // conv1's bias in the official block is dead (softmax over n ignores a per-slot constant).
  query = register_module("query", SNConv2d(conv1x1(channels, channels)));
  memory_key = register_module("memory_key", SNConv2d(conv1x1(head_dim, o.memory)));      // M_k (S × d)
  memory_value = register_module("memory_value", SNConv2d(conv1x1(o.memory, head_dim)));  // M_v (d × S)
  out = register_module("out", SNConv2d(conv1x1(channels, channels)));
  if (num_classes > 0 && o.cbn) {
    bn = register_module("bn", ConditionalBatchNorm(ConditionalBatchNormOptions(channels, num_classes)));
  }
  sigma = register_parameter("sigma", torch::zeros({}));
}

void EaBlockImpl::check_input(const torch::Tensor& x, const torch::Tensor* labels) const {
  if (x.dim() != 4 || x.size(1) != channels) {
    std::ostringstream msg;
    msg << "ea: expected input (N, " << channels << ", H, W), got " << x.sizes();
    throw ModelError(msg.str());
  }
  if (labels && bn && (!labels->defined() || labels->dim() != 1 || labels->size(0) != x.size(0)))
    throw ModelError("ea: class-conditional BN needs labels of shape (N,) with N = batch size");
}

torch::Tensor EaBlockImpl::forward(const torch::Tensor& x, const torch::Tensor& labels) {
  check_input(x, &labels);
  const int64_t batch = x.size(0), n = x.size(2) * x.size(3), s = options.memory, h = options.heads;
  // Each normalised weight once per forward (in training each call advances SN's power iteration).
  const auto wq = query->normalized_weight().reshape({channels, channels});
  const auto wk = memory_key->normalized_weight().reshape({s, head_dim});
  const auto wv = memory_value->normalized_weight().reshape({head_dim, s});
  const auto wo = out->normalized_weight().reshape({channels, channels});
  const auto x_flat = x.reshape({batch, channels, n});
  if (h == 1) {
    // Folded: logits = (M_k W_q) x and o = (W_o M_v) A; S·C² MACs per forward instead of C²·n per sample.
    const auto attn = ea_double_normalize(torch::matmul(wk.mm(wq), x_flat)).to(x.scalar_type());  // (B, S, n)
    const auto value = wo.mm(wv);                                                                 // (C, S)
    if (bn) return x + sigma * bn->forward(torch::matmul(value, attn).view(x.sizes()), labels);
    return torch::baddbmm(x_flat, (value * sigma).expand({batch, channels, s}), attn).view(x.sizes());
  }
  // Heads: contiguous channel blocks of q, the memories broadcast over (B, H).
  const auto q = torch::matmul(wq, x_flat).view({batch, h, head_dim, n});
  const auto attn = ea_double_normalize(torch::matmul(wk, q)).to(x.scalar_type());  // (B, H, S, n)
  const auto y = torch::matmul(wo, torch::matmul(wv, attn).reshape({batch, channels, n})).view(x.sizes());
  return x + sigma * (bn ? bn->forward(y, labels) : y);
}

torch::Tensor EaBlockImpl::forward_reference(const torch::Tensor& x, const torch::Tensor& labels) {
  check_input(x, &labels);
  const int64_t batch = x.size(0), n = x.size(2) * x.size(3), s = options.memory, h = options.heads;
  // model_torch.py order: conv1, view (B, C, n), linear_0 (M_k), softmax over n, L1 over S,
  // linear_1 (M_v), conv2, norm, residual; each head is one (d × n) "image" of the 1×1 maps.
  const auto q = query->forward(x).reshape({batch * h, head_dim, n, 1});
  const auto logits = memory_key->forward(q).reshape({batch, h, s, n});
  const auto soft = torch::softmax(widened(logits), -1);
  const auto attn = (soft / (soft.sum(-2, true) + kL1Eps)).to(x.scalar_type());
  const auto values = memory_value->forward(attn.reshape({batch * h, s, n, 1}));  // (B·H, d, n, 1)
  auto y = out->forward(values.reshape(x.sizes()));
  if (bn) y = bn->forward(y, labels);
  return x + sigma * y;
}

EaAttentionMaps EaBlockImpl::attention_maps(const torch::Tensor& x) {
  check_input(x, nullptr);  // no BN here: labels are not needed
  const int64_t batch = x.size(0), n = x.size(2) * x.size(3);
  const auto wq = query->normalized_weight().reshape({channels, channels});
  const auto wk = memory_key->normalized_weight().reshape({options.memory, head_dim});
  const auto q = torch::matmul(wq, x.reshape({batch, channels, n})).view({batch, options.heads, head_dim, n});
  EaAttentionMaps maps;
  maps.softmax = torch::softmax(widened(torch::matmul(wk, q)), -1);
  maps.normalized = l1_over_slots(maps.softmax);
  return maps;
}

std::string EaBlockImpl::describe() const {
  std::ostringstream s;
  s << "ea(C=" << channels << ", S=" << options.memory << ", H=" << options.heads << (bn ? ", cbn" : "") << ")";
  return s.str();
}

void EaBlockImpl::pretty_print(std::ostream& stream) const { stream << "hamgan::EaBlock " << describe(); }

ContextBlock make_ea_block(const ContextOptions& options, int64_t channels) {
  return std::make_shared<EaBlockImpl>(parse_ea_options(options), channels, options.num_classes);
}

int64_t ea_block_macs(const ContextOptions& options, const std::vector<int64_t>& shape) {
  // What forward() runs. One head: the folded maps M_k·W_q (S × C) and W_o·M_v (C × S), 2·S·C²
  // once per forward, then logits and output 2·n·S·C per sample. Several heads: q and o
  // (2·n·C²) plus the shared memories on every head (2·n·S·C), i.e. 2nC(C + S) per sample.
  const int64_t batch = shape.at(0), c = shape.at(1), n = shape.at(2) * shape.at(3);
  const EaOptions e = parse_ea_options(options);
  const int64_t s = e.memory;
  if (e.heads == 1) return batch * 2 * n * s * c + 2 * s * c * c;
  return batch * 2 * n * c * (c + s);
}

}  // namespace hamgan
