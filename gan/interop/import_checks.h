#pragma once
// What `hamgan import` checks of a safetensors file before it builds a model:
// the values (a run trained here never holds them otherwise) and the sizes the
// model keys imply. Building first would let a forged `num_classes` in the
// metadata allocate gigabytes before any shape is compared.
#include <string>

#include "gan/interop/generator_tensors.h"
#include "gan/model/model_config.h"

namespace hamgan {

// Every float tensor is finite, F64 values fit float32 (the model's dtype), and
// every "*.running_var" is >= 0. CheckpointError naming `path` and the tensor.
void check_imported_values(const NamedTensors& tensors, const std::string& path);

// The sizes `model` gives the tensors that reveal each size key (z_dim,
// num_classes, image_channels, g_ch, d_ch, ea_memory) equal those the file holds,
// and G and D stay within a bound on parameters (kMaxImportedElements each).
// `source` says where the model came from ("its metadata", "--config"). Allocates
// nothing; CheckpointError naming `path`, the key and the tensor.
void check_model_fits_tensors(const ModelConfig& model, const NamedTensors& tensors, const std::string& path,
                              const std::string& source);

// 2^29 parameters a network: five times BigGAN-deep at 512×512 (112 million in G).
constexpr double kMaxImportedElements = 536870912.0;

}  // namespace hamgan
