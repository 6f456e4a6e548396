// Hamburger context block (GAN variant v1, architecture.md §3.1); see ham_block.h.
#include "modules/ham_block.h"

#include <sstream>

#include "core/errors.h"
#include "modules/block_options.h"
#include "modules/fp32_region.h"
#include "modules/ham_nmf_cpu.h"

namespace hamgan {
namespace {

constexpr double kOnlineEta = 0.9;  // seg HamNet ETA: bases += η (mean_B(D) − bases) (§3.5)

// ReLU then the NMF one-step code update, C = relu(Z)ᵀD ⊙ S with D and S constants, as one
// autograd node. It takes Z already rectified in place and saves a 1-byte mask instead of the
// 4-byte rectified activations; backward forms the single (B, d, n) gradient and masks it in
// place. Same values and gradient as torch::relu followed by ham_final_codes.
struct ReluNmfCodes : torch::autograd::Function<ReluNmfCodes> {
  static torch::Tensor forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x_relu,
                               const torch::Tensor& bases, const torch::Tensor& scale) {
    ctx->save_for_backward({x_relu.gt(0), bases, scale});
    return torch::bmm(x_relu.transpose(1, 2), bases).mul_(scale);  // (B, n, r)
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const auto& mask = saved[0];
    auto grad_x = torch::bmm(saved[1], (grads[0] * saved[2]).transpose(1, 2));  // (B, d, r)·(B, r, n)
    grad_x.mul_(mask);
    return {grad_x, torch::Tensor(), torch::Tensor()};
  }
};

// The same node on the CPU for float32 with r ≤ 8: ReLU, the K local steps and the final code
// update in one pass per sample (modules/ham_nmf_cpu.h), saving the mask, S and D; the backward
// writes ∂X in X's layout. Outputs: the codes (differentiable) and the bases (constant).
struct FusedNmfOneStep : torch::autograd::Function<FusedNmfOneStep> {
  static torch::autograd::variable_list forward(torch::autograd::AutogradContext* ctx, const torch::Tensor& x,
                                                const torch::Tensor& bases, int64_t steps, double temperature) {
    auto r = nmf_one_step_cpu(x, bases, steps, temperature, kHamEps, /*keep_for_backward=*/true);
    ctx->save_for_backward({r.positive, r.scale, r.bases});
    ctx->mark_non_differentiable({r.bases});
    return {r.codes, r.bases};
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const NmfOneStepCpu state{saved[2], torch::Tensor(), saved[1], saved[0]};  // the codes are not needed
    return {nmf_one_step_backward_cpu(grads[0], state), torch::Tensor(), torch::Tensor(), torch::Tensor()};
  }
};

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

// ---------------------------------------------------------------- options

const FieldTable<HamOptions>& ham_option_table() {
  using H = HamOptions;
  static const FieldTable<HamOptions> table = {
      make_field<H>(choice_field("ham_type", {"nmf", "vq", "cd"}, "Matrix decomposition of the ham block: nmf, vq or cd"),
                    [](const H& h) { return to_string(h.type); },
                    [](H& h, const std::string& s) { h.type = parse_ham_type(s); }),
      member_field(int_field("ham_train_steps", "Ham iterations K while training", at_least(1)), &H::train_steps),
      member_field(int_field("ham_eval_steps", "Ham iterations K in eval", at_least(1)), &H::eval_steps),
      member_field(int_field("ham_rank", "Ham rank r; 0 = d/8", at_least(0)), &H::rank),
      make_field<H>(choice_field("ham_gradient", {"one-step", "bptt"}, "Ham gradient: one-step or bptt"),
                    [](const H& h) { return to_string(h.gradient); },
                    [](H& h, const std::string& s) { h.gradient = parse_ham_gradient(s); }),
      member_field(float_field("ham_temperature", "Ham softmax temperature; 0 = reference (NMF 1, VQ/CD 0.01)",
                               at_least(0)),
                   &H::temperature),
      member_field(float_field("ham_beta", "CD ridge term", above(0)), &H::beta),
      make_field<H>(choice_field("ham_init", {"random", "online"}, "Ham bases: random (fresh each forward) or online"),
                    [](const H& h) { return to_string(h.init); },
                    [](H& h, const std::string& s) { h.init = parse_ham_init(s); }),
  };
  return table;
}

std::vector<FieldSpec> ham_block_options() { return option_specs(ham_option_table()); }

HamOptions parse_ham_options(const ContextOptions& o) {
  return parse_block_options("ham", ham_option_table(), o);
}

ContextOptions ham_context_options(const HamOptions& h, int64_t num_classes) {
  return block_context_options("ham", ham_option_table(), h, num_classes);
}

HamType parse_ham_type(const std::string& s) {
  if (s == "nmf") return HamType::kNMF;
  if (s == "vq") return HamType::kVQ;
  if (s == "cd") return HamType::kCD;
  throw ConfigError("unknown ham type '" + s + "'; use nmf, vq or cd");
}

HamGradient parse_ham_gradient(const std::string& s) {
  if (s == "one-step" || s == "one_step" || s == "onestep") return HamGradient::kOneStep;
  if (s == "bptt") return HamGradient::kBPTT;
  throw ConfigError("unknown ham gradient '" + s + "'; use one-step or bptt");
}

HamInit parse_ham_init(const std::string& s) {
  if (s == "random") return HamInit::kRandom;
  if (s == "online") return HamInit::kOnline;
  throw ConfigError("unknown ham init '" + s + "'; use random or online");
}

std::string to_string(HamType t) {
  switch (t) {
    case HamType::kNMF: return "nmf";
    case HamType::kVQ: return "vq";
    case HamType::kCD: return "cd";
  }
  return "?";
}

std::string to_string(HamGradient g) { return g == HamGradient::kOneStep ? "one-step" : "bptt"; }

std::string to_string(HamInit i) { return i == HamInit::kRandom ? "random" : "online"; }

// ---------------------------------------------------------------- block

HamBlockImpl::HamBlockImpl(const HamOptions& o, int64_t channels_, int64_t num_classes)
    : options(o), channels(channels_), rank(o.rank > 0 ? o.rank : std::max<int64_t>(1, channels_ / 8)) {
  validate(o, channels, rank, num_classes);
  temperature = o.temperature > 0 ? o.temperature : default_ham_temperature(o.type);
  // Both breads: sn_conv1x1, no bias, exact W/σ (§3.1 steps 2 and 6).
  lower = register_module(
      "lower", SNConv2d(SNConv2dOptions(channels, channels, 1).padding(0).bias(false).mode(SNMode::kExact)));
  upper = register_module(
      "upper", SNConv2d(SNConv2dOptions(channels, channels, 1).padding(0).bias(false).mode(SNMode::kExact)));
  if (num_classes > 0) {
    bn = register_module("bn", ConditionalBatchNorm(ConditionalBatchNormOptions(channels, num_classes)));
  }
  sigma = register_parameter("sigma", torch::zeros({}));
  if (o.init == HamInit::kOnline) {
    // One persistent (S=1, d, r) set of bases, L2-normalised over d like every online update (§3.5).
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
  X = to_fp32_if_reduced(X);
  const auto so = solver_options();
  const bool nmf = options.type == HamType::kNMF;
  const bool nmf_one_step = nmf && so.gradient == HamGradient::kOneStep;
  const bool with_graph = X.requires_grad() && torch::GradMode::is_enabled();
  torch::Tensor bases0;
  if (online_bases.defined()) {
    bases0 = online_bases.to(X.dtype()).expand({batch, channels, rank}).contiguous();  // (B, d, r)
  } else {
    bases0 = ham_random_bases(options.type, batch, channels, rank, X.options().requires_grad(false), generator_);
  }
  HamFactors f;
  if (nmf_one_step && fused_nmf_takes(X, bases0)) {
    // CPU float32: ReLU, the K steps and the final code update in one kernel (FusedNmfOneStep).
    if (with_graph) {
      auto out = FusedNmfOneStep::apply(X, bases0, so.steps, so.temperature);
      f = {out[1], out[0]};
    } else {
      auto r = nmf_one_step_cpu(X, bases0, so.steps, so.temperature, kHamEps, /*keep_for_backward=*/false);
      f = {r.bases, r.codes};
    }
  } else {
    // NMF with the one-step gradient in autograd: ReLU and the final code step fused (see ReluNmfCodes).
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
    f.codes = fused ? ReluNmfCodes::apply(X, f.bases, nmf_one_step_scale(f)) : ham_final_codes(X, f, so);
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

}  // namespace hamgan
