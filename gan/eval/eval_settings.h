#pragma once
// What evaluation needs to know about the run (the training loop fills it from its config).
#include <cstdint>
#include <string>
#include <vector>

#include "metrics/dinov2_preprocess.h"
#include "metrics/label_mode.h"

namespace hamgan {

struct EvalSettings {
  std::vector<std::string> metrics;  // empty: no evaluation
  std::string classifier;  // classifier file for the classifier metrics; built on demand if missing
  std::string dataset;     // real images for fid_classifier: its test split
  std::string inception;   // Inception weights ("" = $HAMGAN_INCEPTION)
  std::string reference;   // Inception statistics of the real images (.npz) for fid_inception (and sfid: mu_s, sigma_s)
  std::string dinov2;      // DINOv2 TorchScript file for dinov2
  DinoResize dinov2_resize = DinoResize::torch_bicubic;
  std::string dinov2_reference;  // DINOv2 statistics of the real images (.npz) for dinov2
  LabelMode labels = LabelMode::balanced;  // dataset: the class frequencies of `dataset`'s training split
  int64_t resolution = 32, image_channels = 1;
  int64_t num_classes = 10;         // the model's: a classifier for the classifier metrics must have as many
  int64_t n = 1000;                 // generated images per evaluation
  int64_t standing_stats = 16;      // batches of kStandingBatchSize for G's BN statistics; 0 = stored moving averages
  uint64_t seed = 0;                // fixes z for every evaluation of a run
};

}  // namespace hamgan
