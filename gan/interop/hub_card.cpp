#include "gan/interop/hub_card.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/errors.h"
#include "gan/report/run_log.h"

namespace hamgan {
namespace {

// YAML reads a JSON string or number as the same scalar, so the front-matter's values are written in JSON.
std::string quoted(const std::string& s) { return json_string(s); }

std::string block_text(const ModelConfig& m, const BlockChoice& block) {
  if (block.name != "ham") return block.name;
  auto option = [&](const char* key, const char* fallback) {
    const auto it = m.block_options.find(key);
    return it == m.block_options.end() ? std::string(fallback) : it->second;
  };
  return "ham (" + option("ham_type", "nmf") + ", K = " + option("ham_train_steps", "6") + ")";
}

void front_matter(std::ostringstream& o, const HubCard& c) {
  o << "---\nlibrary_name: hamgan\nlicense: " << quoted(c.license) << "\n";
  o << "tags:\n- hamgan\n- gan\n- class-conditional\n- image-generation\n";
  std::vector<std::string> blocks;
  for (const std::string& block : {c.model.g_block.name, c.model.d_block.name})
    if (block != "none" && std::find(blocks.begin(), blocks.end(), block) == blocks.end()) blocks.push_back(block);
  for (const std::string& block : blocks) o << "- " << quoted("context-block-" + block) << "\n";
  if (!c.dataset_id.empty()) o << "datasets:\n- " << quoted(c.dataset_id) << "\n";
  std::vector<CardMetric> finite;
  for (const CardMetric& m : c.metrics)
    if (std::isfinite(m.value)) finite.push_back(m);
  if (!finite.empty()) {
    o << "model-index:\n- name: " << quoted(c.name) << "\n  results:\n  - task:\n      type: image-generation\n"
      << "      name: Class-conditional image generation\n    dataset:\n      name: "
      << quoted(c.dataset_id.empty() ? c.dataset_path : c.dataset_id) << "\n      type: "
      << quoted(c.dataset_id.empty() ? c.dataset_path : c.dataset_id) << "\n    metrics:\n";
    for (const CardMetric& m : finite)
      o << "    - type: " << quoted(m.name) << "\n      name: " << quoted(m.name) << "\n      value: "
        << json_number(m.value) << "\n      verified: false\n      args:\n        step: " << c.eval_step
        << "\n        labels: " << quoted(c.labels) << "\n        protocol: " << quoted(c.protocol) << "\n";
  }
  o << "---\n\n";
}

void body(std::ostringstream& o, const HubCard& c) {
  const ModelConfig& m = c.model;
  o << "# " << c.name << "\n\nA class-conditional GAN generator trained with HamGAN: a SAGAN-style ResNet generator "
    << "with conditional BatchNorm and a projection discriminator, spectral norm in both, hinge loss. "
    << "Context block in G: " << block_text(m, m.g_block) << "; in D: " << block_text(m, m.d_block) << ".\n\n";
  o << "| | |\n|---|---|\n"
    << "| images | " << m.resolution << " × " << m.resolution << ", " << m.image_channels << " channel"
    << (m.image_channels == 1 ? "" : "s") << " |\n| classes | " << m.num_classes << " |\n| z_dim | " << m.z_dim
    << " |\n| G parameters | " << c.g_parameters << " |\n| weights | " << (c.weights == "ema" ? "EMA G" : "raw G")
    << ", step " << c.step << " |\n| data set | " << c.dataset_path << " |\n";
  if (!c.precision.empty()) o << "| training precision | " << c.precision << " |\n";
  if (!c.trained_revision.empty()) o << "| trained by | HamGAN revision " << c.trained_revision << " |\n";
  o << "| exported by | HamGAN " << c.hamgan_version << ", revision " << c.git_revision << " |\n| license | "
    << c.license << " |\n\n";
  o << "## Evaluation\n\n";
  if (c.eval_step < 0) {
    o << "The run logged no evaluation.\n\n";
  } else {
    o << "The run's last evaluation row (metrics.jsonl, step " << c.eval_step << "; labels " << c.labels << "):\n\n"
      << "| metric | value |\n|---|---|\n";
    for (const CardMetric& metric : c.metrics) o << "| " << metric.name << " | " << json_number(metric.value) << " |\n";
    o << "\nProtocol: " << c.protocol << "\n\n";
  }
  if (!c.sample_grid.empty()) o << "![samples](" << c.sample_grid << ")\n\n";
  o << "## Use\n\n```python\nimport torch, hamgan\nG = hamgan.from_pretrained(\"PATH_OR_REPO_ID\")\n"
    << "images = G(torch.randn(8, G.z_dim), torch.arange(8) % G.num_classes)  # (8, C, H, W) in [-1, 1]\n```\n\n"
    << "or `torch.hub.load(HAMGAN_CHECKOUT, \"generator\", source=\"local\", weights=\"PATH_OR_REPO_ID\")`; "
    << "`hamgan import model.safetensors --out RUN` turns it back into a run for `hamgan sample` and `hamgan fid`.\n\n";
  if (!c.class_names.empty()) {
    o << "## Classes\n\n| label | class |\n|---|---|\n";
    for (size_t i = 0; i < c.class_names.size(); ++i) o << "| " << i << " | " << c.class_names[i] << " |\n";
    o << "\n";
  }
  o << "## Files\n\n";
  for (const std::string& f : c.files) o << "- `" << f << "`\n";
}

}  // namespace

std::string hub_card_text(const HubCard& card) {
  std::ostringstream o;
  front_matter(o, card);
  body(o, card);
  return o.str();
}

std::string hub_config_json(const ModelConfig& model) {
  nlohmann::ordered_json j;
  j["library_name"] = "hamgan";
  std::istringstream lines(model_config_to_text(model));
  for (std::string line; std::getline(lines, line);) {
    const size_t eq = line.find(" = ");
    if (eq == std::string::npos) continue;
    // The TOML literals of the model keys (integers, finite floats, basic strings, booleans) are JSON's too.
    try {
      j[line.substr(0, eq)] = nlohmann::json::parse(line.substr(eq + 3));
    } catch (const nlohmann::json::exception&) {
      throw Error("export --hub: the model key line '" + line + "' has no JSON form");
    }
  }
  return j.dump(2) + "\n";
}

}  // namespace hamgan
