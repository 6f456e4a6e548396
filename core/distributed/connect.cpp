// Joining a job: the rendezvous store and the c10d backend as LibTorch ships
// them. Gloo's headers come from Debian's libgloo-dev and are enabled here only
// (USE_C10D_GLOO), NCCL's where the build has CUDA.
#ifndef USE_C10D_GLOO
#define USE_C10D_GLOO
#endif
#include "core/distributed/nccl_version.h"
#include "core/distributed/process_group.h"
#include "core/distributed/rendezvous.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>

#include <algorithm>
#include <cstdlib>
#ifdef HAMGAN_WITH_NCCL  // CMake sets it with the nccl.h of the NCCL LibTorch loads (cmake/TorchCudaToolkit.cmake)
#ifndef USE_C10D_NCCL
#define USE_C10D_NCCL
#endif
#include <torch/csrc/distributed/c10d/ProcessGroupNCCL.hpp>
#define HAMGAN_HAS_NCCL 1
#endif

namespace hamgan {
namespace {

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// c10d logs each failed store read of a rank whose peer is gone as a warning
// with a stack trace, on top of the one line reported here; TORCH_CPP_LOG_LEVEL,
// where set, still decides.
void quiet_c10d_warnings() {
  if (std::getenv("TORCH_CPP_LOG_LEVEL"))
    c10::initLogging();
  else
    FLAGS_caffe2_log_level = std::max(FLAGS_caffe2_log_level, c10::GLOG_ERROR);
}

c10::intrusive_ptr<c10d::Backend> make_backend(DistBackend backend, const c10::intrusive_ptr<c10d::Store>& store,
                                               const DistEnv& env, std::chrono::milliseconds timeout) {
  if (backend == DistBackend::kGloo) {
    auto opts = c10d::ProcessGroupGloo::Options::create(timeout);
    opts->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    return c10::make_intrusive<c10d::ProcessGroupGloo>(store, static_cast<int>(env.rank),
                                                        static_cast<int>(env.world_size), opts);
  }
#ifdef HAMGAN_HAS_NCCL
  require_matching_nccl(nccl_header_version(), nccl_loaded_version());
  auto opts = c10d::ProcessGroupNCCL::Options::create();
  opts->timeout = timeout;
  return c10::make_intrusive<c10d::ProcessGroupNCCL>(store, static_cast<int>(env.rank),
                                                      static_cast<int>(env.world_size), opts);
#else
  require_matching_nccl(nccl_header_version(), nccl_loaded_version());  // names a NCCL compiled out
  throw ConfigError("dist_backend: this build has no NCCL (LibTorch without CUDA, or HAMGAN_WITH_NCCL=OFF); "
                    "use dist_backend = \"gloo\"");
#endif
}

}  // namespace

std::shared_ptr<Communicator> Communicator::connect(const DistEnv& env, DistBackend backend, torch::Device device,
                                                    std::chrono::milliseconds timeout, const std::string& run_dir) {
  quiet_c10d_warnings();
  const std::string where = rendezvous_address(env);
  ProcessGroupParts parts;
  parts.rank = env.rank;
  parts.world_size = env.world_size;
  parts.device = backend == DistBackend::kNccl ? device : torch::Device(torch::kCPU);
  parts.timeout = timeout;
  if (env.store_file.empty() && !env.agent_store) {
    parts.store_on_rank0 = true;
    parts.rank0_address = env.master_addr + ":" + std::to_string(env.master_port);
  }
  try {
    c10::intrusive_ptr<c10d::Store> store = open_rendezvous_store(env, timeout);
    store->setTimeout(timeout);
    parts.store = c10::make_intrusive<c10d::PrefixStore>("hamgan/" + std::to_string(env.restart), store);
    check_job_identity(*parts.store, env, run_dir, timeout);  // before any key the job's ranks read
    parts.backend = make_backend(backend, c10::make_intrusive<c10d::PrefixStore>("pg", parts.store), env, timeout);
  } catch (const Error&) {
    throw;  // already one line naming the cause
  } catch (const std::exception& e) {
    throw PeerError("distributed: rank " + std::to_string(env.rank) + " of " + std::to_string(env.world_size) +
                    " could not join the job through " + where + " within " +
                    std::to_string(timeout.count() / 1000) + " s (" + first_line(e.what()) +
                    "); check MASTER_ADDR/MASTER_PORT and that every rank was started");
  }
  return communicator_over(std::move(parts));
}

}  // namespace hamgan
