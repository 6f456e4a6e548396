#pragma once
// `hamgan train --nproc N`: a data-parallel job on this machine for users
// without torchrun. Starts N copies of this program as ranks 0..N-1 (RANK,
// WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE set as torchrun sets them, the
// rendezvous through a FileStore in a private temporary directory, so no port
// is needed), and waits for them. The workers share the launcher's terminal
// and process group, so Ctrl-C reaches every rank at once and each stops after
// the checkpoint they agree on; a SIGTERM or SIGHUP sent to the launcher alone
// is passed on to them. When a rank fails, the others are stopped.
#include <chrono>
#include <string>
#include <vector>

namespace hamgan {

// `args` is the worker's command line without the program name. Returns when
// every rank has exited 0; throws Error naming the first rank that failed
// (after stopping the others: SIGTERM, then SIGKILL after `grace`), or
// Interrupted when a stop signal ended the job.
void run_local_workers(const std::vector<std::string>& args, int64_t nproc, std::chrono::seconds grace);

}  // namespace hamgan
