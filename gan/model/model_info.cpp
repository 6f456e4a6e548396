#include "gan/model/model_info.h"

#include <iomanip>
#include <sstream>

#include "gan/model/discriminator.h"
#include "gan/model/generator.h"
#include "gan/model/model_plan.h"

namespace hamgan {
namespace {

int64_t child_params(const torch::nn::Module& m, const std::string& name) {
  return count_parameters(*m.named_children()[name]);
}

std::string shape_str(const std::vector<int64_t>& s) {
  std::string r;
  for (auto v : s) r += (r.empty() ? "" : "x") + std::to_string(v);
  return r;
}

std::string thousands(int64_t v) {
  std::string d = std::to_string(v), r;
  for (size_t i = 0; i < d.size(); ++i) {
    if (i > 0 && (d.size() - i) % 3 == 0) r += ',';
    r += d[i];
  }
  return r;
}

void print_network(const std::string& title, const NetworkInfo& n, std::ostream& out) {
  out << title << " (context: " << n.context << ")\n";
  out << "  " << std::left << std::setw(10) << "part" << std::setw(16) << "output" << std::right << std::setw(14)
      << "params" << "\n";
  for (const auto& p : n.parts)
    out << "  " << std::left << std::setw(10) << p.name << std::setw(16) << shape_str(p.shape) << std::right
        << std::setw(14) << thousands(p.params) << "\n";
  out << "  " << std::left << std::setw(26) << "total" << std::right << std::setw(14) << thousands(n.total) << "\n";
}

}  // namespace

int64_t count_parameters(const torch::nn::Module& module) {
  int64_t n = 0;
  for (const auto& p : module.parameters(/*recurse=*/true)) n += p.numel();
  return n;
}

ModelInfo model_info(const ModelConfig& config) {
  config.validate();
  torch::NoGradGuard no_grad;
  ModelInfo info;
  const int64_t side = config.context_side();
  {
    Generator g(config);
    auto& n = info.generator;
    n.context = g->context()->describe();
    const int64_t stem = generator_stem_channels(config);
    n.parts.push_back({"linear", {stem, 4, 4}, child_params(*g, "linear")});
    const auto plan = generator_plan(config);
    const int64_t at = context_index(plan, side);
    for (size_t i = 0; i < plan.size(); ++i) {
      const auto& b = plan[i];
      n.parts.push_back({b.name, {b.out_ch, b.out_side, b.out_side}, child_params(*g, b.name)});
      if (static_cast<int64_t>(i) == at)
        n.parts.push_back({"context", {b.out_ch, b.out_side, b.out_side}, child_params(*g, "context")});
    }
    const int64_t r = config.resolution;
    n.parts.push_back({"bn", {plan.back().out_ch, r, r}, child_params(*g, "bn")});
    n.parts.push_back({"conv_out", {config.image_channels, r, r}, child_params(*g, "conv_out")});
    n.total = count_parameters(*g);
  }
  {
    Discriminator d(config);
    auto& n = info.discriminator;
    n.context = d->context()->describe();
    const auto plan = discriminator_plan(config);
    const int64_t at = context_index(plan, side);
    for (size_t i = 0; i < plan.size(); ++i) {
      const auto& b = plan[i];
      n.parts.push_back({b.name, {b.out_ch, b.out_side, b.out_side}, child_params(*d, b.name)});
      if (static_cast<int64_t>(i) == at)
        n.parts.push_back({"context", {b.out_ch, b.out_side, b.out_side}, child_params(*d, "context")});
    }
    n.parts.push_back({"linear", {1}, child_params(*d, "linear")});
    n.parts.push_back({"embed", {plan.back().out_ch}, child_params(*d, "embed")});
    n.total = count_parameters(*d);
  }
  return info;
}

void print_model_info(const ModelConfig& c, const ModelInfo& info, std::ostream& out) {
  out << "model: resolution " << c.resolution << ", image_channels " << c.image_channels << ", num_classes "
      << c.num_classes << ", z_dim " << c.z_dim << ", g_ch " << c.g_ch << ", d_ch " << c.d_ch
      << ", context at " << c.context_side() << "x" << c.context_side() << ", init " << to_string(c.init) << "\n";
  print_network("G", info.generator, out);
  print_network("D", info.discriminator, out);
  out << "G+D total " << thousands(info.generator.total + info.discriminator.total) << "\n";
}

}  // namespace hamgan
