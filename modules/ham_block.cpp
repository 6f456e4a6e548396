// Hamburger context block (GAN variant v1, docs/ham.md); see ham_block.h.
#include "modules/ham_block.h"

#include <sstream>

#include "core/errors.h"
#include "modules/fp32_region.h"
#include "modules/ham_nmf_autograd.h"
#include "modules/ham_nmf_cpu.h"

namespace hamgan {
namespace {

constexpr double kOnlineEta = 0.9;  // seg HamNet ETA: bases += η (mean_B(D) − bases) (docs/ham.md)

void validate(const HamOptions& o, int64_t channels, int64_t rank, int64_t num_classes) {
  validate_fields("ham", ham_option_table(), o);
  if (channels < 1) throw ModelError("ham: channels must be positive, got " + std::to_string(channels));
  // The bases are d x r with r <= d; ham_rank 0 picks max(1, d / 8), valid for every d.
  if (rank < 1 || rank > channels)
    throw ConfigError("ham: ham_rank " + std::to_string(rank) + " is more than the block's " +
                      std::to_string(channels) + " channels (the rank is at most the channel count); use a ham_rank " +
                      "from 1 to " + std::to_string(channels) + ", or 0 for max(1, channels / 8) = " +
                      std::to_string(std::max<int64_t>(1, channels / 8)));
  if (num_classes < 0) throw ConfigError("ham: num_classes must be >= 0");
}

}  // namespace

HamBlockImpl::HamBlockImpl(const HamOptions& o, int64_t channels_, int64_t num_classes)
    : options(o), channels(channels_), rank(o.rank > 0 ? o.rank : std::max<int64_t>(1, channels_ / 8)) {
  validate(o, channels, rank, num_classes);
  temperature = o.temperature > 0 ? o.temperature : default_ham_temperature(o.type);
  // Both breads: sn_conv1x1, no bias, exact W/σ (docs/ham.md, "The block").
  lower = register_module(
      "lower", SNConv2d(SNConv2dOptions(channels, channels, 1).padding(0).bias(false).mode(SNMode::kExact)));
  upper = register_module(
      "upper", SNConv2d(SNConv2dOptions(channels, channels, 1).padding(0).bias(false).mode(SNMode::kExact)));
  if (num_classes > 0) {
    bn = register_module("bn", ConditionalBatchNorm(ConditionalBatchNormOptions(channels, num_classes)));
  }
  sigma = register_parameter("sigma", torch::zeros({}));
  if (o.init == HamInit::kOnline) {
    // One persistent (S=1, d, r) set of bases, L2-normalised over d like every online update.
    auto b = ham_random_bases(o.type, 1, channels, rank, torch::kFloat);
    online_bases = register_buffer("online_bases", b / b.norm(2, {1}, true).clamp_min(1e-12));
  }
}

namespace {

// True for a (B, C, H, W) tensor stored NHWC (channels_last), whose (B, H·W, C) view needs no copy.
bool is_nhwc(const torch::Tensor& x) {
  return x.dim() == 4 && !x.is_contiguous() && x.is_contiguous(torch::MemoryFormat::ChannelsLast);
}

}  // namespace

HamSolverOptions HamBlockImpl::solver_options() const {
  HamSolverOptions s;
  s.type = options.type;
  s.steps = is_training() ? options.train_steps : options.eval_steps;
  s.gradient = options.gradient;
  s.temperature = temperature;
  s.beta = options.beta;
  return s;
}

HamFactors HamBlockImpl::decompose(const torch::Tensor& x, bool literal) {
  if (x.dim() != 4 || x.size(1) != channels) {
    std::ostringstream msg;
    msg << "ham: expected input (N, " << channels << ", H, W), got " << x.sizes();
    throw ModelError(msg.str());
  }
  const int64_t batch = x.size(0), n = x.size(2) * x.size(3);
  torch::Tensor X;
  if (literal) {
    X = lower->forward(x).reshape({batch, channels, n});  // (B, d, n)
  } else if (is_nhwc(x)) {
    // NHWC (channels_last) input is (B, n, C) in memory: Xᵀ = x·Wᵀ is one matmul, no layout copy.
    auto w = lower->normalized_weight().reshape({channels, channels});  // (d, C)
    X = torch::matmul(x.permute({0, 2, 3, 1}).reshape({batch, n, channels}), w.t()).transpose(1, 2);  // (B, d, n)
  } else {
    // The 1×1 conv as one batched matmul: no im2col/format copies in forward or backward.
    auto w = lower->normalized_weight().reshape({channels, channels});                      // (d, C)
    X = torch::bmm(w.expand({batch, channels, channels}), x.reshape({batch, channels, n}));  // (B, d, n)
  }
  // The bread above may run in bf16 under autocast; the decomposition itself is float32.
  Fp32Region fp32_decomposition;
  const auto so = solver_options();
  const bool nmf = options.type == HamType::kNMF;
  const bool nmf_one_step = nmf && so.gradient == HamGradient::kOneStep;
  const bool with_graph = X.requires_grad() && torch::GradMode::is_enabled();
  torch::Tensor bases0;
  const auto factor_dtype = is_reduced_float(X) ? torch::kFloat : X.scalar_type();
  if (online_bases.defined()) {
    bases0 = online_bases.to(factor_dtype).expand({batch, channels, rank}).contiguous();  // (B, d, r)
  } else {
    const auto factor_options = X.options().dtype(factor_dtype).requires_grad(false);
    bases0 = ham_random_bases(options.type, batch, channels, rank, factor_options, generator_);
  }
  HamFactors f;
  if (nmf_one_step && fused_nmf_takes(X, bases0)) {
    // CPU: ReLU, the K steps and the final code update in one kernel (fused_nmf_one_step), which
    // reads a bf16 X as stored (float32 factors, no float32 copy of X, ∂X written in bf16).
    if (with_graph) {
      auto out = fused_nmf_one_step(X, bases0, so.steps, so.temperature);
      f = {out[1], out[0]};
    } else {
      auto r = nmf_one_step_cpu(X, bases0, so.steps, so.temperature, kHamEps, /*keep_for_backward=*/false);
      f = {r.bases, r.codes};
    }
  } else {
    X = to_fp32_if_reduced(X);
    // NMF with the one-step gradient in autograd: ReLU and the final code step fused (relu_nmf_codes).
    const bool fused = nmf_one_step && with_graph;
    // NMF factors a non-negative matrix (the GAN code's ReLU is the first op of nmf()). In place:
    // the conv does not need its output for backward.
    if (fused) {
      torch::NoGradGuard no_grad;
      X.relu_();
    } else if (nmf) {
      X = torch::relu_(X);
    }
    f = ham_local_steps(fused ? X.detach() : X, bases0, so);
    f.codes = fused ? relu_nmf_codes(X, f.bases, nmf_one_step_scale(f)) : ham_final_codes(X, f, so);
  }
  if (online_bases.defined() && !is_training()) online_update(f.bases);
  return f;
}

void HamBlockImpl::online_update(const torch::Tensor& bases) {
  // Eval only, exactly as the reference (seg _MatrixDecomposition2DBase.online_update).
  torch::NoGradGuard no_grad;
  auto updated = online_bases + kOnlineEta * (bases.mean(0, /*keepdim=*/true).to(online_bases.dtype()) - online_bases);
  online_bases.copy_(updated / updated.norm(2, {1}, true).clamp_min(1e-12));
}

void HamBlockImpl::check_labels(const torch::Tensor& x, const torch::Tensor& labels) const {
  if (bn && (!labels.defined() || labels.dim() != 1 || labels.size(0) != x.size(0))) {
    throw ModelError("ham: class-conditional BN needs labels of shape (N,) with N = batch size");
  }
}

torch::Tensor HamBlockImpl::forward(const torch::Tensor& x, const torch::Tensor& labels) {
  check_labels(x, labels);
  const int64_t batch = x.size(0);
  auto f = decompose(x, /*literal=*/false);
  auto w_up = upper->normalized_weight().reshape({channels, channels});  // (C, d)
  if (is_nhwc(x)) {
    // The same in the NHWC layout, whose (B, n, C) rows the result is built in:
    // (W_u D Cᵀ)ᵀ = C (W_u D)ᵀ, with W_u D only (B, C, r).
    const auto h = x.size(2), w = x.size(3);
    auto as_nhwc = [&](const torch::Tensor& rows) { return rows.view({batch, h, w, channels}).permute({0, 3, 1, 2}); };
    auto m = torch::matmul(w_up, f.bases);  // (B, C, r)
    if (bn) return x + sigma * bn->forward(as_nhwc(torch::bmm(f.codes, m.transpose(1, 2))), labels);
    auto x_rows = x.permute({0, 2, 3, 1}).reshape({batch, h * w, channels});  // (B, n, C), a view
    return as_nhwc(torch::baddbmm(x_rows, f.codes, (m * sigma).transpose(1, 2)));
  }
  auto x_flat = x.reshape({batch, channels, -1});                       // (B, C, n)
  if (bn) {
    // CBN needs the activations: X̂ = D Cᵀ, then the upper bread as a batched matmul.
    auto y = torch::bmm(w_up.expand({batch, channels, channels}), ham_reconstruct(f));  // (B, C, n)
    return x + sigma * bn->forward(y.view(x.sizes()), labels);
  }
  // W_u X̂ = (W_u D) Cᵀ: (C, d)·(B, d, r) -> (B, C, r), then one baddbmm with the residual;
  // the (d × n) reconstruction is never formed.
  auto m = torch::matmul(w_up, f.bases) * sigma;  // (B, C, r), σ folded in
  return torch::baddbmm(x_flat, m, f.codes.transpose(1, 2)).view(x.sizes());
}

torch::Tensor HamBlockImpl::forward_reference(const torch::Tensor& x, const torch::Tensor& labels) {
  check_labels(x, labels);
  auto f = decompose(x, /*literal=*/true);
  auto y = upper->forward(ham_reconstruct(f).view(x.sizes()));  // (B, d, n) -> (B, C, H, W)
  if (bn) y = bn->forward(y, labels);
  return x + sigma * y;
}

std::string HamBlockImpl::describe() const {
  std::ostringstream s;
  s << "ham(" << to_string(options.type) << ", d=" << channels << ", r=" << rank << ", K=" << options.train_steps
    << "/" << options.eval_steps << ", " << to_string(options.gradient) << ", T=" << temperature;
  if (options.type == HamType::kCD) s << ", beta=" << options.beta;
  s << ", init=" << to_string(options.init) << (bn ? ", cbn" : "") << ")";
  return s.str();
}

void HamBlockImpl::pretty_print(std::ostream& stream) const { stream << "hamgan::HamBlock " << describe(); }

ContextBlock make_ham_block(const ContextOptions& options, int64_t channels) {
  return std::make_shared<HamBlockImpl>(parse_ham_options(options), channels, options.num_classes);
}

int64_t ham_block_macs(const ContextOptions& o, const std::vector<int64_t>& shape) {
  const int64_t batch = shape.at(0), c = shape.at(1), n = shape.at(2) * shape.at(3);
  const HamOptions h = parse_ham_options(o);
  const int64_t d = c, r = h.rank > 0 ? h.rank : std::max<int64_t>(1, c / 8);
  const int64_t k = std::max(h.train_steps, h.eval_steps);
  int64_t ham = 0;
  switch (h.type) {
    case HamType::kNMF:
      // init XᵀD; per step: XᵀD, DᵀD, C(DᵀD), XC, CᵀC, D(CᵀC); final: XᵀD, DᵀD, C(DᵀD).
      ham = n * d * r + k * (2 * n * d * r + 2 * n * r * r + 2 * d * r * r) + (n * d * r + d * r * r + n * r * r);
      break;
    case HamType::kVQ:  // per step: cos(X, D), XC; final: cos(X, D)
      ham = k * 2 * n * d * r + n * d * r;
      break;
    case HamType::kCD:  // per step: X̄ᵀD, XC; final: DᵀD, DᵀX, LU of (r×r) ≈ r³/3, solve r²n
      ham = k * 2 * n * d * r + (d * r * r + d * r * n + r * r * r / 3 + r * r * n);
      break;
  }
  // Lower bread C·d per position; upper bread on the factors (W_u D: C·d·r, then (W_u D) Cᵀ: C·r·n),
  // or with CBN the reconstruction D Cᵀ (d·r·n) and the 1×1 conv (d·C·n).
  const int64_t upper = o.num_classes > 0 ? d * r * n + d * c * n : c * d * r + c * r * n;
  return batch * (n * c * d + ham + upper);
}

}  // namespace hamgan
