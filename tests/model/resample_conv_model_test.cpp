// G and D whole with their resampling folded into the convolutions (resample_conv = "folded",
// modules/resample_conv.h) against the separate passes, in float64: the output and every parameter's
// gradient, for every registered context block at every resolution plan; and the key itself: its text,
// and a checkpoint's identity that leaves it out.
#include <gtest/gtest.h>

#include "gan/model/discriminator.h"
#include "gan/model/generator.h"
#include "modules/context_block.h"
#include "tests/common/gan_test_util.h"
#include "tests/modules/module_test_util.h"

namespace hamgan {
namespace {

struct Pass {
  torch::Tensor output;
  std::vector<torch::Tensor> gradients;  // one per parameter, in order (zeros where none reached it)
};

// The network in eval mode (stored σ and moving statistics, so both forms see the same weights), its
// random draws (the Hamburger's bases) reseeded, under a fixed random upstream gradient.
template <class Forward>
Pass run(torch::nn::Module& net, Forward forward) {
  net.zero_grad();
  torch::manual_seed(3);
  const torch::Tensor y = forward();
  auto gen = test::seeded(11);
  (y * torch::randn(y.sizes(), gen, test::kF64)).sum().backward();
  Pass p{y.detach(), {}};
  for (const auto& w : net.parameters()) p.gradients.push_back(w.grad().defined() ? w.grad().clone() : torch::zeros_like(w));
  return p;
}

// Largest difference relative to the separate form's largest entry.
double relative_gap(const torch::Tensor& folded, const torch::Tensor& separate) {
  const double scale = std::max(separate.abs().max().item<double>(), 1e-300);
  return (folded - separate).abs().max().item<double>() / scale;
}

void expect_same_pass(const Pass& folded, const Pass& separate, const std::string& what) {
  EXPECT_LE(relative_gap(folded.output, separate.output), 1e-10) << what << " output";
  ASSERT_EQ(folded.gradients.size(), separate.gradients.size());
  for (size_t i = 0; i < folded.gradients.size(); ++i)
    EXPECT_LE(relative_gap(folded.gradients[i], separate.gradients[i]), 1e-9) << what << " gradient " << i;
}

class ResampleConvModel : public ::testing::TestWithParam<int64_t> {};

TEST_P(ResampleConvModel, FoldedGAndDEqualTheSeparateFormWithGradientsForEveryBlock) {
  const int64_t resolution = GetParam();
  for (const std::string& block : context_block_names()) {
    SCOPED_TRACE(block + " at " + std::to_string(resolution));
    const ModelConfig cfg = test::buildable_config(resolution, block);
    torch::manual_seed(1);
    Generator g(cfg);
    Discriminator d(cfg);
    g->to(torch::kDouble);
    d->to(torch::kDouble);
    g->eval();
    d->eval();
    auto gen = test::seeded(5);
    const auto z = torch::randn({2, cfg.z_dim}, gen, test::kF64);
    const auto labels = torch::randint(0, cfg.num_classes, {2}, gen, torch::TensorOptions().dtype(torch::kLong));
    const auto images = torch::rand({2, 3, resolution, resolution}, gen, test::kF64) * 2 - 1;
    Pass g_pass[2], d_pass[2];
    for (ResampleConv form : {ResampleConv::kSeparate, ResampleConv::kFolded}) {
      g->set_resample_conv(form);
      d->set_resample_conv(form);
      const int i = form == ResampleConv::kFolded;
      g_pass[i] = run(*g, [&] { return g->forward(z, labels); });
      d_pass[i] = run(*d, [&] { return d->forward(images, labels); });
    }
    expect_same_pass(g_pass[1], g_pass[0], "G");
    expect_same_pass(d_pass[1], d_pass[0], "D");
    EXPECT_GT(g_pass[0].output.abs().max().item<double>(), 0.0);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryPlan, ResampleConvModel, ::testing::Values(32, 64, 128));

TEST(ResampleConvModel, TheKeyReadsBackAndIsNotPartOfACheckpointsIdentity) {
  ModelConfig folded = test::small_config(32, "ham");
  folded.resample_conv = ResampleConv::kFolded;
  const std::string text = model_config_to_text(folded);
  EXPECT_NE(text.find("resample_conv = \"folded\""), std::string::npos) << text;
  EXPECT_EQ(model_config_from_text(text).resample_conv, ResampleConv::kFolded);
  ModelConfig separate = folded;
  separate.resample_conv = ResampleConv::kSeparate;
  EXPECT_EQ(model_identity_text(folded), model_identity_text(separate));
  separate.g_ch += 1;  // any other key still tells the models apart
  EXPECT_NE(model_identity_text(folded), model_identity_text(separate));
  EXPECT_THROW(model_config_from_text("resample_conv = \"sideways\"\n"), ConfigError);
}

}  // namespace
}  // namespace hamgan
