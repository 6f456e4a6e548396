#pragma once
// `hamgan import`: a generator in the safetensors layout of docs/interop.md
// (G.* tensors, optionally D.*, and a "hamgan" __metadata__) made into a run
// directory that `hamgan train --resume` continues as a fine-tune and that
// `hamgan sample`, `fid` and `fid-stats` read like any run.
#include <string>

#include "core/safetensors.h"
#include "gan/model/model_config.h"
#include "gan/train/train_config.h"

namespace hamgan {

struct ImportConfig {
  std::string file;          // the .safetensors file
  std::string out;           // the run directory to create (becomes train.run_dir)
  TrainConfig train;         // model and train keys of the new run
  // Whether train.model was given (a --config file or model options). Given, it must equal the
  // file's recorded model; not given, the file's recorded model is used.
  bool model_given = false;
};

// The model the run gets: the file's recorded one (metadata "model") or the given one; ConfigError
// naming the first model key where both exist and differ, or asking for --config where neither does.
ModelConfig import_model(const SafetensorsFile& file, const std::string& path, const ModelConfig& given,
                         bool model_given);

// Writes the run directory: config.toml (the resolved config), provenance.json and
// checkpoints/step_0000000.pt marked latest, holding the file's G (and G_ema, a copy,
// with ema = true), its D when the file has D.* tensors (else a fresh one drawn from
// the seed) and fresh optimisers. Built in a temporary sibling directory and renamed,
// so a failure leaves nothing; an existing non-empty `out` is refused, and a failed
// write names `out`. Values no training writes, and model sizes the tensors contradict
// or beyond a bound, are refused before anything is built (import_checks.h). Returns
// one summary line.
std::string import_generator(const ImportConfig& config);

}  // namespace hamgan
