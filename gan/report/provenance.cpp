#include "gan/report/provenance.h"

#include <torch/version.h>

#include <ctime>
#include <filesystem>
#include <sstream>

#include <unistd.h>

#ifdef HAMGAN_WITH_CUDA
#include <ATen/cuda/CUDAContext.h>
#endif

#include "core/atomic_file.h"
#include "core/build_info.h"
#include "core/run_paths.h"
#include "gan/report/run_log.h"

namespace hamgan {
namespace {

std::string cuda_runtime() {
  if (!torch::cuda::is_available()) return "";
  const long v = at::detail::getCUDAHooks().versionCUDART();  // e.g. 13000
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string host_name() {
  char buf[256] = {0};
  return gethostname(buf, sizeof(buf) - 1) == 0 ? buf : "";
}

}  // namespace

std::string device_description(const torch::Device& device) {
#ifdef HAMGAN_WITH_CUDA
  if (device.is_cuda()) return at::cuda::getDeviceProperties(device.index())->name;
#endif
  if (device.is_cpu()) return "CPU, " + std::to_string(torch::get_num_threads()) + " threads";
  return device.str();
}

std::string provenance_json(const Provenance& p) {
  std::ostringstream o;
  o << "{\n"
    << "  \"run_id\": " << json_string(p.run_id) << ",\n"
    << "  \"git_revision\": " << json_string(build_git_revision()) << ",\n"
    << "  \"git_dirty\": " << (build_git_dirty() ? "true" : "false") << ",\n"
    << "  \"libtorch\": " << json_string(TORCH_VERSION) << ",\n"
    << "  \"cuda_runtime\": " << json_string(cuda_runtime()) << ",\n"
    << "  \"device\": " << json_string(p.device.str()) << ",\n"
    << "  \"device_name\": " << json_string(device_description(p.device)) << ",\n"
    << "  \"world_size\": " << p.world_size << ",\n"
    << "  \"precision\": " << json_string(p.precision) << ",\n"
    << "  \"start_step\": " << p.start_step << ",\n"
    << "  \"started_at\": " << json_string(utc_now()) << ",\n"
    << "  \"host\": " << json_string(host_name()) << ",\n"
    << "  \"command_line\": " << json_string(command_line()) << "\n"
    << "}\n";
  return o.str();
}

void write_provenance(const std::string& run_dir, const Provenance& p) {
  write_text_atomically(RunPaths(run_dir).provenance(), provenance_json(p));
}

}  // namespace hamgan
