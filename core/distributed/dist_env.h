#pragma once
// Where this process sits in a data-parallel job, read from the launcher's
// environment the way PyTorch does: torchrun's RANK, WORLD_SIZE, LOCAL_RANK,
// LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT; SLURM's SLURM_PROCID,
// SLURM_NTASKS, SLURM_LOCALID when torchrun's are absent; otherwise a single
// process. HAMGAN_DIST_INIT=file:///PATH replaces the TCP rendezvous by a
// FileStore (one machine; `hamgan train --nproc` uses it, so it needs no port).
#include <cstdint>
#include <string>

namespace hamgan {

struct DistEnv {
  int64_t rank = 0, world_size = 1;
  int64_t local_rank = 0, local_world_size = 1;
  std::string master_addr = "127.0.0.1";
  int64_t master_port = 29500;
  std::string store_file;  // non-empty: rendezvous through this FileStore instead of TCP
  // torchrun's agent already hosts the TCPStore on MASTER_PORT
  // (TORCHELASTIC_USE_AGENT_STORE=True): rank 0 connects to it as a client.
  bool agent_store = false;
  int64_t restart = 0;  // TORCHELASTIC_RESTART_COUNT: keys of a restarted group do not meet old ones
  // What every rank of this launch shares and another launch does not: torchrun's run id
  // (TORCHELASTIC_RUN_ID, unless "none"), else SLURM_JOB_ID; empty when the launcher gives neither.
  // Part of the job's identity in the rendezvous store (core/distributed/rendezvous.h).
  std::string launch_id;
  std::string source = "single process";  // "torchrun", "SLURM", "hamgan --nproc", ...
  bool distributed() const { return world_size > 1; }
};

// ConfigError naming the variable when a value is malformed or inconsistent
// (RANK >= WORLD_SIZE, a port outside 1..65535, ...).
DistEnv dist_env_from_environment();

}  // namespace hamgan
