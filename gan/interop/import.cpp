#include "gan/interop/import.h"

#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "core/atomic_file.h"
#include "core/errors.h"
#include "core/rng.h"
#include "core/run_paths.h"
#include "gan/checkpoint/run_dir.h"
#include "gan/interop/generator_tensors.h"
#include "gan/interop/import_checks.h"
#include "gan/report/provenance.h"
#include "gan/step/ema.h"
#include "gan/train/train_state.h"

namespace hamgan {
namespace fs = std::filesystem;

namespace {

std::string meta(const SafetensorsFile& f, const std::string& key) {
  const auto it = f.metadata.find(key);
  return it == f.metadata.end() ? "" : it->second;
}

bool has_prefix(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// Names outside G. and D. would be dropped without a word by the loaders, which look at their own prefix only.
bool check_names(const SafetensorsFile& f, const std::string& path) {
  bool has_d = false;
  for (const auto& [name, tensor] : f.tensors) {
    if (!has_prefix(name, "G.") && !has_prefix(name, "D."))
      throw CheckpointError(path + ": tensor '" + name + "' belongs to no network; HamGAN files name every tensor "
                            "G.<path> (generator) or D.<path> (discriminator)");
    has_d |= has_prefix(name, "D.");
  }
  return has_d;
}

// The first model key whose value differs between a and b, with both values ("" when none does).
std::string first_model_difference(const ModelConfig& a, const ModelConfig& b, const std::string& a_name,
                                   const std::string& b_name) {
  for (const auto& f : model_config_fields()) {
    const std::string va = f.get(a), vb = f.get(b);
    if (va != vb) return f.spec.key + " = " + va + " in " + a_name + " but " + vb + " in " + b_name;
  }
  return "";
}

// `out` may not hold anything: an import never mixes with another run's files.
void check_out_is_free(const std::string& out) {
  std::error_code ec;
  if (!fs::exists(out, ec)) return;
  if (!fs::is_directory(out, ec))
    throw ConfigError("import: --out " + out + " is a file; name a new run directory");
  if (!fs::is_empty(out, ec))
    throw ConfigError("import: --out " + out + " already exists and is not empty; name a new run directory");
}

// The new run, written under `dir` (the temporary sibling of the run directory).
void write_run(const std::string& dir, TrainState& state, const TrainConfig& cfg) {
  const RunPaths paths(dir);
  fs::create_directories(paths.checkpoints());
  write_text_atomically(paths.config(), cfg.config_text);
  Provenance p;
  p.run_id = state.run_id;
  write_provenance(dir, p);
  const std::string name = checkpoint_file_name(state.step);
  state.save((fs::path(paths.checkpoints()) / name).string());
  mark_latest_checkpoint(paths.checkpoints(), name, cfg.keep_checkpoints);
}

// A failed write names --out and the reason, not the temporary sibling the run is built in.
Error write_failure(const std::exception& e, const std::string& tmp, const fs::path& target, const std::string& out) {
  std::string why;
  if (const auto* fe = dynamic_cast<const fs::filesystem_error*>(&e)) {
    why = fe->code().message() + "; choose a directory you can write to";
  } else {
    why = e.what();
    for (size_t at = why.find(tmp); at != std::string::npos; at = why.find(tmp, at))
      why.replace(at, tmp.size(), target.string());
  }
  return Error("import: cannot write the new run to --out " + out + ": " + why);
}

}  // namespace

ModelConfig import_model(const SafetensorsFile& file, const std::string& path, const ModelConfig& given,
                         bool model_given) {
  const std::string format = meta(file, "format");
  if (format != "hamgan") {
    if (model_given) return given;
    throw ConfigError("import: " + path + " has no HamGAN metadata (__metadata__ format = \"hamgan\"" +
                      (format.empty() ? std::string() : ", found \"" + format + "\"") +
                      "), so the model is not recorded; give it with --config MODEL.toml");
  }
  const std::string version = meta(file, "format_version");
  if (version != "1")
    throw CheckpointError("import: " + path + " has format_version \"" + version +
                          "\"; this HamGAN reads format_version 1 (export it with a matching HamGAN)");
  const std::string text = meta(file, "model");
  if (text.empty())
    throw CheckpointError("import: " + path + " records no model (__metadata__ \"model\" is missing); give it with "
                          "--config MODEL.toml");
  ModelConfig recorded;
  try {
    recorded = model_config_from_text(text);
  } catch (const ConfigError& e) {
    throw CheckpointError("import: " + path + ": its recorded model does not read back (" + e.what() + ")");
  }
  if (!model_given) return recorded;
  const std::string diff = first_model_difference(given, recorded, "--config", path);
  if (!diff.empty())
    throw ConfigError("import: the model differs: " + diff + "; drop the model keys from --config or make them "
                      "the file's");
  return given;
}

std::string import_generator(const ImportConfig& config) {
  if (config.out.empty()) throw ConfigError("import: --out is required (the run directory to create)");
  check_out_is_free(config.out);
  const SafetensorsFile file = read_safetensors(config.file);
  const bool with_d = check_names(file, config.file);
  check_imported_values(file.tensors, config.file);
  ImportConfig c = config;
  c.train.model = import_model(file, config.file, config.train.model, config.model_given);
  c.train.run_dir = config.out;
  c.train.validate();
  c.train.config_text = resolved_config_text(c.train);
  // Sizes before the networks are built: forged metadata must not allocate gigabytes first.
  check_model_fits_tensors(c.train.model, file.tensors, config.file,
                           meta(file, "format") == "hamgan" ? "its metadata" : "--config");

  // The whole state in memory first, so that only writing can fail once directories exist.
  ScopedRngRestore keep_rng;  // the caller's streams stay as they were
  seed_initial_weights(c.train.seed);  // a fresh D and the saved random state follow the seed alone
  TrainState state(c.train, torch::kCPU);
  load_generator_tensors(state.g, file.tensors, c.file);
  if (with_d) load_discriminator_tensors(state.d, file.tensors, c.file);
  if (state.g_ema) ema_update(*state.g, *state.g_ema, 0.0);  // a copy: the EMA starts from the imported weights

  const fs::path out = fs::absolute(config.out).lexically_normal();
  const fs::path target = out.has_filename() ? out : out.parent_path();  // "runs/x/" names runs/x
  fs::path made = target.parent_path();  // the outermost directory this import creates, removed on failure
  while (!made.parent_path().empty() && made.parent_path() != made && !fs::exists(made.parent_path()))
    made = made.parent_path();
  if (fs::exists(made)) made.clear();
  const std::string tmp = target.string() + ".import." + std::to_string(::getpid());
  auto remove_made = [&] {
    std::error_code ignored;
    fs::remove_all(made.empty() ? fs::path(tmp) : made, ignored);
  };
  try {
    fs::create_directories(target.parent_path());
    fs::remove_all(tmp);
    write_run(tmp, state, c.train);
  } catch (const std::exception& e) {
    remove_made();
    throw write_failure(e, tmp, target, config.out);
  }
  std::error_code ec;
  fs::rename(tmp, target, ec);  // replaces an empty directory; a non-empty one appeared meanwhile fails
  if (ec) {
    remove_made();
    throw Error("import: cannot move the new run into " + config.out + " (" + ec.message() + ")");
  }
  std::string recorded;  // what the file says of itself, when it says it
  for (const char* key : {"weights", "step", "source"})
    if (!meta(file, key).empty()) recorded += std::string(recorded.empty() ? " (" : ", ") + key + " " + meta(file, key);
  if (!recorded.empty()) recorded += ")";
  return "import: " + config.file + recorded + " -> " + config.out + ": G" + (c.train.ema ? " and G_ema" : "") +
         (with_d ? " and D" : ", a fresh D") + ", fresh optimisers, step 0; fine-tune with: hamgan train --config " +
         (fs::path(config.out) / "config.toml").string() + " --resume";
}

}  // namespace hamgan
