// SpectralNormGroup (modules/spectral_norm_group.h) against each layer's own
// spectral_normalize, the reference it must reproduce: the normalised weights,
// the u written back and the weights' gradients, for every layer kind, both
// modes (a clamped σ below and above 1), and a channels_last convolution.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "modules/spectral_norm_group.h"

namespace hamgan {
namespace {

struct Net : torch::nn::Module {
  Net() {
    conv = register_module("conv", SNConv2d(SNConv2dOptions(5, 7, 3)));
    conv_nhwc = register_module("conv_nhwc", SNConv2d(SNConv2dOptions(6, 4, 3)));
    exact = register_module("exact", SNConv2d(SNConv2dOptions(8, 8, 1).padding(0).mode(SNMode::kExact)));
    linear = register_module("linear", SNLinear(9, 3));
    small = register_module("small", SNLinear(6, 6));
    embed = register_module("embed", SNEmbedding(10, 6));
    torch::NoGradGuard no_grad;
    small->weight.mul_(0.01);  // σ < 1: max(1, σ) = 1, and σ gets no gradient
    conv_nhwc->weight.set_data(conv_nhwc->weight.contiguous(torch::MemoryFormat::ChannelsLast));
  }
  // Every layer's normalised weight, through its own forward path.
  std::vector<torch::Tensor> weights() {
    return {conv->normalized_weight(), conv_nhwc->normalized_weight(), exact->normalized_weight(),
            linear->forward(torch::eye(9)).t(), small->forward(torch::eye(6)).t(),
            embed->forward(torch::arange(10))};
  }
  std::vector<torch::Tensor> us() { return {conv->u, conv_nhwc->u, exact->u, linear->u, small->u, embed->u}; }
  std::vector<torch::Tensor> params() {
    return {conv->weight, conv_nhwc->weight, exact->weight, linear->weight, small->weight, embed->weight};
  }
  SNConv2d conv{nullptr}, conv_nhwc{nullptr}, exact{nullptr};
  SNLinear linear{nullptr}, small{nullptr};
  SNEmbedding embed{nullptr};
};

// A fixed random linear functional of each normalised weight.
torch::Tensor loss_of(const std::vector<torch::Tensor>& weights, int seed) {
  torch::Tensor loss = torch::zeros({});
  for (size_t i = 0; i < weights.size(); ++i) {
    torch::manual_seed(seed + static_cast<int>(i));
    loss = loss + (weights[i] * torch::randn(weights[i].sizes())).sum();
  }
  return loss;
}

void expect_close(const torch::Tensor& got, const torch::Tensor& want, const std::string& what) {
  ASSERT_EQ(got.sizes(), want.sizes()) << what;
  EXPECT_TRUE(torch::allclose(got, want, 1e-4, 1e-6)) << what << ": max |diff| "
                                                       << (got - want).abs().max().item<double>();
}

TEST(SpectralNormGroup, MatchesEachLayersOwnNormalisation) {
  torch::manual_seed(3);
  Net group_net, own_net;
  {
    torch::NoGradGuard no_grad;
    const auto from = group_net.named_parameters(), to = own_net.named_parameters();
    for (const auto& p : from) to[p.key()].set_data(p.value().clone(p.value().suggest_memory_format()));
    const auto from_b = group_net.named_buffers(), to_b = own_net.named_buffers();
    for (const auto& b : from_b) to_b[b.key()].copy_(b.value());
  }
  SpectralNormGroup group(group_net);
  ASSERT_EQ(group.size(), 6u);
  for (int round = 0; round < 3; ++round) {  // u moves each round; both must move alike
    std::vector<torch::Tensor> via_group;
    {
      SpectralNormScope scope(&group, /*update=*/true);
      via_group = group_net.weights();
    }
    const std::vector<torch::Tensor> own = own_net.weights();
    for (size_t i = 0; i < own.size(); ++i) expect_close(via_group[i], own[i], "weight " + std::to_string(i));
    for (size_t i = 0; i < own.size(); ++i)
      expect_close(group_net.us()[i], own_net.us()[i], "u " + std::to_string(i));
    loss_of(via_group, 10 * round).backward();
    loss_of(own, 10 * round).backward();
    for (size_t i = 0; i < own.size(); ++i)
      expect_close(group_net.params()[i].grad(), own_net.params()[i].grad(), "gradient " + std::to_string(i));
  }
}

TEST(SpectralNormGroup, EvalModeLeavesUAndUntakenWeightsGo) {
  torch::manual_seed(4);
  Net net;
  SpectralNormGroup group(net);
  const std::vector<torch::Tensor> before = net.us();
  std::vector<torch::Tensor> saved;
  for (const auto& u : before) saved.push_back(u.clone());
  {
    SpectralNormScope scope(&group, /*update=*/false);
    EXPECT_TRUE(net.conv->prepared.defined());
  }
  EXPECT_FALSE(net.conv->prepared.defined());  // released: a later standalone call normalises afresh
  for (size_t i = 0; i < saved.size(); ++i) EXPECT_TRUE(torch::equal(net.us()[i], saved[i])) << i;
}

}  // namespace
}  // namespace hamgan
