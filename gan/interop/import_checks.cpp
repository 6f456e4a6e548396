#include "gan/interop/import_checks.h"

#include <cfloat>
#include <cstdio>
#include <map>

#include "core/errors.h"
#include "core/text.h"
#include "gan/model/model_plan.h"

namespace hamgan {
namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// The first element of `flat` where `mask` holds, with its value: "-0.5 at element 3".
std::string first_at(const torch::Tensor& flat, const torch::Tensor& mask) {
  const int64_t i = mask.nonzero()[0][0].item<int64_t>();
  return number(flat[i].item<double>()) + " at element " + std::to_string(i);
}

// A tensor whose shape follows from one model key: `dim` of `shape` is that key's doing.
struct Probe {
  std::string key;
  int64_t value;
  std::string tensor;
  std::vector<int64_t> shape;
  size_t dim;
};

int64_t context_width(const std::vector<BlockPlan>& plan, const ModelConfig& m) {
  const int64_t at = context_index(plan, m.context_side());
  return plan[static_cast<size_t>(at < 0 ? 0 : at)].out_ch;
}

int64_t ea_head_dim(const ContextOptions& o, int64_t width) {
  return std::max<int64_t>(1, width / std::max<int64_t>(1, o.get_int("ea_heads")));
}

std::vector<Probe> probes(const ModelConfig& m) {
  const auto gp = generator_plan(m), dp = discriminator_plan(m);
  const int64_t stem = generator_stem_channels(m), k = m.num_classes, ic = m.image_channels;
  const std::vector<int64_t> linear = {16 * stem, m.z_dim}, out = {ic, gp.back().out_ch, 3, 3};
  std::vector<Probe> p = {
      {"z_dim", m.z_dim, "G.linear.weight", linear, 1},
      {"g_ch", m.g_ch, "G.linear.weight", linear, 0},
      {"num_classes", k, "G.block1.bn1.gain", {k, gp[0].in_ch}, 0},
      {"image_channels", ic, "G.conv_out.weight", out, 0},
      {"g_ch", m.g_ch, "G.conv_out.weight", out, 1},
      {"d_ch", m.d_ch, "D.block1.conv1.weight", {dp[0].out_ch, dp[0].in_ch, 3, 3}, 0},
      {"num_classes", k, "D.embed.weight", {k, dp.back().out_ch}, 0},
  };
  const std::pair<ContextOptions, const std::vector<BlockPlan>*> nets[] = {{m.g_context(), &gp}, {m.d_context(), &dp}};
  for (const auto& [o, plan] : nets)
    if (o.name == "ea") {
      const int64_t memory = o.get_int("ea_memory");
      p.push_back({"ea_memory", memory, std::string(plan == &gp ? "G" : "D") + ".context.memory_key.weight",
                   {memory, ea_head_dim(o, context_width(*plan, m)), 1, 1}, 0});
    }
  return p;
}

// Parameters of a context block, roughly: its C×C maps, class tables and memories.
double context_elements(const ContextOptions& o, int64_t width, double classes) {
  if (o.name == "none") return 0;
  const double c = static_cast<double>(width);
  double n = 4 * c * c + 2 * classes * c;
  if (o.name == "ea")
    n += 2.0 * static_cast<double>(o.get_int("ea_memory")) * static_cast<double>(ea_head_dim(o, width));
  return n;
}

// The parameters G and D of `m` would hold, from the plans alone (nothing is built).
std::pair<double, double> network_elements(const ModelConfig& m) {
  const auto gp = generator_plan(m), dp = discriminator_plan(m);
  const double k = static_cast<double>(m.num_classes);
  double g = 16.0 * static_cast<double>(generator_stem_channels(m)) * static_cast<double>(m.z_dim);
  for (const auto& b : gp) {
    const double in = static_cast<double>(b.in_ch), out = static_cast<double>(b.out_ch);
    g += 2 * k * (in + out) + 10 * in * out + 9 * out * out;
  }
  g += 9.0 * static_cast<double>(gp.back().out_ch) * static_cast<double>(m.image_channels) +
       context_elements(m.g_context(), context_width(gp, m), k);
  double d = (k + 1) * static_cast<double>(dp.back().out_ch) + context_elements(m.d_context(), context_width(dp, m), 0);
  for (const auto& b : dp) {
    const double in = static_cast<double>(b.in_ch), out = static_cast<double>(b.out_ch);
    d += 10 * in * out + 9 * out * out;
  }
  return {g, d};
}

double largest(const ModelConfig& m) {
  const auto [g, d] = network_elements(m);
  return std::max(g, d);
}

// The size key whose value makes `m` largest: the one whose reduction to 1 shrinks it most.
std::string dominant_key(const ModelConfig& m) {
  const double full = largest(m);
  std::string best;
  double best_drop = -1;
  for (const char* key : {"num_classes", "z_dim", "g_ch", "d_ch", "image_channels", "ea_memory"}) {
    ModelConfig small = m;
    const std::string k = key;
    if (k == "num_classes") small.num_classes = 1;
    if (k == "z_dim") small.z_dim = 1;
    if (k == "g_ch") small.g_ch = 1;
    if (k == "d_ch") small.d_ch = 1;
    if (k == "image_channels") small.image_channels = 1;
    if (k == "ea_memory") small.block_options["ea_memory"] = "1";
    const double drop = full - largest(small);
    if (drop > best_drop) best = k, best_drop = drop;
  }
  return best;
}

std::string key_value(const ModelConfig& m, const std::string& key) {
  for (const auto& f : model_config_fields())
    if (f.spec.key == key) return f.get(m);
  return "?";
}

}  // namespace

void check_imported_values(const NamedTensors& tensors, const std::string& path) {
  for (const auto& [name, t] : tensors) {
    if (!t.is_floating_point() || t.numel() == 0) continue;
    const torch::Tensor flat = t.reshape(-1);
    const std::string where = path + ": tensor '" + name + "' holds ";
    const torch::Tensor nonfinite = torch::isfinite(flat).logical_not();
    if (nonfinite.any().item<bool>())
      throw CheckpointError(where + first_at(flat, nonfinite) + "; a network that trains holds finite weights: "
                            "export the file again from a checkpoint of finite weights (an earlier one)");
    if (t.scalar_type() == torch::kDouble) {
      const torch::Tensor over = flat.abs() > static_cast<double>(FLT_MAX);
      if (over.any().item<bool>())
        throw CheckpointError(where + first_at(flat, over) + ", beyond float32's range (|x| <= 3.4e38) in which "
                              "HamGAN's networks hold their weights; export values that fit float32");
    }
    if (ends_with(name, ".running_var")) {
      const torch::Tensor negative = flat < 0;
      if (negative.any().item<bool>())
        throw CheckpointError(where + "a negative variance, " + first_at(flat, negative) +
                              "; BN running variances are never negative, so the file is damaged: export it again");
    }
  }
}

void check_model_fits_tensors(const ModelConfig& model, const NamedTensors& tensors, const std::string& path,
                              const std::string& source) {
  const bool from_config = source == "--config";
  const std::string says = from_config ? "--config says " : source + " say ";
  const std::string fix = from_config ? "make the model keys of --config the file's"
                                      : "the metadata do not describe these tensors: export the file again, or "
                                        "give the model with --config";
  std::map<std::string, const torch::Tensor*> by_name;
  for (const auto& [name, t] : tensors) by_name[name] = &t;
  const std::vector<Probe> all = probes(model);
  for (const auto& p : all) {
    const auto it = by_name.find(p.tensor);
    if (it == by_name.end()) continue;  // a missing tensor is named once the sizes are known to be sane
    const torch::Tensor& t = *it->second;
    if (t.dim() != static_cast<int64_t>(p.shape.size()) || t.size(static_cast<int64_t>(p.dim)) != p.shape[p.dim])
      throw CheckpointError(path + ": " + says + p.key + " = " + std::to_string(p.value) + ", but tensor '" + p.tensor +
                            "' has shape " + c10::str(t.sizes()) + " (" + c10::str(c10::IntArrayRef(p.shape)) +
                            " for that model); " + fix);
  }
  const auto [g, d] = network_elements(model);
  if (std::max(g, d) <= kMaxImportedElements) return;
  const std::string key = dominant_key(model);
  std::string tensor;
  for (const auto& p : all)
    if (p.key == key && tensor.empty())
      tensor = " (tensor '" + p.tensor + "' alone would be " + c10::str(c10::IntArrayRef(p.shape)) + ")";
  throw CheckpointError(path + ": " + says + key + " = " + key_value(model, key) + ", which makes a " +
                        (g >= d ? "generator" : "discriminator") + " of " + number(std::max(g, d)) + " parameters" +
                        tensor + ", beyond the 2^29 (537 million) an import builds; " + fix);
}

}  // namespace hamgan
