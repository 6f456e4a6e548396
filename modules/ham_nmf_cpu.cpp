// The fused CPU kernel for the Hamburger's local NMF steps (see ham_nmf_cpu.h): the checks, and
// the pass over the batch that runs one sample at a time (ham_nmf_cpu_sample.cpp) in its own buffers.
#include "modules/ham_nmf_cpu.h"

#include <ATen/Parallel.h>

#include <vector>

#include "modules/ham_nmf_cpu_kernels.h"

namespace hamgan {

using namespace nmf_cpu;

bool nmf_cpu::samples_are_dense_blocks(const torch::Tensor& x) {
  const int64_t d = x.size(1), n = x.size(2);
  const bool packed = x.stride(2) == 1 && x.stride(1) == n, rows = x.stride(1) == 1 && x.stride(2) == d;
  return (packed || rows) && x.stride(0) == d * n;
}

namespace {

// What one pass over the batch computes besides the K local steps.
struct PassOptions {
  bool rectify = false;        // ReLU on load
  bool final_step = false;     // the one-step final code update, with its scale S
  bool keep_positive = false;  // the ReLU mask x > 0 for the backward pass, in x's layout
};

struct PassResult {
  torch::Tensor bases, codes, scale, positive;
};

template <typename Source>
PassResult factorize_batch(const torch::Tensor& x, const torch::Tensor& bases_in, int64_t steps, double temperature,
                           double eps, const PassOptions& o) {
  const int64_t batch = x.size(0), d = x.size(1), n = x.size(2), rank = bases_in.size(2);
  const int64_t n_pad = (n + kTile - 1) / kTile * kTile;
  PassResult out;
  out.bases = bases_in.clone(at::MemoryFormat::Contiguous);  // updated in place, sample by sample
  const auto factor_options = x.options().dtype(torch::kFloat);  // the factors are float32 for either x
  out.codes = torch::empty({batch, n, rank}, factor_options);
  if (o.final_step) out.scale = torch::empty({batch, n, rank}, factor_options);
  if (o.keep_positive) out.positive = torch::empty_strided(x.sizes(), x.strides(), x.options().dtype(torch::kBool));
  const Source* xp = x.data_ptr<Source>();
  const int64_t sb = x.stride(0), sd = x.stride(1), sn = x.stride(2);
  float* bp = out.bases.data_ptr<float>();
  float* cp = out.codes.data_ptr<float>();
  float* sp = o.final_step ? out.scale.data_ptr<float>() : nullptr;
  bool* mp = o.keep_positive ? out.positive.data_ptr<bool>() : nullptr;
  at::parallel_for(0, batch, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> x_rows(d * n_pad, 0.f), code_rows(rank * n_pad), xtd(rank * n_pad), xc(d * rank);
    std::vector<float> scale_rows(sp ? rank * n_pad : 0);
    for (int64_t b = begin; b < end; ++b) {
      const Source* sample = xp + b * sb;
      load_sample(o.rectify, sample, sd, sn, d, n, n_pad, x_rows.data());
      if (mp)  // x and the mask share the sample's dense layout (samples_are_dense_blocks)
        for (int64_t t = 0; t < d * n; ++t) mp[b * d * n + t] = static_cast<float>(sample[t]) > 0.f;
      const SampleBuffers s{x_rows.data(), code_rows.data(), xtd.data(), xc.data(), bp + b * d * rank,
                            d,           n,                n_pad,      static_cast<float>(eps)};
      factorize_sample(rank, s, steps, static_cast<float>(temperature), sp ? scale_rows.data() : nullptr);
      for (int64_t j = 0; j < n; ++j)
        for (int64_t k = 0; k < rank; ++k) cp[(b * n + j) * rank + k] = code_rows[k * n_pad + j];
      if (sp)
        for (int64_t j = 0; j < n; ++j)
          for (int64_t k = 0; k < rank; ++k) sp[(b * n + j) * rank + k] = scale_rows[k * n_pad + j];
    }
  });
  return out;
}

PassResult factorize_batch_of(const torch::Tensor& x, const torch::Tensor& bases, int64_t steps, double temperature,
                              double eps, const PassOptions& o) {
  if (x.scalar_type() == torch::kBFloat16) return factorize_batch<c10::BFloat16>(x, bases, steps, temperature, eps, o);
  return factorize_batch<float>(x, bases, steps, temperature, eps, o);
}

}  // namespace

constexpr const char* kFusedNmfInputs =
    "ham: the fused NMF kernel takes CPU float32 or bf16 x (B, d, n) and float32 bases (B, d, r ≤ 8), got ";

bool fused_nmf_takes(const torch::Tensor& x, const torch::Tensor& bases) {
  const bool x_dtype_ok = x.scalar_type() == torch::kFloat || x.scalar_type() == torch::kBFloat16;
  return x.device().is_cpu() && bases.device().is_cpu() && x_dtype_ok && bases.scalar_type() == torch::kFloat &&
         x.dim() == 3 && bases.dim() == 3 && x.size(0) == bases.size(0) && x.size(1) == bases.size(1) &&
         x.size(2) > 0 && bases.size(2) >= 1 && bases.size(2) <= kFusedNmfMaxRank;
}

bool fused_nmf_applies(const torch::Tensor& x, const torch::Tensor& bases) {
  const bool wants_graph = torch::GradMode::is_enabled() && (x.requires_grad() || bases.requires_grad());
  return !wants_graph && fused_nmf_takes(x, bases);
}

std::pair<torch::Tensor, torch::Tensor> nmf_local_steps_cpu(const torch::Tensor& x, const torch::Tensor& bases,
                                                            int64_t steps, double temperature, double eps) {
  TORCH_CHECK(fused_nmf_applies(x, bases), kFusedNmfInputs, x.sizes(), " and ", bases.sizes());
  auto r = factorize_batch_of(x, bases, steps, temperature, eps, PassOptions{});
  return {r.bases, r.codes};
}

NmfOneStepCpu nmf_one_step_cpu(const torch::Tensor& x_in, const torch::Tensor& bases, int64_t steps,
                               double temperature, double eps, bool keep_for_backward) {
  TORCH_CHECK(fused_nmf_takes(x_in, bases), kFusedNmfInputs, x_in.sizes(), " and ", bases.sizes());
  torch::NoGradGuard no_grad;
  // The mask and ∂X take x's layout, so it must be one the backward pass reads.
  const auto x = samples_are_dense_blocks(x_in) ? x_in : x_in.contiguous();
  PassOptions o;
  o.rectify = o.final_step = true;
  o.keep_positive = keep_for_backward;
  auto r = factorize_batch_of(x, bases.detach(), steps, temperature, eps, o);
  return {r.bases, r.codes, r.scale, r.positive, x.scalar_type()};
}

}  // namespace hamgan
