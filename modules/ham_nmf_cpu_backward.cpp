// The backward pass of the fused CPU NMF node: ∂X of the one-step final codes through the ReLU
// (see ham_nmf_cpu.h).
#include <ATen/Parallel.h>

#include <vector>

#include "modules/ham_nmf_cpu.h"
#include "modules/ham_nmf_cpu_kernels.h"

namespace hamgan {

using namespace nmf_cpu;

namespace {

// Backward of C = (XᵀD) ⊙ S through the ReLU, for one sample: ∂X[i, j] = [X[i, j] > 0] Σ_k D[i, k] (G ⊙ S)[j, k].
// Both layouts of ∂X are out[o][c] = [positive] Σ_k u[k][o] v[k][c] over an outer index o and the
// contiguous index c: (u, v) = ((G ⊙ S)ᵀ, Dᵀ) for channels_last's rows of positions, (Dᵀ, (G ⊙ S)ᵀ)
// for (d, n). u is (R, outer), v (R, inner_pad), vectorised along c. Multiplying by the mask, as the
// ATen path does, keeps a NaN gradient visible.
HAMGAN_INLINE void store_lanes(float* p, Vec8 v) { store8(p, v); }
HAMGAN_INLINE void store_lanes(c10::BFloat16* p, Vec8 v) {  // rounded once, as a float32 -> bf16 cast rounds
  for (int64_t l = 0; l < kLanes; ++l) p[l] = c10::BFloat16(v[l]);
}

template <int R, typename Out>
HAMGAN_INLINE void masked_outer_sum(const float* u, const float* v, int64_t outer, int64_t inner, int64_t inner_pad,
                                    const bool* positive, Out* out) {
  for (int64_t o = 0; o < outer; ++o) {
    float uo[R];
    for (int k = 0; k < R; ++k) uo[k] = u[k * outer + o];
    const bool* keep = positive + o * inner;
    Out* dst = out + o * inner;
    int64_t c = 0;
    for (; c + kLanes <= inner; c += kLanes) {
      Vec8 acc = broadcast(0.f);
      for (int k = 0; k < R; ++k) acc += broadcast(uo[k]) * load8(v + k * inner_pad + c);
      store_lanes(dst + c, acc * load_mask8(keep + c));
    }
    for (; c < inner; ++c) {
      float sum = 0.f;
      for (int k = 0; k < R; ++k) sum += uo[k] * v[k * inner_pad + c];
      dst[c] = static_cast<Out>(sum * (keep[c] ? 1.f : 0.f));
    }
  }
}

// Inlined into each clone below, so the sums take the clone's instructions (FMA where it has them).
template <typename Out>
HAMGAN_INLINE void masked_outer_sum_of_rank(int64_t rank, const float* u, const float* v, int64_t outer,
                                            int64_t inner, int64_t inner_pad, const bool* positive, Out* out) {
  switch (rank) {
    case 1: return masked_outer_sum<1>(u, v, outer, inner, inner_pad, positive, out);
    case 2: return masked_outer_sum<2>(u, v, outer, inner, inner_pad, positive, out);
    case 3: return masked_outer_sum<3>(u, v, outer, inner, inner_pad, positive, out);
    case 4: return masked_outer_sum<4>(u, v, outer, inner, inner_pad, positive, out);
    case 5: return masked_outer_sum<5>(u, v, outer, inner, inner_pad, positive, out);
    case 6: return masked_outer_sum<6>(u, v, outer, inner, inner_pad, positive, out);
    case 7: return masked_outer_sum<7>(u, v, outer, inner, inner_pad, positive, out);
    case 8: return masked_outer_sum<8>(u, v, outer, inner, inner_pad, positive, out);
  }
}

HAMGAN_CPU_CLONES void masked_outer_sum_sample(int64_t rank, const float* u, const float* v, int64_t outer,
                                               int64_t inner, int64_t inner_pad, const bool* positive, float* out) {
  masked_outer_sum_of_rank(rank, u, v, outer, inner, inner_pad, positive, out);
}
HAMGAN_CPU_CLONES void masked_outer_sum_sample(int64_t rank, const float* u, const float* v, int64_t outer,
                                               int64_t inner, int64_t inner_pad, const bool* positive,
                                               c10::BFloat16* out) {
  masked_outer_sum_of_rank(rank, u, v, outer, inner, inner_pad, positive, out);
}

}  // namespace

torch::Tensor nmf_one_step_backward_cpu(const torch::Tensor& grad_codes, const NmfOneStepCpu& saved) {
  TORCH_CHECK(saved.positive.defined() && samples_are_dense_blocks(saved.positive),
              "ham: the fused NMF backward needs the forward's mask (keep_for_backward)");
  const int64_t batch = saved.positive.size(0), d = saved.positive.size(1), n = saved.positive.size(2);
  const int64_t rank = saved.bases.size(2);
  const auto grad = grad_codes.to(torch::kFloat).contiguous();
  const std::vector<int64_t> codes_shape{batch, n, rank};
  TORCH_CHECK(grad.sizes() == codes_shape, "ham: gradient of the codes has shape ", grad.sizes(), ", expected ",
              codes_shape);
  TORCH_CHECK(saved.x_dtype == torch::kFloat || saved.x_dtype == torch::kBFloat16,
              "ham: the fused NMF backward writes ∂X in float32 or bf16, not ", saved.x_dtype);
  auto grad_x =
      torch::empty_strided(saved.positive.sizes(), saved.positive.strides(), grad.options().dtype(saved.x_dtype));
  // The two layouts of samples_are_dense_blocks; with d or n = 1 both read the same offsets.
  const bool rows_of_positions = saved.positive.stride(1) == 1 && d > 1;
  const int64_t outer = rows_of_positions ? n : d, inner = rows_of_positions ? d : n;
  const int64_t inner_pad = (inner + kLanes - 1) / kLanes * kLanes;
  const int64_t gs_stride = rows_of_positions ? n : inner_pad, bases_stride = rows_of_positions ? inner_pad : d;
  const float* gp = grad.data_ptr<float>();
  const float* sp = saved.scale.data_ptr<float>();
  const float* bp = saved.bases.data_ptr<float>();
  const bool* mp = saved.positive.data_ptr<bool>();
  const bool bf16_out = saved.x_dtype == torch::kBFloat16;
  float* out = bf16_out ? nullptr : grad_x.data_ptr<float>();
  c10::BFloat16* out_bf16 = bf16_out ? grad_x.data_ptr<c10::BFloat16>() : nullptr;
  at::parallel_for(0, batch, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> gs_rows(rank * gs_stride, 0.f), bases_rows(rank * bases_stride, 0.f);
    for (int64_t b = begin; b < end; ++b) {
      // (G ⊙ S)ᵀ and Dᵀ, one row per rank.
      for (int64_t j = 0; j < n; ++j)
        for (int64_t k = 0; k < rank; ++k)
          gs_rows[k * gs_stride + j] = gp[(b * n + j) * rank + k] * sp[(b * n + j) * rank + k];
      for (int64_t i = 0; i < d; ++i)
        for (int64_t k = 0; k < rank; ++k) bases_rows[k * bases_stride + i] = bp[(b * d + i) * rank + k];
      const float* u = rows_of_positions ? gs_rows.data() : bases_rows.data();
      const float* v = rows_of_positions ? bases_rows.data() : gs_rows.data();
      if (bf16_out)
        masked_outer_sum_sample(rank, u, v, outer, inner, inner_pad, mp + b * d * n, out_bf16 + b * d * n);
      else
        masked_outer_sum_sample(rank, u, v, outer, inner, inner_pad, mp + b * d * n, out + b * d * n);
    }
  });
  return grad_x;
}

}  // namespace hamgan
