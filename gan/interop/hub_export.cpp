#include "gan/interop/hub_export.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "core/run_paths.h"
#include "core/safetensors.h"
#include "data/dataset.h"
#include "gan/interop/hub_card.h"
#include "gan/report/run_log.h"
#include "gan/train/train_config.h"

namespace hamgan {
namespace fs = std::filesystem;
namespace {

// The directory `path` names, absolute: "runs/x/" names runs/x.
fs::path directory_named(const std::string& path) {
  const fs::path p = fs::absolute(path).lexically_normal();
  return p.has_filename() ? p : p.parent_path();
}

// Fashion-MNIST's classes in label order, as Zalando Research's description of the data set lists them.
const std::vector<std::string>& fashion_mnist_classes() {
  static const std::vector<std::string> names = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                                 "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};
  return names;
}

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError("export --hub: cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> class_names_from(const std::string& file, int64_t num_classes) {
  std::vector<std::string> names;
  std::istringstream lines(file_text(file));
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) names.push_back(line);
  if (static_cast<int64_t>(names.size()) != num_classes)
    throw ConfigError("export: --class_names " + file + " has " + std::to_string(names.size()) +
                      " names; the model has " + std::to_string(num_classes) +
                      " classes (one name per line, in label order)");
  return names;
}

// The run's last evaluation row (the last with a protocol): its step, numbers and protocols.
void read_last_evaluation(const std::string& log, HubCard& card) {
  if (!fs::exists(log)) return;
  const auto rows = read_metrics(log);
  const auto texts = read_metric_texts(log);
  for (size_t i = std::min(rows.size(), texts.size()); i-- > 0;) {
    if (!texts[i].count("protocol")) continue;
    const auto step = rows[i].find("step");
    if (step == rows[i].end())
      throw DataError("export --hub: " + log + ": evaluation row " + std::to_string(i + 1) + " has no step");
    card.eval_step = static_cast<int64_t>(step->second);
    for (const auto& [key, value] : rows[i])
      if (key != "step") card.metrics.push_back({key, value});
    card.protocol = texts[i].at("protocol");
    card.labels = texts[i].count("labels") ? texts[i].at("labels") : "balanced";  // older logs were balanced
    return;
  }
}

// The newest sample grid (step_<zero-padded step>.png), "" when the run kept none.
std::string newest_grid(const RunPaths& run) {
  std::string newest;
  if (!fs::is_directory(run.samples())) return newest;
  for (const auto& entry : fs::directory_iterator(run.samples())) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("step_", 0) == 0 && entry.path().extension() == ".png" && name > newest) newest = name;
  }
  return newest;
}

void fill_from_provenance(const RunPaths& run, HubCard& card) {
  if (!fs::exists(run.provenance())) return;
  const auto j = nlohmann::json::parse(file_text(run.provenance()), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return;  // a damaged provenance file leaves the card without these lines
  if (j.contains("precision") && j["precision"].is_string()) card.precision = j["precision"];
  if (j.contains("git_revision") && j["git_revision"].is_string()) {
    card.trained_revision = j["git_revision"];
    if (j.value("git_dirty", false)) card.trained_revision += "-dirty";
  }
}

// The folder's contents, written under `dir`; returns the card's file list.
void write_folder(const ExportConfig& cfg, const RunPaths& run, const std::string& dir, HubCard& card) {
  ExportConfig model = cfg;
  model.hub.clear();
  model.out = (fs::path(dir) / "model.safetensors").string();
  run_export(model);
  const SafetensorsFile written = read_safetensors(model.out);  // what the card describes is what was written
  for (const auto& [name, tensor] : written.tensors)
    if (name.rfind("G.", 0) == 0) card.g_parameters += tensor.numel();
  // The model the file records (the checkpoint's) is the one config.json and the card describe.
  card.model = model_config_from_text(written.metadata.at("model"));
  card.weights = written.metadata.at("weights");
  card.step = std::stoll(written.metadata.at("step"));
  card.hamgan_version = written.metadata.at("hamgan_version");
  card.git_revision = written.metadata.at("git_revision");
  card.files = {"model.safetensors", "config.json"};
  write_text_atomically((fs::path(dir) / "config.json").string(), hub_config_json(card.model));
  for (const std::string& name : {std::string("metrics.jsonl"), std::string("config.toml")})
    if (fs::exists(run.dir / name)) {
      fs::copy_file(run.dir / name, fs::path(dir) / name);
      card.files.push_back(name);
    }
  for (const auto& entry : fs::directory_iterator(run.dir))
    if (entry.path().filename().string().rfind("events.out.tfevents.", 0) == 0) {
      fs::copy_file(entry.path(), fs::path(dir) / entry.path().filename());
      card.files.push_back(entry.path().filename().string());
    }
  const std::string grid = newest_grid(run);
  if (!grid.empty()) {
    fs::create_directories(fs::path(dir) / "samples");
    fs::copy_file(fs::path(run.samples()) / grid, fs::path(dir) / "samples" / grid);
    card.sample_grid = "samples/" + grid;
    card.files.push_back(card.sample_grid);
  }
  card.files.push_back("README.md");
  write_text_atomically((fs::path(dir) / "README.md").string(), hub_card_text(card));
}

}  // namespace

std::string run_hub_export(const ExportConfig& cfg) {
  if (!cfg.out.empty()) throw ConfigError("export: give --out FILE.safetensors or --hub DIR, not both");
  const bool spdx_like = !cfg.license.empty() && std::all_of(cfg.license.begin(), cfg.license.end(), [](char ch) {
    return std::islower(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch)) ||
           ch == '-' || ch == '.' || ch == '+';
  });
  if (!spdx_like)
    throw ConfigError("export: --license " + cfg.license + " is not a Hub license id; use a lower-case SPDX id "
                      "(mit, apache-2.0, cc-by-4.0, ...) or other");
  const RunPaths run(cfg.checkpoint);
  if (!fs::is_directory(cfg.checkpoint) || !fs::exists(run.config()))
    throw ConfigError("export: --hub takes a run directory (its config, metrics and samples make the card); " +
                      cfg.checkpoint + " is not one written by hamgan train");
  const fs::path folder = directory_named(cfg.hub);
  if (fs::exists(folder) && (!fs::is_directory(folder) || !fs::is_empty(folder)))
    throw ConfigError("export: --hub " + cfg.hub + " already exists and is not empty; name a new folder");
  if (!fs::is_directory(folder.parent_path()))
    throw ConfigError("export: --hub " + cfg.hub + ": the directory " + folder.parent_path().string() +
                      " does not exist; create it or write elsewhere");

  const TrainConfig train = train_config_from_text(file_text(run.config()));
  HubCard card;
  card.name = directory_named(cfg.checkpoint).filename().string();
  card.license = cfg.license;
  card.dataset_path = train.dataset;
  const bool fashion = fs::path(train.dataset).lexically_normal() == fs::path(kDefaultFashionMnistDir);
  card.dataset_id = fashion ? "zalando-datasets/fashion_mnist" : "";
  if (!cfg.class_names.empty())
    card.class_names = class_names_from(cfg.class_names, train.model.num_classes);
  else if (fashion && train.model.num_classes == 10)
    card.class_names = fashion_mnist_classes();
  fill_from_provenance(run, card);
  read_last_evaluation(run.metrics_log(), card);

  const std::string tmp = folder.string() + ".hub." + std::to_string(::getpid());
  try {
    fs::remove_all(tmp);
    fs::create_directories(tmp);
    write_folder(cfg, run, tmp, card);
  } catch (const std::exception& e) {
    std::error_code ignored;
    fs::remove_all(tmp, ignored);
    throw Error("export: cannot write --hub " + cfg.hub + ": " + e.what());
  }
  std::error_code ec;
  fs::rename(tmp, folder, ec);  // replaces an empty directory
  if (ec) {
    fs::remove_all(tmp, ec);
    throw Error("export: cannot move the folder into --hub " + cfg.hub + " (" + ec.message() + ")");
  }
  return "Hub folder " + cfg.hub + " (" + card.weights + " G, step " + std::to_string(card.step) + ", " +
         std::to_string(card.metrics.size()) + " metrics of the evaluation at step " + std::to_string(card.eval_step) +
         ", " + std::to_string(card.files.size()) + " files)";
}

}  // namespace hamgan
