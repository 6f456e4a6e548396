// What `hamgan bench train` prints and writes; the timing is in train_bench.cpp.
#include "gan/train/train_bench.h"

#include <nlohmann/json.hpp>
#include <ostream>

namespace hamgan {

const char* train_step_phase_name(size_t phase) {
  static const char* names[kStepPhaseCount] = {"data", "d_step", "g_step", "ema_step"};
  return phase < kStepPhaseCount ? names[phase] : "?";
}

const char* train_split_phase_name(size_t phase) {
  static const char* names[kSplitPhaseCount] = {"d_forward", "d_backward", "d_optimiser",
                                                "g_forward", "g_backward", "g_optimiser"};
  return phase < kSplitPhaseCount ? names[phase] : "?";
}

void print_train_bench_setup(const TrainBenchResult& r, std::ostream& out) {
  out << "device: " << r.device << " (" << r.device_name << "), LibTorch " << r.torch_version << ", " << r.precision
      << (r.channels_last ? ", channels_last" : "") << "\ndata: " << r.data << "\nbatch " << r.batch
      << (r.accumulate > 1 ? " in " + std::to_string(r.accumulate) + " micro-batches" : "") << ", " << r.warmup << " warm-up + " << r.steps
      << " timed steps\n"
      << std::flush;
}

void print_train_bench_summary(const TrainBenchResult& r, std::ostream& out) {
  out << "it/s " << r.its_per_s << ", img/s " << r.images_per_s << ", step " << 1000.0 * r.step_seconds / r.steps
      << " ms (CPU time " << 1000.0 * r.step_cpu_seconds / r.steps << " ms), peak memory "
      << r.peak_memory_bytes / (1024.0 * 1024.0) << " MiB (" << r.peak_memory_kind << ")\n";
  out << "per step (trainer's step functions):";
  for (size_t p = 0; p < kStepPhaseCount; ++p) out << " " << train_step_phase_name(p) << " " << r.step_ms[p] << " ms";
  out << "\nsplit (same work, timed by the bench):";
  for (size_t p = 0; p < kSplitPhaseCount; ++p) out << " " << train_split_phase_name(p) << " " << r.split_ms[p] << " ms";
  out << "\n";
}

std::string train_bench_json(const TrainBenchResult& r) {
  nlohmann::ordered_json j;
  j["implementation"] = "hamgan";
  j["device"] = r.device;
  j["device_name"] = r.device_name;
  j["torch_version"] = r.torch_version;
  j["precision"] = r.precision;
  j["threads"] = r.threads;
  j["data"] = r.data;
  j["channels_last"] = r.channels_last;
  j["batch"] = r.batch;
  j["accumulate"] = r.accumulate;
  j["warmup"] = r.warmup;
  j["steps"] = r.steps;
  j["step_ms"] = 1000.0 * r.step_seconds / static_cast<double>(r.steps);
  j["step_cpu_ms"] = 1000.0 * r.step_cpu_seconds / static_cast<double>(r.steps);
  j["its_per_s"] = r.its_per_s;
  j["images_per_s"] = r.images_per_s;
  j["peak_memory_bytes"] = r.peak_memory_bytes;
  j["peak_memory_kind"] = r.peak_memory_kind;
  nlohmann::ordered_json phases, split;
  for (size_t p = 0; p < kStepPhaseCount; ++p) phases[train_step_phase_name(p)] = r.step_ms[p];
  for (size_t p = 0; p < kSplitPhaseCount; ++p) split[train_split_phase_name(p)] = r.split_ms[p];
  j["phase_ms"] = phases;
  j["split_ms"] = split;
  return j.dump(2) + "\n";
}

}  // namespace hamgan
