// What `hamgan bench train` prints and writes; the timing is in train_bench.cpp.
#include "gan/train/train_bench.h"

#include <nlohmann/json.hpp>
#include <ostream>

namespace hamgan {

const char* bench_phase_name(size_t phase) {
  if (phase == kBenchData) return "data";
  if (phase == kBenchEma) return "ema";
  return step_phase_name(phase - 1);
}

namespace {

double per_step(int64_t count, int64_t steps) { return static_cast<double>(count) / static_cast<double>(steps); }

void print_profile(const TrainBenchResult& r, std::ostream& out) {
  out << "per step over " << r.profile_steps << " profiled steps (kernels / host syncs):";
  OpCounts total;
  for (size_t p = 0; p < kBenchPhaseCount; ++p) {
    out << " " << bench_phase_name(p) << " " << per_step(r.profile[p].kernels, r.profile_steps) << " / "
        << per_step(r.profile[p].syncs, r.profile_steps);
    total.kernels += r.profile[p].kernels;
    total.syncs += r.profile[p].syncs;
  }
  out << "; total " << per_step(total.kernels, r.profile_steps) << " / " << per_step(total.syncs, r.profile_steps)
      << "\n";
  for (const auto& [op, n] : r.sync_ops) out << "  host sync: " << op << " " << per_step(n, r.profile_steps) << " per step\n";
}

nlohmann::ordered_json profile_json(const TrainBenchResult& r) {
  nlohmann::ordered_json kernels, ops, syncs, sync_ops;
  OpCounts total;
  for (size_t p = 0; p < kBenchPhaseCount; ++p) {
    const OpCounts& c = r.profile[p];
    kernels[bench_phase_name(p)] = per_step(c.kernels, r.profile_steps);
    ops[bench_phase_name(p)] = per_step(c.ops, r.profile_steps);
    syncs[bench_phase_name(p)] = per_step(c.syncs, r.profile_steps);
    total.kernels += c.kernels;
    total.ops += c.ops;
    total.syncs += c.syncs;
  }
  kernels["total"] = per_step(total.kernels, r.profile_steps);
  ops["total"] = per_step(total.ops, r.profile_steps);
  syncs["total"] = per_step(total.syncs, r.profile_steps);
  for (const auto& [op, n] : r.sync_ops) sync_ops[op] = per_step(n, r.profile_steps);
  nlohmann::ordered_json j;
  j["steps"] = r.profile_steps;
  j["kernels_per_step"] = kernels;
  j["ops_per_step"] = ops;
  j["host_syncs_per_step"] = syncs;
  j["host_sync_ops"] = sync_ops.is_null() ? nlohmann::ordered_json::object() : sync_ops;
  return j;
}

}  // namespace

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
  out << "per step (the trainer's step functions):";
  for (size_t p = 0; p < kBenchPhaseCount; ++p) out << " " << bench_phase_name(p) << " " << r.phase_ms[p] << " ms";
  out << "\n";
  if (r.profile_steps > 0) print_profile(r, out);
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
  nlohmann::ordered_json phases;
  for (size_t p = 0; p < kBenchPhaseCount; ++p) phases[bench_phase_name(p)] = r.phase_ms[p];
  j["phase_ms"] = phases;
  if (r.profile_steps > 0) j["profile"] = profile_json(r);
  return j.dump(2) + "\n";
}

}  // namespace hamgan
