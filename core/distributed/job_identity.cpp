// Whose store a rank reached (rendezvous.h): two jobs given one MASTER_PORT
// meet in the first one's store, and a rank of the second would otherwise join
// the first job's process group and fail after the timeout on collectives that
// never matched, having disturbed that job's rendezvous keys on its way in.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <random>
#include <vector>

#include "core/distributed/communicator.h"
#include "core/distributed/rendezvous.h"

namespace hamgan {
namespace {

const char* const kJobKey = "job";  // in the job's own key space ("hamgan/<restart>/"), set by rank 0

std::vector<uint8_t> bytes(const std::string& s) { return {s.begin(), s.end()}; }
std::string text(const std::vector<uint8_t>& v) { return {v.begin(), v.end()}; }

// What every rank of one job knows alike: the run directory and the launcher's id.
std::string identity_of(const std::string& run_dir, const std::string& launch_id) {
  const std::string dir = run_dir.empty() ? "" : std::filesystem::absolute(run_dir).lexically_normal().string();
  return dir + "\n" + launch_id;
}

std::string describe(const std::string& identity) {
  const size_t cut = identity.find('\n');
  const std::string dir = identity.substr(0, cut);
  const std::string launch = cut == std::string::npos ? "" : identity.substr(cut + 1);
  return "run directory " + (dir.empty() ? std::string("(none)") : dir) + (launch.empty() ? "" : ", " + launch);
}

// Unique to this process and this call (forked ranks included).
std::string claim_token() {
  std::random_device rd;
  char token[64];
  std::snprintf(token, sizeof(token), "pid %d, %08x%08x", static_cast<int>(getpid()), rd(), rd());
  return token;
}

}  // namespace

void check_job_identity(c10d::Store& store, const DistEnv& env, const std::string& run_dir,
                        std::chrono::milliseconds timeout) {
  const std::string where = rendezvous_address(env);
  const bool tcp = env.store_file.empty();
  const std::string shared = tcp ? "two jobs were given one MASTER_PORT" : "two jobs were given one store file";
  const std::string fix = tcp ? "start every rank of this job with another MASTER_PORT"
                              : "give this job another HAMGAN_DIST_INIT file (or delete one left by an earlier job)";
  const std::string who = "distributed: rank " + std::to_string(env.rank) + " of " + std::to_string(env.world_size);
  const std::string mine = identity_of(run_dir, env.launch_id);
  if (env.rank != 0) {
    // Read-only until the store is known to be this job's.
    std::string theirs;
    try {
      theirs = text(store.get(kJobKey));
    } catch (const std::exception&) {
      throw PeerError(who + ": the store at " + where + " answers, but no HamGAN rank 0 published its job there " +
                      "within " + std::to_string(timeout.count() / 1000) + " s: rank 0 failed before it, or the " +
                      "store is another program's; check rank 0's output, or " + fix);
    }
    if (theirs != mine)
      throw ConfigError(who + ": the store at " + where + " belongs to another job (" + describe(theirs) +
                        "; this rank's: " + describe(mine) + "): " + shared + "; " + fix +
                        " (or, where both are one directory seen from two machines, name it by the same absolute "
                        "path on every machine)");
  }
  // A second process as the same rank of the same job: another launch of this run directory.
  const std::string token = claim_token();
  const std::string key = "rank/" + std::to_string(env.rank);
  const std::string holder = text(store.compareSet(key, {}, bytes(token)));
  if (holder != token)
    throw ConfigError(who + ": another process (" + holder + ") already joined the job at " + where + " as rank " +
                      std::to_string(env.rank) + " (" + describe(mine) + "): " + shared + "; " + fix);
  if (env.rank == 0) store.set(kJobKey, bytes(mine));
}

}  // namespace hamgan
