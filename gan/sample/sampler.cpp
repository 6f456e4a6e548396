#include "gan/sample/sampler.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "core/atomic_file.h"
#include "core/checked_file.h"
#include "core/device.h"
#include "core/errors.h"
#include "core/progress.h"
#include "core/stop_signal.h"
#include "data/hdf5_writer.h"
#include "data/image_io.h"
#include "gan/checkpoint/checkpoint.h"
#include "gan/sample/load_generator.h"
#include "metrics/image_source.h"
#include "metrics/npz.h"

namespace hamgan {
namespace fs = std::filesystem;

torch::Tensor generate(Generator& g, const torch::Tensor& z, const torch::Tensor& labels, int64_t batch_size) {
  torch::NoGradGuard no_grad;
  const auto device = g->parameters().front().device();
  std::vector<torch::Tensor> out;
  for (int64_t i = 0; i < z.size(0); i += batch_size) {
    const int64_t j = std::min(z.size(0), i + batch_size);
    out.push_back(g->forward(z.slice(0, i, j).to(device), labels.slice(0, i, j).to(device)).cpu());
  }
  return torch::cat(out);
}

torch::Tensor generate_on_device(Generator& g, const torch::Tensor& z, const torch::Tensor& labels) {
  torch::NoGradGuard no_grad;
  const auto device = g->parameters().front().device();
  return g->forward(z.to(device, /*non_blocking=*/true), labels.to(device, /*non_blocking=*/true));
}

// BigGAN-PyTorch's HDF5 layout (docs/data.md, "Sources"), readable as a data set by `hamgan`:
// imgs uint8 (N, C, H, W), labels int64 (N).
static void write_hdf5(const std::string& path, const torch::Tensor& images, const torch::Tensor& labels,
                       int64_t num_classes) {
  write_atomically(path, [&](const std::string& tmp) {
    const torch::Tensor img = images.contiguous();
    const torch::Tensor lab = labels.to(torch::kLong).contiguous();
    // Built in memory and written with our own error handling: HDF5 cannot
    // close a file whose writes failed (a full disk), and crashes at exit on it.
    Hdf5Writer w = Hdf5Writer::in_memory(path, img.size(1), img.size(2), img.size(3));
    w.append(img.data_ptr<uint8_t>(), lab.data_ptr<int64_t>(), img.size(0));
    w.finish(num_classes);
    CheckedFileWriter out(tmp, path);
    out.write(w.file_image().data(), w.file_image().size());
    out.finish();
  });
}

// What --out names, decided before any work; an unknown extension is refused
// rather than becoming a directory of that name.
enum class OutputKind { kNpz, kHdf5, kPngGrid, kJpegGrid, kDirectory };

static OutputKind output_kind(const std::string& out) {
  std::string ext = fs::path(out).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return std::tolower(ch); });
  if (ext == ".npz") return OutputKind::kNpz;
  if (ext == ".hdf5" || ext == ".h5") return OutputKind::kHdf5;
  if (ext == ".png") return OutputKind::kPngGrid;
  if (ext == ".jpg" || ext == ".jpeg") return OutputKind::kJpegGrid;
  if (ext.empty() || fs::is_directory(out)) return OutputKind::kDirectory;
  throw ConfigError("sample: --out " + out + ": unknown output type '" + ext +
                    "'; use DIR (PNG files per class), FILE.png or FILE.jpg (grid), FILE.npz or FILE.hdf5");
}

std::string run_sampling(const SampleConfig& cfg) {
  if (cfg.n <= 0) throw ConfigError("sample: n must be positive");
  if (cfg.batch_size <= 0) throw ConfigError("sample: batch_size must be positive");
  if (cfg.out.empty()) throw ConfigError("sample: --out is required (DIR, FILE.png, FILE.npz or FILE.hdf5)");
  if (cfg.truncation < 0) throw ConfigError("sample: truncation must be >= 0 (0 = off)");
  const OutputKind kind = output_kind(cfg.out);
  std::error_code ec;
  if (kind == OutputKind::kDirectory && fs::exists(cfg.out, ec) && !fs::is_empty(cfg.out, ec))
    throw ConfigError("sample: --out " + cfg.out + " already holds files; samples of two runs would mix there (and "
                      "fid would score the mixture): give a new or empty directory");
  if (cfg.float_output && kind != OutputKind::kNpz)
    throw ConfigError("sample: --float writes the unquantised images into FILE.npz; --out " + cfg.out +
                      " is not one (use FILE.npz or drop --float)");
  const torch::Device device = resolve_device(cfg.device);
  const std::string ckpt = resolve_checkpoint_path(cfg.checkpoint, cfg.which);
  // Checked before loading, which recomputes the BN statistics.
  const ModelConfig mc = read_checkpoint_model_config(ckpt);
  if (cfg.class_label >= mc.num_classes)
    throw ConfigError("sample: class " + std::to_string(cfg.class_label) + " is out of range; the model has " +
                      std::to_string(mc.num_classes) + " classes (0.." + std::to_string(mc.num_classes - 1) + ")");
  Generator g = load_generator(ckpt, !cfg.raw, device, cfg.standing_stats, cfg.seed,
                               resample_override(cfg.resample_conv));

  const FixedNoise noise(cfg.n, mc.z_dim, mc.num_classes, cfg.seed, cfg.truncation);
  const torch::Tensor& z = noise.z();
  const torch::Tensor labels = cfg.class_label >= 0 ? torch::full({cfg.n}, cfg.class_label, torch::kLong) : noise.labels();

  std::vector<torch::Tensor> parts;
  {
    if (!cfg.progress) ProgressBar::set_enabled(false);
    ProgressBar bar("sample", cfg.n, "img");
    for (int64_t i = 0; i < cfg.n; i += cfg.batch_size) {
      const int64_t j = std::min(cfg.n, i + cfg.batch_size);
      throw_if_stop_requested("sample");
      parts.push_back(generate(g, z.slice(0, i, j), labels.slice(0, i, j), cfg.batch_size));
      bar.advance(j - i);
    }
    bar.finish();
    if (!cfg.progress) ProgressBar::set_enabled(true);
  }
  const torch::Tensor images = torch::cat(parts);  // (N, C, H, W) float in [-1, 1]
  const int64_t nrow = cfg.nrow > 0 ? cfg.nrow
                       : (cfg.class_label < 0 && mc.num_classes <= 10) ? mc.num_classes
                                                                        : 8;
  const std::string weights = (cfg.raw || !checkpoint_has_ema(ckpt)) ? "raw G" : "EMA G";
  const std::string what = std::to_string(cfg.n) + " samples (" + weights + ", " + ckpt + ")";
  if (kind == OutputKind::kNpz && cfg.float_output) {
    write_npz(cfg.out, {{"x", images.to(torch::kCPU, torch::kFloat).contiguous()}, {"y", labels}, {"z", z}},
              /*compressed=*/false);
    return what + " -> " + cfg.out + " (x float32 N×C×H×W in [-1, 1], y int64, z float32 N×z_dim)";
  }
  if (kind == OutputKind::kNpz) {
    write_npz(cfg.out, {{"x", to_uint8(images)}, {"y", labels}}, /*compressed=*/false);
    return what + " -> " + cfg.out + " (x uint8 N×C×H×W, y int64)";
  }
  if (kind == OutputKind::kHdf5) {
    write_hdf5(cfg.out, to_uint8(images), labels, mc.num_classes);
    return what + " -> " + cfg.out + " (imgs uint8 N×C×H×W, labels int64)";
  }
  if (kind == OutputKind::kPngGrid) {
    save_png_grid(images, cfg.out, nrow);
    return what + " -> grid " + cfg.out;
  }
  if (kind == OutputKind::kJpegGrid) {
    save_jpeg(make_grid(images, nrow), cfg.out);
    return what + " -> grid " + cfg.out + " (JPEG, quality 95)";
  }
  // A directory in ImageFolder layout (<class>/<index>.png), readable by `hamgan` and external evaluators,
  // built under a temporary name and renamed: a failure (a full disk) leaves no partial folder behind.
  const torch::Tensor u8 = to_uint8(images);
  const std::string tmp = temporary_path_for(cfg.out);
  try {
    for (int64_t i = 0; i < cfg.n; ++i) {
      char cls[16], name[32];
      std::snprintf(cls, sizeof(cls), "%04lld", static_cast<long long>(labels[i].item<int64_t>()));
      std::snprintf(name, sizeof(name), "%06lld.png", static_cast<long long>(i));
      save_png(u8[i], (fs::path(tmp) / cls / name).string());
    }
    if (cfg.grid) save_png_grid(images, (fs::path(tmp) / "grid.png").string(), nrow);
    std::error_code ec;
    fs::remove(cfg.out, ec);  // an empty directory given as --out
    fs::rename(tmp, cfg.out);
  } catch (const std::exception& e) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    throw Error("sample: writing " + cfg.out + " failed (" + e.what() + "); nothing was left there");
  }
  return what + " -> " + cfg.out + "/<class>/<index>.png" + (cfg.grid ? " and grid.png" : "");
}

}  // namespace hamgan
