#include "core/distributed/dist_env.h"

#include <cstdlib>

#include "core/errors.h"

namespace hamgan {
namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

int64_t env_int(const char* name, int64_t fallback, int64_t lo, int64_t hi) {
  const char* v = env(name);
  if (!v) return fallback;
  char* end = nullptr;
  const long long x = std::strtoll(v, &end, 10);
  if (*end != '\0' || x < lo || x > hi)
    throw ConfigError(std::string("environment: ") + name + "=" + v + " is not an integer in [" + std::to_string(lo) +
                      ", " + std::to_string(hi) + "]; fix or unset it (it is set by torchrun or SLURM)");
  return x;
}

}  // namespace

DistEnv dist_env_from_environment() {
  DistEnv e;
  constexpr int64_t kMaxWorld = 1 << 20;
  if (env("WORLD_SIZE") || env("RANK")) {
    e.source = env("HAMGAN_LAUNCHER")      ? env("HAMGAN_LAUNCHER")
               : env("TORCHELASTIC_RUN_ID") ? "torchrun"
                                            : "RANK/WORLD_SIZE";
    e.world_size = env_int("WORLD_SIZE", 1, 1, kMaxWorld);
    e.rank = env_int("RANK", 0, 0, kMaxWorld - 1);
    e.local_rank = env_int("LOCAL_RANK", e.rank, 0, kMaxWorld - 1);
    e.local_world_size = env_int("LOCAL_WORLD_SIZE", e.world_size, 1, kMaxWorld);
  } else if (env("SLURM_NTASKS") && env("SLURM_PROCID")) {
    e.source = "SLURM";
    e.world_size = env_int("SLURM_NTASKS", 1, 1, kMaxWorld);
    e.rank = env_int("SLURM_PROCID", 0, 0, kMaxWorld - 1);
    e.local_rank = env_int("SLURM_LOCALID", 0, 0, kMaxWorld - 1);
    e.local_world_size = env_int("SLURM_NTASKS_PER_NODE", 1, 1, kMaxWorld);
  }
  if (const char* a = env("TORCHELASTIC_USE_AGENT_STORE")) e.agent_store = std::string(a) == "True";
  e.restart = env_int("TORCHELASTIC_RESTART_COUNT", 0, 0, kMaxWorld);
  if (const char* id = env("TORCHELASTIC_RUN_ID"); id && std::string(id) != "none")
    e.launch_id = std::string("torchrun run ") + id;
  else if (const char* job = env("SLURM_JOB_ID"))
    e.launch_id = std::string("SLURM job ") + job;
  if (e.rank >= e.world_size)
    throw ConfigError("environment: RANK " + std::to_string(e.rank) + " is not below WORLD_SIZE " +
                      std::to_string(e.world_size) + "; the launcher's variables disagree");
  if (const char* a = env("MASTER_ADDR")) e.master_addr = a;
  e.master_port = env_int("MASTER_PORT", e.master_port, 1, 65535);
  if (const char* init = env("HAMGAN_DIST_INIT")) {
    const std::string s = init, prefix = "file://";
    if (s.rfind(prefix, 0) != 0 || s.size() == prefix.size())
      throw ConfigError("environment: HAMGAN_DIST_INIT=" + s + " is not file:///PATH; unset it to use MASTER_ADDR/MASTER_PORT");
    e.store_file = s.substr(prefix.size());
  }
  return e;
}

}  // namespace hamgan
