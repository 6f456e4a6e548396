// The distributed launcher's variables (torchrun, SLURM) read into a DistEnv, and
// malformed values refused with the variable's name.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/distributed/dist_env.h"
#include "core/errors.h"

namespace hamgan {
namespace {

// The launcher's variables, read as torchrun and SLURM set them.
class DistEnvTest : public ::testing::Test {
 protected:
  void SetUp() override { clear(); }
  void TearDown() override { clear(); }
  static void clear() {
    for (const char* v : {"RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
                          "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_NTASKS_PER_NODE",
                          "HAMGAN_DIST_INIT", "TORCHELASTIC_USE_AGENT_STORE", "TORCHELASTIC_RESTART_COUNT",
                          "TORCHELASTIC_RUN_ID", "HAMGAN_LAUNCHER", "SLURM_JOB_ID"})
      unsetenv(v);
  }
};

TEST_F(DistEnvTest, SingleProcessWithoutVariables) {
  const DistEnv e = dist_env_from_environment();
  EXPECT_EQ(e.world_size, 1);
  EXPECT_FALSE(e.distributed());
}

TEST_F(DistEnvTest, TorchrunVariables) {
  setenv("RANK", "3", 1);
  setenv("WORLD_SIZE", "8", 1);
  setenv("LOCAL_RANK", "1", 1);
  setenv("LOCAL_WORLD_SIZE", "2", 1);
  setenv("MASTER_ADDR", "node0", 1);
  setenv("MASTER_PORT", "29555", 1);
  setenv("TORCHELASTIC_USE_AGENT_STORE", "True", 1);
  setenv("TORCHELASTIC_RUN_ID", "job", 1);
  const DistEnv e = dist_env_from_environment();
  EXPECT_EQ(e.rank, 3);
  EXPECT_EQ(e.world_size, 8);
  EXPECT_EQ(e.local_rank, 1);
  EXPECT_EQ(e.master_addr, "node0");
  EXPECT_EQ(e.master_port, 29555);
  EXPECT_TRUE(e.agent_store);
  EXPECT_EQ(e.source, "torchrun");
}

TEST_F(DistEnvTest, SlurmVariablesWhenTorchrunsAreAbsent) {
  setenv("SLURM_PROCID", "5", 1);
  setenv("SLURM_NTASKS", "16", 1);
  setenv("SLURM_LOCALID", "1", 1);
  const DistEnv e = dist_env_from_environment();
  EXPECT_EQ(e.rank, 5);
  EXPECT_EQ(e.world_size, 16);
  EXPECT_EQ(e.local_rank, 1);
  EXPECT_EQ(e.source, "SLURM");
}

// The launch's id, part of the job's identity in the store: torchrun's run id where it names one
// ("none" is its default, shared by unrelated launches), else SLURM's job id.
TEST_F(DistEnvTest, LaunchIdFromTorchrunOrSlurm) {
  setenv("RANK", "1", 1);
  setenv("WORLD_SIZE", "2", 1);
  EXPECT_EQ(dist_env_from_environment().launch_id, "");
  setenv("SLURM_JOB_ID", "4242", 1);
  EXPECT_EQ(dist_env_from_environment().launch_id, "SLURM job 4242");
  setenv("TORCHELASTIC_RUN_ID", "none", 1);
  EXPECT_EQ(dist_env_from_environment().launch_id, "SLURM job 4242");
  setenv("TORCHELASTIC_RUN_ID", "5f1c", 1);
  EXPECT_EQ(dist_env_from_environment().launch_id, "torchrun run 5f1c");
}

TEST_F(DistEnvTest, MalformedValuesNameTheVariable) {
  setenv("WORLD_SIZE", "2", 1);
  setenv("RANK", "2", 1);
  try {
    dist_env_from_environment();
    FAIL() << "RANK 2 of 2 accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("RANK 2 is not below WORLD_SIZE 2"), std::string::npos) << e.what();
  }
  setenv("RANK", "x", 1);
  EXPECT_THROW(dist_env_from_environment(), ConfigError);
  setenv("RANK", "0", 1);
  setenv("MASTER_PORT", "70000", 1);
  EXPECT_THROW(dist_env_from_environment(), ConfigError);
}

}  // namespace
}  // namespace hamgan
