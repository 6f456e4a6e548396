#pragma once
// Weight initialisation of a whole network (docs/models.md, "Initialisation").
#include <torch/torch.h>

#include "gan/model/model_config.h"

namespace hamgan {

// Re-initialises every SNConv2d / SNLinear / SNEmbedding below `root` (context
// blocks included) with `scheme` and zeroes their biases. Xavier uses TF's fans:
// conv kh·kw·in / kh·kw·out, linear in / out, embedding classes / dim.
// BN gains/biases and block-specific scalars (σ) keep their own initial values.
void init_weights(torch::nn::Module& root, InitScheme scheme);

}  // namespace hamgan
