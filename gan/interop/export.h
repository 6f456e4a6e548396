#pragma once
// `hamgan export`: a checkpoint's generator (and optionally discriminator) as a
// safetensors file that Python's `hamgan.load_generator` and any safetensors
// reader open (docs/interop.md). The generator is loaded exactly as `hamgan
// sample` loads it (EMA or raw weights, standing BN statistics), so a module
// built from the file reproduces `hamgan sample`'s images.
#include <cstdint>
#include <string>

#include "gan/sample/standing_stats.h"

namespace hamgan {

struct ExportConfig {
  std::string checkpoint;         // checkpoint file or run directory
  std::string which = "latest";   // with a run directory: latest | best
  std::string weights;            // ema | raw; empty: ema when the run kept an EMA generator, else raw
  bool with_d = false;            // also the discriminator (its raw weights)
  std::string out;                // FILE.safetensors
  std::string hub;                // or a Hub-layout folder (gan/interop/hub_export.h)
  std::string license = "other";  // --hub: the card's license (an SPDX id, e.g. mit, apache-2.0)
  std::string class_names;        // --hub: a file of class names, one per line in label order
  uint64_t seed = 0;              // seed of the standing statistics, as `hamgan sample --seed`
  int64_t standing_stats = kDefaultStandingBatches;
  std::string device = "auto";    // where the standing statistics are computed
};

// Writes cfg.out atomically; returns a one-line summary.
std::string run_export(const ExportConfig& cfg);

}  // namespace hamgan
