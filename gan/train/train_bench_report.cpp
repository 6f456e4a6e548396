// What `hamgan bench train` prints and writes; the timing is in train_bench.cpp.
#include "gan/train/train_bench.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

namespace hamgan {

const char* bench_phase_name(size_t phase) {
  if (phase == kBenchData) return "data";
  if (phase == kBenchEma) return "ema";
  return step_phase_name(phase - 1);
}

namespace {

double per_step(int64_t count, int64_t steps) { return static_cast<double>(count) / static_cast<double>(steps); }

constexpr double kMiB = 1024.0 * 1024.0;

constexpr size_t kListedOps = 12;

// The ops by kernels per step, most first (ties by name), for the list and the JSON.
std::vector<std::pair<std::string, OpCounts>> ops_by_kernels(const TrainBenchResult& r) {
  std::vector<std::pair<std::string, OpCounts>> ops(r.by_op.begin(), r.by_op.end());
  std::stable_sort(ops.begin(), ops.end(),
                   [](const auto& a, const auto& b) { return a.second.kernels > b.second.kernels; });
  return ops;
}

void print_profile(const TrainBenchResult& r, std::ostream& out) {
  out << "per step over " << r.profile_steps << " profiled steps (kernels / host syncs / memory-bound MiB / "
      << "float32<->bf16 activation casts):";
  OpCounts total;
  for (size_t p = 0; p < kBenchPhaseCount; ++p) {
    const OpCounts& c = r.profile[p];
    out << " " << bench_phase_name(p) << " " << per_step(c.kernels, r.profile_steps) << " / "
        << per_step(c.syncs, r.profile_steps) << " / " << per_step(c.bytes, r.profile_steps) / kMiB << " / "
        << per_step(c.casts, r.profile_steps);
    total += c;
  }
  out << "; total " << per_step(total.kernels, r.profile_steps) << " / " << per_step(total.syncs, r.profile_steps)
      << " / " << per_step(total.bytes, r.profile_steps) / kMiB << " / " << per_step(total.casts, r.profile_steps)
      << "\nmemory-bound bytes per image per step (in tensors that grow with the batch): "
      << per_step(total.per_sample_bytes, r.profile_steps) / static_cast<double>(r.batch) << "\n";
  for (const auto& [op, n] : r.sync_ops) out << "  host sync: " << op << " " << per_step(n, r.profile_steps) << " per step\n";
  const auto ops = ops_by_kernels(r);
  out << "kernels per step by op (kernels / memory-bound MiB / casts), the " << std::min(kListedOps, ops.size())
      << " with most of " << ops.size() << ":";
  for (size_t i = 0; i < ops.size() && i < kListedOps; ++i) {
    const OpCounts& c = ops[i].second;
    out << (i ? ", " : " ") << ops[i].first << " " << per_step(c.kernels, r.profile_steps) << " / "
        << per_step(c.bytes, r.profile_steps) / kMiB << " / " << per_step(c.casts, r.profile_steps);
  }
  out << "\n";
}

nlohmann::ordered_json profile_json(const TrainBenchResult& r) {
  nlohmann::ordered_json kernels, ops, syncs, bytes, casts, sync_ops;
  OpCounts total;
  auto put = [&](const std::string& key, const OpCounts& c) {
    kernels[key] = per_step(c.kernels, r.profile_steps);
    ops[key] = per_step(c.ops, r.profile_steps);
    syncs[key] = per_step(c.syncs, r.profile_steps);
    bytes[key] = per_step(c.bytes, r.profile_steps);
    casts[key] = per_step(c.casts, r.profile_steps);
  };
  for (size_t p = 0; p < kBenchPhaseCount; ++p) {
    put(bench_phase_name(p), r.profile[p]);
    total += r.profile[p];
  }
  put("total", total);
  for (const auto& [op, n] : r.sync_ops) sync_ops[op] = per_step(n, r.profile_steps);
  nlohmann::ordered_json j;
  j["steps"] = r.profile_steps;
  j["kernels_per_step"] = kernels;
  j["ops_per_step"] = ops;
  j["host_syncs_per_step"] = syncs;
  j["memory_bound_bytes_per_step"] = bytes;  // ops other than convolutions and matrix products
  // What each image adds: the bytes of tensors that grow with the batch, over the batch.
  j["memory_bound_bytes_per_image"] = per_step(total.per_sample_bytes, r.profile_steps) / static_cast<double>(r.batch);
  j["activation_casts_per_step"] = casts;  // float32 <-> bf16 conversions of activations
  j["host_sync_ops"] = sync_ops.is_null() ? nlohmann::ordered_json::object() : sync_ops;
  nlohmann::ordered_json by_op = nlohmann::ordered_json::object();
  for (const auto& [name, c] : ops_by_kernels(r))
    by_op[name] = {{"kernels", per_step(c.kernels, r.profile_steps)}, {"bytes", per_step(c.bytes, r.profile_steps)},
                   {"casts", per_step(c.casts, r.profile_steps)}};
  j["by_op_per_step"] = by_op;  // every kernel's op, most kernels first
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
