// Which GPU each rank of a job trains on (gan/train/data_parallel.h), on
// machines described by an injected device count: eight ranks on a node that
// shows all eight GPUs, SLURM tasks that see one GPU each, and more ranks than
// GPUs, which is refused with the rank, the count and the fix.
#include <gtest/gtest.h>

#include <functional>

#include "core/errors.h"
#include "gan/train/data_parallel.h"

namespace hamgan {
namespace {

CudaProbe gpus(int64_t n) {
  CudaProbe p;
  p.libtorch_cuda = true;
  p.devices = n;
  p.nvidia_gpus = n > 0;
  p.cuda_release = 13000;
  return p;
}

DistEnv rank_of(int64_t rank, int64_t local_rank, int64_t local_world) {
  DistEnv env;
  env.rank = rank;
  env.world_size = 16;
  env.local_rank = local_rank;
  env.local_world_size = local_world;
  return env;
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(RankDevice, EachLocalRankTakesItsGpuWhereAllAreVisible) {
  for (int64_t local = 0; local < 8; ++local)
    EXPECT_EQ(rank_device("cuda", rank_of(8 + local, local, 8), gpus(8)),
              torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(local)));
  EXPECT_EQ(rank_device("auto", rank_of(11, 3, 8), gpus(8)), torch::Device(torch::kCUDA, 3));
}

TEST(RankDevice, OneVisibleGpuPerTaskIsGpuZero) {
  // srun --gpus-per-task 1: every task sees its own GPU as device 0.
  for (int64_t local = 0; local < 8; ++local)
    EXPECT_EQ(rank_device("cuda", rank_of(local, local, 8), gpus(1)), torch::Device(torch::kCUDA, 0));
}

TEST(RankDevice, MoreRanksThanGpusIsRefusedNamingRankCountAndFix) {
  const std::string e = error_of([] { rank_device("cuda", rank_of(13, 5, 8), gpus(4)); });
  EXPECT_EQ(e, "device: rank 13 (local rank 5) has no GPU of its own: this machine shows 4 CUDA devices; start at "
               "most 4 ranks per machine, or show each task one GPU (srun --gpus-per-task 1)");
}

TEST(RankDevice, SingleProcessAndCpuAreUnchanged) {
  DistEnv single;
  EXPECT_EQ(rank_device("cuda:3", single, gpus(4)), torch::Device(torch::kCUDA, 3));
  EXPECT_EQ(rank_device("cpu", rank_of(5, 5, 8), gpus(8)), torch::Device(torch::kCPU));
  EXPECT_EQ(rank_device("auto", rank_of(5, 5, 8), gpus(0)), torch::Device(torch::kCPU));
  // One index for all ranks of a machine is refused; alone on its machine a rank may name one.
  EXPECT_NE(error_of([] { rank_device("cuda:1", rank_of(1, 1, 2), gpus(2)); }).find("names one GPU for all 2 ranks"),
            std::string::npos);
  EXPECT_EQ(rank_device("cuda:1", rank_of(1, 0, 1), gpus(2)), torch::Device(torch::kCUDA, 1));
}

TEST(RankDevice, NprocAboveTheGpuCountIsRefused) {
  EXPECT_EQ(error_of([] { check_local_ranks(8, "cuda", 64, 1, gpus(2)); }),
            "--nproc: 8 ranks but this machine shows 2 CUDA devices; use --nproc 2 or fewer (one GPU per rank)");
  EXPECT_EQ(error_of([] { check_local_ranks(8, "auto", 64, 1, gpus(2)); }).substr(0, 16), "--nproc: 8 ranks");
  EXPECT_EQ(error_of([] { check_local_ranks(2, "cuda", 64, 1, gpus(2)); }), "");
}

// CPU ranks beyond the cores only thrash the machine (1000 ranks on 2 cores spawned every
// one before any check); and a batch that does not split is refused before any rank starts.
TEST(RankDevice, NprocAboveTheCoresOrABatchThatDoesNotSplitIsRefusedBeforeStarting) {
  EXPECT_EQ(error_of([] { check_local_ranks(16, "cpu", 64, 1, gpus(2), 2); }),
            "--nproc: 16 ranks but this machine gives this process 2 CPU cores; use --nproc 2 or fewer");
  EXPECT_EQ(error_of([] { check_local_ranks(1000, "auto", 1000, 1, gpus(0), 8); }).substr(0, 19), "--nproc: 1000 ranks");
  EXPECT_EQ(error_of([] { check_local_ranks(2, "cpu", 64, 1, gpus(2), 2); }), "");
  EXPECT_EQ(error_of([] { check_local_ranks(2, "cpu", 63, 1, gpus(0), 2); }),
            "batch_size: 63 (the global batch) does not split over 2 ranks; use a multiple of 2");
  EXPECT_EQ(error_of([] { check_local_ranks(2, "cpu", 64, 3, gpus(0), 2); }).substr(0, 37),
            "accumulate: 3 micro-batches do not sp");
  EXPECT_EQ(error_of([] { check_local_ranks(2, "cuda", 6, 1, gpus(2)); }), "");
}

}  // namespace
}  // namespace hamgan
