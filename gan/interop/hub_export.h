#pragma once
// `hamgan export RUN --hub DIR`: a run's generator as a folder in the Hugging
// Face Hub's model layout (docs/interop.md): model.safetensors (what
// `hamgan export --out` writes), config.json (the model keys), README.md (the
// card, gan/interop/hub_card.h) and copies of the run's metrics.jsonl,
// TensorBoard events, config.toml and latest sample grid. Built in a temporary
// sibling and renamed into place, so a failure leaves no folder.
#include <string>

#include "gan/interop/export.h"

namespace hamgan {

// Writes cfg.hub; returns a one-line summary. Refuses a non-empty cfg.hub and a checkpoint file
// (the card is written from the run directory's records).
std::string run_hub_export(const ExportConfig& cfg);

}  // namespace hamgan
