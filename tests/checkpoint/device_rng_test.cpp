// Each rank's device generator in checkpoints: rank k resumes its own GPU's
// stream, not rank 0's view of GPU k. A CPU machine has no GPU generators, so
// CPU generators stand in for them (what TrainState keeps is only a generator
// and its state, whichever device it belongs to).
#include <gtest/gtest.h>

#include "core/rng.h"
#include "gan/train/train_state.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {

// A stand-in for one GPU's generator, advanced by `draws` numbers.
at::Generator gpu_generator(uint64_t seed, int64_t draws) {
  at::Generator g = make_cpu_generator(seed);
  torch::randn({draws}, g);
  return g;
}

bool same_state(at::Generator& a, at::Generator& b) {
  return torch::equal(generator_state(a), generator_state(b));
}

// Its scratch directory is made (and emptied) once per test binary run.
const std::string& scratch() {
  static const std::string dir = test::temp_dir("device_rng");
  return dir;
}

TrainState state_of_rank(int64_t rank, int64_t world) {
  TrainState s(test::tiny_config(scratch()), torch::kCPU, rank, world);
  s.device_rng = make_cpu_generator(999);  // what a GPU's generator holds before the load
  return s;
}

TEST(DeviceRng, EachRankRestoresItsOwnGeneratorFromAJobCheckpoint) {
  at::Generator gpu0 = gpu_generator(100, 3), gpu1 = gpu_generator(200, 7);
  TrainState writer = state_of_rank(0, 2);
  writer.device_rng = gpu0;
  writer.rank_device_rng_states = torch::stack({generator_state(gpu0), generator_state(gpu1)});  // the gather
  const std::string path = scratch() + "/job.pt";
  writer.save(path);
  for (int64_t rank : {0, 1}) {
    TrainState reader = state_of_rank(rank, 2);
    reader.load(path);
    EXPECT_TRUE(reader.device_rng_restored) << rank;
    at::Generator& own = rank == 0 ? gpu0 : gpu1;
    at::Generator& other = rank == 0 ? gpu1 : gpu0;
    EXPECT_TRUE(same_state(reader.device_rng, own)) << "rank " << rank;
    EXPECT_FALSE(same_state(reader.device_rng, other)) << "rank " << rank;
  }
  // Another world size: no rank's row is its own, so the generator keeps its seeded state.
  TrainState elsewhere = state_of_rank(1, 3);
  const torch::Tensor before = generator_state(elsewhere.device_rng);
  elsewhere.load(path);
  EXPECT_FALSE(elsewhere.device_rng_restored);
  EXPECT_TRUE(torch::equal(generator_state(elsewhere.device_rng), before));
}

TEST(DeviceRng, ASingleProcessRestoresItsGenerator) {
  at::Generator gpu = gpu_generator(300, 5);
  TrainState writer = state_of_rank(0, 1);
  writer.device_rng = gpu;
  const std::string path = scratch() + "/single.pt";
  writer.save(path);
  TrainState reader = state_of_rank(0, 1);
  reader.load(path);
  EXPECT_TRUE(reader.device_rng_restored);
  EXPECT_TRUE(same_state(reader.device_rng, gpu));
  // The next draws continue the saved stream.
  EXPECT_TRUE(torch::equal(torch::randn({4}, reader.device_rng), torch::randn({4}, gpu)));
}

TEST(DeviceRng, ACpuRunHasNoDeviceGenerator) {
  TrainState s(test::tiny_config(scratch()), torch::kCPU);
  EXPECT_FALSE(s.device_rng.defined());  // the CPU's generator is the global one, saved as rng_cpu
}

}  // namespace
}  // namespace hamgan
