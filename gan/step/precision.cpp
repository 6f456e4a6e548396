#include "gan/step/precision.h"

#include <fstream>
#include <sstream>

#include <ATen/autocast_mode.h>

#include "core/errors.h"

namespace hamgan {
namespace {

// A small bf16 matmul on the device: what the forward passes need from it.
bool computes_bf16(const torch::Device& device) {
  if (!at::autocast::is_autocast_available(device.type())) return false;
  try {
    const torch::Tensor t = torch::ones({8, 8}, torch::TensorOptions().device(device).dtype(torch::kBFloat16));
    return torch::isfinite(t.matmul(t)).all().item<bool>();
  } catch (const c10::Error&) {
    return false;
  }
}

}  // namespace

const EnumNames<PrecisionChoice>& precision_choice_names() {
  static const EnumNames<PrecisionChoice> names("precision", {{PrecisionChoice::kAuto, "auto"},
                                                              {PrecisionChoice::kFp32, "fp32"},
                                                              {PrecisionChoice::kTf32, "tf32"},
                                                              {PrecisionChoice::kBf16, "bf16"}});
  return names;
}

const EnumNames<PrecisionMode>& precision_mode_names() {
  static const EnumNames<PrecisionMode> names(
      "precision", {{PrecisionMode::kFp32, "fp32"}, {PrecisionMode::kTf32, "tf32"}, {PrecisionMode::kBf16, "bf16"}});
  return names;
}

std::string Precision::name() const { return precision_mode_names().name(mode); }

torch::Tensor Precision::layout(const torch::Tensor& images) const {
  return channels_last ? images.contiguous(torch::MemoryFormat::ChannelsLast) : images;
}

Precision resolve_precision(PrecisionChoice precision, bool channels_last, const torch::Device& device) {
  Precision p;
  p.channels_last = channels_last;
  p.device_type = device.type();
  switch (precision) {
    case PrecisionChoice::kAuto:
      // TF32 only exists on CUDA; on CPU tf32 would be fp32 under another name.
      p.mode = device.is_cuda() ? PrecisionMode::kTf32 : PrecisionMode::kFp32;
      break;
    case PrecisionChoice::kFp32: p.mode = PrecisionMode::kFp32; break;
    case PrecisionChoice::kTf32: p.mode = PrecisionMode::kTf32; break;
    case PrecisionChoice::kBf16:
      if (!computes_bf16(device))
        throw ConfigError("precision: bf16 is not supported on " + device.str() + "; use fp32 or tf32");
      p.mode = PrecisionMode::kBf16;
      break;
  }
  return p;
}

std::string bf16_speed_warning(const Precision& p, const std::string& cpu_flags) {
  if (p.mode != PrecisionMode::kBf16 || p.device_type != torch::kCPU) return "";
  std::istringstream words(cpu_flags);
  for (std::string w; words >> w;)
    if (w == "avx512_bf16" || w == "amx_bf16") return "";
  return "precision: bf16 on a CPU without native bf16 (no avx512_bf16 or amx_bf16 flag) is emulated and "
         "runs several times slower than fp32; use --precision fp32 here";
}

std::string cpu_flags() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("flags", 0) == 0) return line.substr(line.find(':') == std::string::npos ? 0 : line.find(':') + 1);
  return "";
}

void apply_math_mode(const Precision& p) {
  const bool tf32 = p.mode != PrecisionMode::kFp32;
  at::globalContext().setAllowTF32CuBLAS(tf32);
  at::globalContext().setAllowTF32CuDNN(tf32);
  // A run's shapes are fixed, so timing cuDNN's algorithms once per shape pays
  // for itself within a few steps (bit-exact resume is promised on CPU only).
  at::globalContext().setBenchmarkCuDNN(true);
}

void apply_memory_format(torch::nn::Module& m, const Precision& p) {
  if (!p.channels_last) return;
  torch::NoGradGuard no_grad;
  for (auto& w : m.parameters())
    if (w.dim() == 4) w.set_data(w.contiguous(torch::MemoryFormat::ChannelsLast));
}

PrecisionScope::PrecisionScope(const Precision& p) {
  if (p.mode != PrecisionMode::kBf16) return;
  active_ = true;
  device_type_ = p.device_type;
  was_enabled_ = at::autocast::is_autocast_enabled(device_type_);
  previous_dtype_ = at::autocast::get_autocast_dtype(device_type_);
  at::autocast::set_autocast_dtype(device_type_, at::kBFloat16);
  at::autocast::set_autocast_enabled(device_type_, true);
  at::autocast::increment_nesting();
}

PrecisionScope::~PrecisionScope() {
  if (!active_) return;
  // The cast weights are cached for one scope only: the optimiser changes them before the next.
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  at::autocast::set_autocast_enabled(device_type_, was_enabled_);
  at::autocast::set_autocast_dtype(device_type_, previous_dtype_);
}

}  // namespace hamgan
