#pragma once
// Meeting a job's other ranks in its rendezvous store (connect.cpp), so that
// each way a launch goes wrong ends every rank within the timeout with one line
// naming the address and the likely cause: a port another program holds, a
// program there that accepts connections but is no store, another job's store.
// Includes c10d's headers: only core/distributed includes it.
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <string>

#include "core/distributed/dist_env.h"

namespace hamgan {

// "tcp://MASTER_ADDR:MASTER_PORT", or "file://PATH" for HAMGAN_DIST_INIT.
std::string rendezvous_address(const DistEnv& env);

// The FileStore of HAMGAN_DIST_INIT, or the TCPStore at MASTER_ADDR:MASTER_PORT
// (hosted by rank 0 unless torchrun's agent hosts it). ConfigError naming the
// port when rank 0 cannot listen on it; PeerError when nothing there answers as
// a store within `timeout` (c10d's client alone would wait forever on a program
// that accepts the connection and never answers).
c10::intrusive_ptr<c10d::Store> open_rendezvous_store(const DistEnv& env, std::chrono::milliseconds timeout);

// Rank 0 publishes the job's identity (the run directory's absolute path and
// env.launch_id) in `store`; every other rank waits for it, compares it with its
// own and claims its rank. A rank that reached another job's store (two jobs
// given one MASTER_PORT) is refused in one line naming the store and the other
// job's run directory, before it writes any key that job's ranks read.
void check_job_identity(c10d::Store& store, const DistEnv& env, const std::string& run_dir,
                        std::chrono::milliseconds timeout);

}  // namespace hamgan
