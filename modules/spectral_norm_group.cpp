#include "modules/spectral_norm_group.h"

#include <numeric>

#include "modules/fp32_region.h"
#include "modules/spectral_divide.h"

namespace hamgan {
namespace {

constexpr double kEps = 1e-12;  // tf.math.l2_normalize's bound on the squared norm, as spectral_normalize

// x · rsqrt(max(Σx², eps)) for each segment of the concatenation x, with each
// segment's Σx² and its factor.
struct Normalized {
  torch::Tensor values, sum_squares, factor;
};
Normalized normalize_segments(const torch::Tensor& x, const std::vector<torch::Tensor>& segments,
                              const torch::Tensor& owner) {
  const torch::Tensor norms = torch::stack(at::_foreach_norm(segments));
  Normalized n;
  n.sum_squares = norms * norms;
  n.factor = torch::rsqrt(torch::clamp_min(n.sum_squares, kEps));
  n.values = x * n.factor.index_select(0, owner);
  return n;
}

torch::Tensor owners(const std::vector<int64_t>& lengths, const torch::Device& device) {
  const auto count = static_cast<int64_t>(lengths.size());
  return torch::repeat_interleave(torch::arange(count), torch::tensor(lengths)).to(device);
}

}  // namespace

SpectralNormGroup::SpectralNormGroup(torch::nn::Module& net) {
  for (const auto& m : net.modules(/*include_self=*/false)) {
    SNSlot slot{};
    if (auto c = std::dynamic_pointer_cast<SNConv2dImpl>(m)) slot = c->slot();
    else if (auto l = std::dynamic_pointer_cast<SNLinearImpl>(m)) slot = l->slot();
    else if (auto e = std::dynamic_pointer_cast<SNEmbeddingImpl>(m)) slot = e->slot();
    else continue;
    layers_.push_back(m);
    slots_.push_back(slot);
  }
}

void SpectralNormGroup::normalize(bool update) {
  if (slots_.empty()) return;
  std::vector<at::ScalarType> out;  // read before autocast is turned off below
  for (const auto& s : slots_) out.push_back(s.in_compute_dtype ? sn_compute_dtype(*s.weight) : s.weight->scalar_type());
  Fp32Region fp32;  // σ and the power iteration in float32 also under autocast
  const auto count = static_cast<int64_t>(slots_.size());
  std::vector<torch::Tensor> mats;
  for (const auto& s : slots_) mats.push_back(sn_matrix(s.weight->detach()));
  const torch::Device device = mats.front().device();
  if (!column_owner_.defined() || column_owner_.device() != device) {
    columns_.clear();
    rows_.clear();
    std::vector<uint8_t> clamped;
    for (size_t l = 0; l < slots_.size(); ++l) {
      rows_.push_back(mats[l].size(0));
      columns_.push_back(mats[l].size(1));
      clamped.push_back(slots_[l].mode == SNMode::kClamp);
    }
    column_owner_ = owners(columns_, device);
    row_owner_ = owners(rows_, device);
    clamped_ = torch::tensor(std::vector<int64_t>(clamped.begin(), clamped.end())).to(torch::kBool).to(device);
  }
  SNDivisor divisor;
  std::vector<torch::Tensor> u_new, v;
  {
    torch::NoGradGuard no_grad;
    const auto options = mats.front().options();
    const torch::Tensor wt_u = torch::empty({std::accumulate(columns_.begin(), columns_.end(), int64_t{0})}, options);
    const torch::Tensor w_v = torch::empty({std::accumulate(rows_.begin(), rows_.end(), int64_t{0})}, options);
    const std::vector<torch::Tensor> wt_u_parts = wt_u.split_with_sizes(columns_);
    const std::vector<torch::Tensor> w_v_parts = w_v.split_with_sizes(rows_);
    for (int64_t l = 0; l < count; ++l) at::mv_out(const_cast<torch::Tensor&>(wt_u_parts[l]), mats[l].t(), *slots_[l].u);
    v = normalize_segments(wt_u, wt_u_parts, column_owner_).values.split_with_sizes(columns_);
    for (int64_t l = 0; l < count; ++l) at::mv_out(const_cast<torch::Tensor&>(w_v_parts[l]), mats[l], v[l]);
    const Normalized u = normalize_segments(w_v, w_v_parts, row_owner_);
    u_new = u.values.split_with_sizes(rows_);
    if (update) {
      std::vector<torch::Tensor> stored;
      for (const auto& s : slots_) stored.push_back(*s.u);
      at::_foreach_copy_(stored, u_new);
    }
    const torch::Tensor sigma = u.sum_squares * u.factor;  // uᵀWv with u = Wv / ‖Wv‖
    divisor = sn_divisor(sigma, clamped_);
  }
  for (int64_t l = 0; l < count; ++l)
    *slots_[l].prepared = sn_divide(*slots_[l].weight, divisor.d[l], u_new[l], v[l], divisor.scale[l], out[l]);
}

void SpectralNormGroup::release() {
  for (auto& s : slots_) *s.prepared = torch::Tensor();
}

}  // namespace hamgan
