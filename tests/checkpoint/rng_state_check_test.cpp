// A damaged random-number state in a checkpoint is refused in one line naming
// the file and the key, not by LibTorch's generator deep inside a load.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <string>

#include "core/errors.h"
#include "core/rng.h"
#include "gan/checkpoint/archive.h"
#include "gan/checkpoint/checkpoint.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {

void expect_rng_refused(const std::string& path, const std::string& key) {
  try {
    load_checkpoint(path, CheckpointRefs{}, /*restore_rng=*/true);
    FAIL() << "a damaged RNG state must be refused";
  } catch (const CheckpointError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find("'" + key + "'"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST(CheckpointRng, AShortOrMistypedCpuStateIsRefusedNamingFileAndKey) {
  const std::string dir = test::temp_dir("rng_state");
  auto gen = make_cpu_generator(3);
  const torch::Tensor good = generator_state(gen);
  for (const auto& [name, state] :
       {std::pair<std::string, torch::Tensor>{"short", good.slice(0, 0, good.numel() - 8)},
        {"typed", good.to(torch::kFloat)}}) {
    CheckpointWriter w;
    w.put("step", int64_t{5});
    w.put("rng_cpu", state);
    const std::string path = dir + "/" + name + ".pt";
    w.save(path);
    expect_rng_refused(path, "rng_cpu");
  }
  CheckpointWriter w;  // the intact state loads and restores the generator
  w.put("step", int64_t{5});
  w.put("rng_cpu", good);
  w.save(dir + "/good.pt");
  EXPECT_EQ(load_checkpoint(dir + "/good.pt", CheckpointRefs{}, true), 5);
  const torch::Tensor expected = torch::rand({4}, gen);
  EXPECT_TRUE(torch::equal(torch::rand({4}), expected));
}

}  // namespace
}  // namespace hamgan
