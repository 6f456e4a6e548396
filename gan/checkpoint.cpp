#include "gan/checkpoint.h"

#include <ATen/CPUGeneratorImpl.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "gan/standing_stats.h"

namespace hamgan {
namespace fs = std::filesystem;

// --- ModelConfig as text -----------------------------------------------------------------------
static void block_fields(std::ostringstream& o, const std::string& p, const ContextOptions& b) {
  o << p << "name = " << b.name << "\n"
    << p << "ham_type = " << to_string(b.ham_type) << "\n"
    << p << "train_steps = " << b.train_steps << "\n"
    << p << "eval_steps = " << b.eval_steps << "\n"
    << p << "rank = " << b.rank << "\n"
    << p << "gradient = " << to_string(b.gradient) << "\n"
    << p << "temperature = " << b.temperature << "\n"
    << p << "beta = " << b.beta << "\n"
    << p << "init = " << to_string(b.init) << "\n"
    << p << "num_classes = " << b.num_classes << "\n";
}

std::string model_config_to_text(const ModelConfig& c) {
  std::ostringstream o;
  o.precision(17);
  o << "resolution = " << c.resolution << "\nimage_channels = " << c.image_channels
    << "\nnum_classes = " << c.num_classes << "\nz_dim = " << c.z_dim << "\ng_ch = " << c.g_ch
    << "\nd_ch = " << c.d_ch << "\nblock_resolution = " << c.block_resolution << "\ninit = " << to_string(c.init)
    << "\n";
  block_fields(o, "g_block.", c.g_block);
  block_fields(o, "d_block.", c.d_block);
  return o.str();
}

ModelConfig model_config_from_text(const std::string& text) {
  std::map<std::string, std::string> kv;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    const auto eq = line.find(" = ");
    if (eq != std::string::npos) kv[line.substr(0, eq)] = line.substr(eq + 3);
  }
  ModelConfig c;
  auto i64 = [&](const std::string& k, int64_t& v) {
    if (kv.count(k)) v = std::stoll(kv[k]);
  };
  auto f64 = [&](const std::string& k, double& v) {
    if (kv.count(k)) v = std::stod(kv[k]);
  };
  i64("resolution", c.resolution);
  i64("image_channels", c.image_channels);
  i64("num_classes", c.num_classes);
  i64("z_dim", c.z_dim);
  i64("g_ch", c.g_ch);
  i64("d_ch", c.d_ch);
  i64("block_resolution", c.block_resolution);
  if (kv.count("init")) c.init = parse_init_scheme(kv["init"]);
  for (auto [p, b] : {std::pair<std::string, ContextOptions*>{"g_block.", &c.g_block}, {"d_block.", &c.d_block}}) {
    if (kv.count(p + "name")) b->name = kv[p + "name"];
    if (kv.count(p + "ham_type")) b->ham_type = parse_ham_type(kv[p + "ham_type"]);
    i64(p + "train_steps", b->train_steps);
    i64(p + "eval_steps", b->eval_steps);
    i64(p + "rank", b->rank);
    if (kv.count(p + "gradient")) b->gradient = parse_ham_gradient(kv[p + "gradient"]);
    f64(p + "temperature", b->temperature);
    f64(p + "beta", b->beta);
    if (kv.count(p + "init")) b->init = parse_ham_init(kv[p + "init"]);
    i64(p + "num_classes", b->num_classes);
  }
  return c;
}

// --- RNG states ----------------------------------------------------------------------------------
static torch::Tensor cpu_rng_state() {
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  return gen.get_state();
}

static void set_cpu_rng_state(const torch::Tensor& s) {
  auto gen = at::detail::getDefaultCPUGenerator();
  std::lock_guard<std::mutex> lock(gen.mutex());
  gen.set_state(s.cpu());
}

static bool cuda_in_use() { return torch::cuda::is_available() && torch::cuda::device_count() > 0; }

// --- save / load ---------------------------------------------------------------------------------
void save_checkpoint(const std::string& path, const ModelConfig& model, const CheckpointRefs& refs,
                     const TrainingState& state) {
  torch::serialize::OutputArchive archive;
  archive.write("format_version", torch::tensor(kCheckpointFormatVersion));
  archive.write("step", torch::tensor(state.step));
  archive.write("data_epoch", torch::tensor(state.data_position.epoch));
  archive.write("data_index", torch::tensor(state.data_position.index));
  archive.write("model_config", c10::IValue(model_config_to_text(model)));
  archive.write("config_text", c10::IValue(state.config_text));
  archive.write("rng_cpu", cpu_rng_state());
  if (cuda_in_use()) {
    auto gen = at::globalContext().defaultGenerator(c10::Device(c10::kCUDA));
    std::lock_guard<std::mutex> lock(gen.mutex());
    archive.write("rng_cuda", gen.get_state());
  }
  auto put_module = [&](const char* key, const std::shared_ptr<torch::nn::Module>& m) {
    if (!m) return;
    torch::serialize::OutputArchive sub;
    m->save(sub);
    archive.write(key, sub);
  };
  if (refs.g) put_module("G", refs.g.ptr());
  if (refs.d) put_module("D", refs.d.ptr());
  if (refs.g_ema) put_module("G_ema", refs.g_ema.ptr());
  auto put_opt = [&](const char* key, torch::optim::Adam* opt) {
    if (!opt) return;
    torch::serialize::OutputArchive sub;
    opt->save(sub);
    archive.write(key, sub);
  };
  put_opt("G_opt", refs.g_opt);
  put_opt("D_opt", refs.d_opt);
  write_atomically(path, [&](const std::string& tmp) { archive.save_to(tmp); });
}

static torch::serialize::InputArchive open_archive(const std::string& path, torch::Device device) {
  if (!fs::is_regular_file(path)) throw CheckpointError(path + ": no such checkpoint file");
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path, device);
  } catch (const c10::Error& e) {
    throw CheckpointError(path + ": not a readable HamGAN checkpoint (" + e.what_without_backtrace() + ")");
  }
  torch::Tensor version;
  if (!archive.try_read("format_version", version))
    throw CheckpointError(path + ": not a HamGAN checkpoint (no format_version)");
  if (version.item<int64_t>() > kCheckpointFormatVersion)
    throw CheckpointError(path + ": checkpoint format " + std::to_string(version.item<int64_t>()) +
                          " is newer than this hamgan reads (" + std::to_string(kCheckpointFormatVersion) +
                          "); update hamgan");
  return archive;
}

static std::string read_string(torch::serialize::InputArchive& a, const std::string& key) {
  c10::IValue v;
  if (!a.try_read(key, v) || !v.isString()) return "";
  return v.toStringRef();
}

TrainingState load_checkpoint(const std::string& path, const CheckpointRefs& refs, bool restore_rng,
                              torch::Device device) {
  auto archive = open_archive(path, device);
  TrainingState s;
  torch::Tensor t;
  archive.read("step", t);
  s.step = t.item<int64_t>();
  archive.read("data_epoch", t);
  s.data_position.epoch = t.item<int64_t>();
  archive.read("data_index", t);
  s.data_position.index = t.item<int64_t>();
  s.config_text = read_string(archive, "config_text");
  auto get = [&](const char* key, auto&& load) {
    torch::serialize::InputArchive sub;
    if (!archive.try_read(key, sub))
      throw CheckpointError(path + ": checkpoint has no " + key + " (was it written by an older or other tool?)");
    try {
      load(sub);
    } catch (const c10::Error& e) {
      throw CheckpointError(path + ": " + key + " does not match the configured model (" +
                            e.what_without_backtrace() + "); use the run's own config");
    }
  };
  // Holders are shared pointers: loading through a copy fills the caller's modules.
  if (refs.g) get("G", [&](auto& a) { refs.g.ptr()->load(a); });
  if (refs.d) get("D", [&](auto& a) { refs.d.ptr()->load(a); });
  if (refs.g_ema) get("G_ema", [&](auto& a) { refs.g_ema.ptr()->load(a); });
  if (refs.g_opt) get("G_opt", [&](auto& a) { refs.g_opt->load(a); });
  if (refs.d_opt) get("D_opt", [&](auto& a) { refs.d_opt->load(a); });
  if (restore_rng) {
    torch::Tensor rng;
    archive.read("rng_cpu", rng);
    set_cpu_rng_state(rng);
    if (cuda_in_use() && archive.try_read("rng_cuda", rng)) {
      auto gen = at::globalContext().defaultGenerator(c10::Device(c10::kCUDA));
      std::lock_guard<std::mutex> lock(gen.mutex());
      gen.set_state(rng.cpu());
    }
  }
  return s;
}

ModelConfig read_checkpoint_model_config(const std::string& path) {
  auto archive = open_archive(path, torch::kCPU);
  return model_config_from_text(read_string(archive, "model_config"));
}

bool checkpoint_has_ema(const std::string& path) {
  auto archive = open_archive(path, torch::kCPU);
  torch::serialize::InputArchive sub;
  return archive.try_read("G_ema", sub);
}

Generator load_generator(const std::string& path, bool use_ema, torch::Device device, int64_t standing_batches,
                         uint64_t standing_seed) {
  const ModelConfig cfg = read_checkpoint_model_config(path);
  Generator g(cfg);
  g->to(device);
  CheckpointRefs refs;
  if (use_ema && checkpoint_has_ema(path))
    refs.g_ema = g;
  else
    refs.g = g;
  load_checkpoint(path, refs, /*restore_rng=*/false, device);
  accumulate_standing_stats(g, standing_batches, kStandingBatchSize, standing_seed);  // leaves g in eval mode
  return g;
}

// --- checkpoint directory ------------------------------------------------------------------------
std::string checkpoint_file_name(int64_t step) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "step_%07lld.pt", static_cast<long long>(step));
  return buf;
}

static std::vector<fs::path> step_files(const std::string& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string n = e.path().filename().string();
    if (n.rfind("step_", 0) == 0 && e.path().extension() == ".pt" && e.is_regular_file()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());  // zero-padded steps sort by name
  return files;
}

std::string latest_checkpoint(const std::string& dir) {
  std::ifstream in(fs::path(dir) / "latest");
  std::string name;
  if (in && std::getline(in, name) && !name.empty() && fs::is_regular_file(fs::path(dir) / name))
    return (fs::path(dir) / name).string();
  const auto files = step_files(dir);
  return files.empty() ? "" : files.back().string();
}

void mark_latest_checkpoint(const std::string& dir, const std::string& file_name, int64_t keep) {
  write_text_atomically((fs::path(dir) / "latest").string(), file_name + "\n");
  auto files = step_files(dir);
  const int64_t n = static_cast<int64_t>(files.size());
  for (int64_t i = 0; i < n - std::max<int64_t>(keep, 1); ++i) {
    if (files[i].filename() == file_name) continue;
    std::error_code ec;
    fs::remove(files[i], ec);
  }
}

std::string resolve_checkpoint_path(const std::string& file_or_dir) {
  if (fs::is_regular_file(file_or_dir)) return file_or_dir;
  if (fs::is_directory(file_or_dir)) {
    for (const auto& d : {fs::path(file_or_dir) / "checkpoints", fs::path(file_or_dir)}) {
      const std::string p = latest_checkpoint(d.string());
      if (!p.empty()) return p;
    }
    throw CheckpointError(file_or_dir + ": no checkpoint in this directory (expected checkpoints/step_*.pt)");
  }
  throw CheckpointError(file_or_dir + ": no such checkpoint file or run directory");
}

}  // namespace hamgan
