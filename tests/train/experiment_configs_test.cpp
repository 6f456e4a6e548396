// The ImageNet experiment files, 64 and 128, read as training configs and put
// the block each names at 32×32 in G and D with the widths their comments state.
#include <fstream>
#include <string>

#include "gan/model/model_plan.h"
#include "gan/train/run_control.h"
#include "gan/train/train_config.h"
#include "tests/common/test_util.h"

namespace hamgan {
namespace {

struct Experiment {
  int64_t resolution;
  std::string block;
};

class ImagenetExperiment : public testing::TestWithParam<Experiment> {};

TEST_P(ImagenetExperiment, ReadsAndPlacesItsBlockAt32InBothNetworks) {
  const auto [resolution, block] = GetParam();
  const std::string name = "imagenet" + std::to_string(resolution) + "_" + block;
  std::ifstream f(std::string(HAMGAN_SOURCE_DIR) + "/experiments/" + name + ".toml");
  ASSERT_TRUE(f) << name;
  // Run-control keys (resume, time_limit, ...) belong to the command, not the config.
  std::string text, line;
  while (std::getline(f, line)) {
    bool control = false;
    for (const auto& field : train_run_control_fields())
      control |= line.rfind(field.spec.key + " =", 0) == 0;
    if (!control) text += line + "\n";
  }
  const TrainConfig c = train_config_from_text(text);
  const ModelConfig& m = c.model;
  EXPECT_EQ(m.resolution, resolution);
  EXPECT_EQ(m.num_classes, 1000);
  EXPECT_EQ(c.batch_size, 256);
  EXPECT_EQ(m.block_resolution, 32);
  EXPECT_EQ(c.dataset, "data/ILSVRC" + std::to_string(resolution) + ".hdf5");
  EXPECT_EQ(c.eval_reference, "data/ILSVRC" + std::to_string(resolution) + "_inception.npz");
  EXPECT_EQ(m.g_block.name, block);
  EXPECT_EQ(m.d_block.name, block);
  // Widths at the block: G g_ch·min(16, R/32), D d_ch·min(16, R/64).
  const auto g = generator_plan(m), d = discriminator_plan(m);
  const int64_t gi = context_index(g, 32), di = context_index(d, 32);
  ASSERT_GE(gi, 0);
  ASSERT_GE(di, 0);
  EXPECT_EQ(g[gi].out_ch, m.g_ch * std::min<int64_t>(16, resolution / 32));
  EXPECT_EQ(d[di].out_ch, m.d_ch * std::min<int64_t>(16, resolution / 64));
}

INSTANTIATE_TEST_SUITE_P(Files, ImagenetExperiment,
                         testing::Values(Experiment{64, "none"}, Experiment{64, "sa"}, Experiment{64, "ham"},
                                         Experiment{64, "ea"}, Experiment{128, "none"}, Experiment{128, "sa"},
                                         Experiment{128, "ham"}, Experiment{128, "ea"}),
                         [](const auto& info) {
                           return "imagenet" + std::to_string(info.param.resolution) + "_" + info.param.block;
                         });

}  // namespace
}  // namespace hamgan
