// A checkpoint whose generator holds a NaN is refused when loaded for sampling,
// naming the file and the tensor, instead of yielding black images.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <limits>
#include <string>

#include "core/errors.h"
#include "gan/sample/load_generator.h"
#include "gan/train/train_state.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {

TEST(LoadGenerator, ANonFiniteEmaWeightIsRefusedNamingTheTensorWhileTheRawWeightsStillLoad) {
  const std::string dir = test::temp_dir("nonfinite_ema");
  TrainConfig c = test::tiny_config(dir);
  c.ema = true;
  TrainState s(c, torch::kCPU);
  ASSERT_TRUE(s.g_ema);
  {
    torch::NoGradGuard no_grad;
    s.g_ema->named_parameters()["conv_out.weight"].view(-1)[0] = std::numeric_limits<float>::quiet_NaN();
  }
  const std::string path = dir + "/ck.pt";
  s.save(path);
  try {
    load_generator(path, /*use_ema=*/true, torch::kCPU, 0, 0);
    FAIL() << "a NaN in the EMA generator must be refused";
  } catch (const CheckpointError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("'conv_out.weight'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("--raw"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
  Generator raw = load_generator(path, /*use_ema=*/false, torch::kCPU, 0, 0);
  EXPECT_TRUE(torch::isfinite(raw->named_parameters()["conv_out.weight"]).all().item<bool>());
}

}  // namespace
}  // namespace hamgan
