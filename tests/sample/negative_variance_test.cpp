// A checkpoint whose generator holds a negative BN running variance (no training
// writes one) is refused when loaded for sample, fid or export, naming the file
// and the tensor; the advice names options those commands have.
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

// The CheckpointError load_generator throws for `path` ("" when it loads).
std::string load_error(const std::string& path, bool ema) {
  try {
    load_generator(path, ema, torch::kCPU, 0, 0);
  } catch (const CheckpointError& e) {
    return e.what();
  }
  return "";
}

// Before: loaded; with the stored statistics every image came out black, exit 0. The NaN refusal pointed
// at `--raw`, which `hamgan export` lacks (it has --weights raw).
TEST(ImportReliability, LoadingAGeneratorRefusesANegativeRunningVarianceNamingTheTensor) {
  const std::string dir = test::temp_dir("negative_var");
  TrainConfig c = test::tiny_config(dir);
  c.ema = true;
  TrainState s(c, torch::kCPU);
  ASSERT_TRUE(s.g_ema);
  {
    torch::NoGradGuard no_grad;
    s.g_ema->named_buffers()["block1.bn2.running_var"].view(-1)[2] = -0.25f;
  }
  const std::string path = dir + "/ck.pt";
  s.save(path);
  const std::string msg = load_error(path, /*ema=*/true);
  EXPECT_NE(msg.find(path + ": the EMA generator's tensor 'block1.bn2.running_var' holds a negative variance (-0.25 "
                     "at element 2)"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("(hamgan sample --raw, hamgan export --weights raw)"), std::string::npos) << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  EXPECT_EQ(load_error(path, /*ema=*/false), "");  // the raw generator's statistics are whole

  {
    torch::NoGradGuard no_grad;
    s.g_ema->named_buffers()["block1.bn2.running_var"].fill_(1.0f);
    s.g_ema->named_parameters()["conv_out.weight"].view(-1)[0] = std::numeric_limits<float>::infinity();
  }
  s.save(path);
  const std::string nonfinite = load_error(path, /*ema=*/true);
  EXPECT_NE(nonfinite.find("'conv_out.weight' holds NaN or Inf"), std::string::npos) << nonfinite;
  EXPECT_NE(nonfinite.find("(hamgan sample --raw, hamgan export --weights raw)"), std::string::npos) << nonfinite;
}

}  // namespace
}  // namespace hamgan
