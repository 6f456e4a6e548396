#pragma once
// The model card and config.json of `hamgan export --hub` (docs/interop.md): a
// README.md with the YAML front-matter the Hugging Face Hub reads (library_name,
// license, datasets, tags, model-index) and a body for people, built only from
// what the run recorded, so no number in it is typed by hand.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gan/model/model_config.h"

namespace hamgan {

// One metric of the run's last evaluation row.
struct CardMetric {
  std::string name;  // the metrics.jsonl key: fid_inception, fid_classifier, class_consistency, ...
  double value = 0;
};

struct HubCard {
  std::string name;              // the run directory's name
  ModelConfig model;
  int64_t g_parameters = 0;
  std::string weights;           // ema | raw
  int64_t step = 0;              // the exported checkpoint's
  std::string license;           // SPDX id, or "other"
  std::string dataset_path, dataset_id;  // the run's data set, and its Hub id where known
  std::vector<std::string> class_names;  // in label order; empty when the data set has none
  std::string precision, trained_revision;   // the run's provenance.json
  std::string hamgan_version, git_revision;  // of the exporting binary (the file's metadata)
  // The run's last evaluation row: its step, metrics, protocol and label protocol.
  int64_t eval_step = -1;        // -1: the run logged no evaluation
  std::vector<CardMetric> metrics;
  std::string protocol, labels;
  std::string sample_grid;       // relative path of the copied grid ("" when the run kept none)
  std::vector<std::string> files;  // the folder's other files, for the card's list
};

// README.md: YAML front-matter, then the body.
std::string hub_card_text(const HubCard& card);
// config.json: every model key with its TOML type as a JSON value, in model_config_to_text's order.
std::string hub_config_json(const ModelConfig& model);

}  // namespace hamgan
