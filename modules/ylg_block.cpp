// YLG local attention (docs/modules.md, `ylg`, with its masks): 8 heads, each with
// its own ESA-reindexed sparsity pattern; disallowed keys get a finite −1000
// logit bias before the softmax, exactly as the reference.
#include <limits>

#include "core/errors.h"
#include "modules/attention.h"
#include "modules/builtin_blocks.h"
#include "modules/fp32_region.h"
#include "modules/ylg_masks.h"

namespace hamgan {

YlgAttentionImpl::YlgAttentionImpl(int64_t channels_, YlgKernel kernel_)
    : AttentionBaseImpl(checked_attention_channels(channels_, 64, "ylg"), channels_ / 8), kernel(kernel_) {}

void YlgAttentionImpl::prepare(const torch::Tensor& x) {
  const int64_t h = x.size(2), w = x.size(3);
  const auto opts = x.options();
  const bool same_size = cache_.height == h && cache_.width == w;
  auto fits = [&](const torch::Tensor& t) { return t.defined() && t.device() == x.device() && t.dtype() == x.dtype(); };
  const auto& probe = kernel == YlgKernel::kDense    ? cache_.dense_bias
                      : kernel == YlgKernel::kGather ? cache_.key_bias
                                                     : cache_.plan.floor_bias;
  if (same_size && fits(probe)) return;
  if (!same_size) cache_ = Cache{};
  cache_.height = h;
  cache_.width = w;
  if (kernel == YlgKernel::kBlocked) {
    cache_.plan = make_ylg_blocked_plan(h, w, opts);
    return;
  }
  const auto masks = ylg_masks(h, w);  // (8, N, n) bool, CPU
  const int64_t n_out = masks.size(1), n = masks.size(2);
  if (kernel == YlgKernel::kDense) {
    // adder = (1 − M)·(−1000), the reference's finite mask bias.
    cache_.dense_bias = (1.0 - masks.to(torch::kDouble)).mul(-1000.0).to(opts);
    return;
  }
  // Padded per-query key lists: slot j of query q in head hd holds a key of
  // the flattened head-major key tensor (hd·n + key); unused slots point at
  // key 0 of that head and get a −inf bias so they carry no weight.
  const auto counts = masks.sum(-1);  // (8, N)
  const int64_t k_max = counts.max().item<int64_t>();
  auto index = torch::empty({kHeads, n_out, k_max}, torch::kLong);
  auto bias = torch::full({kHeads, n_out, 1, k_max}, -std::numeric_limits<double>::infinity(), torch::kDouble);
  auto m = masks.accessor<bool, 3>();
  auto ia = index.accessor<int64_t, 3>();
  auto ba = bias.accessor<double, 4>();
  for (int64_t hd = 0; hd < kHeads; ++hd)
    for (int64_t q = 0; q < n_out; ++q) {
      int64_t j = 0;
      for (int64_t key = 0; key < n; ++key)
        if (m[hd][q][key]) {
          ia[hd][q][j] = hd * n + key;
          ba[hd][q][0][j] = 0.0;
          ++j;
        }
      for (; j < k_max; ++j) ia[hd][q][j] = hd * n;
    }
  cache_.max_keys = k_max;
  cache_.key_index = index.reshape({-1}).to(x.device());
  cache_.key_bias = bias.to(opts);
}

torch::Tensor YlgAttentionImpl::forward(const torch::Tensor& x, const torch::Tensor&) {
  const auto p = project(x, "ylg");
  prepare(x);
  const int64_t b = x.size(0), n_out = x.size(2) * x.size(3), n = n_out / 4;
  // Contiguous channel blocks per head (docs/modules.md, `ylg`): head dims C/64 (q, k) and C/16 (v).
  const auto q = p.q.view({b, kHeads, -1, n_out}).transpose(2, 3);  // (B, 8, N, dq)
  const auto k = p.k.view({b, kHeads, -1, n});                       // (B, 8, dq, n)
  const auto v = p.v.view({b, kHeads, -1, n});                       // (B, 8, dv, n)
  const int64_t dq = k.size(2), dv = v.size(2);
  if (kernel == YlgKernel::kBlocked) {
    const auto out = ylg_blocked_attention(cache_.plan, p.q.view({b, kHeads, -1, n_out}), k, v);  // (B, 8, dv, N)
    // Heads re-merged interleaved: channel = d·8 + h (docs/modules.md, `ylg`).
    return finish(x, out.transpose(1, 2).reshape({b, channels / 2, x.size(2), x.size(3)}));
  }
  torch::Tensor out;  // (B, 8, N, dv)
  if (kernel == YlgKernel::kDense) {
    // No 1/√d scale; softmax over all n keys with −1000 on disallowed ones.
    const auto attn = torch::softmax(to_fp32_if_reduced(q.matmul(k) + cache_.dense_bias), -1);  // (B, 8, N, n)
    out = attn.matmul(v.transpose(2, 3));
  } else {
    const int64_t kk = cache_.max_keys;
    // Gather each query's allowed keys/values: (B, 8·N·K, d) → (B, 8, N, K, d).
    const auto kg = k.transpose(2, 3).reshape({b, kHeads * n, dq}).index_select(1, cache_.key_index)
                        .view({b, kHeads, n_out, kk, dq});
    const auto vg = v.transpose(2, 3).reshape({b, kHeads * n, dv}).index_select(1, cache_.key_index)
                        .view({b, kHeads, n_out, kk, dv});
    const auto logits = q.unsqueeze(3).matmul(kg.transpose(3, 4)) + cache_.key_bias;  // (B, 8, N, 1, K)
    out = torch::softmax(to_fp32_if_reduced(logits), -1).matmul(vg).squeeze(3);  // (B, 8, N, dv)
  }
  // Heads re-merged interleaved: channel = d·8 + h (docs/modules.md, `ylg`).
  const auto merged = out.permute({0, 3, 1, 2}).reshape({b, channels / 2, x.size(2), x.size(3)});
  return finish(x, merged);
}

std::string YlgAttentionImpl::describe() const {
  return "ylg(C=" + std::to_string(channels) + ", heads=8, qk/head=" + std::to_string(channels / 64) +
         ", v/head=" + std::to_string(channels / 16) + ", " + (kernel == YlgKernel::kDense ? "dense" : kernel == YlgKernel::kGather ? "gather" : "blocked") + ")";
}

ContextBlock make_ylg_block(const ContextOptions&, int64_t channels) {
  return std::make_shared<YlgAttentionImpl>(channels);
}

// Counted as the reference's dense masked product: the 8 heads partition SA's channels, so the
// count equals SA's (the gather and blocked kernels do fewer).
int64_t ylg_block_macs(const ContextOptions&, const std::vector<int64_t>& shape) {
  return attention_macs(shape, /*pooled=*/true);
}

}  // namespace hamgan
