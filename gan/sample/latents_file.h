#pragma once
// Generator inputs read from a file instead of drawn from a seed, so that
// HamGAN scores exactly the samples another program asked for (torch-fidelity
// draws z and labels itself): an .npz holding z float32 (N, z_dim) and y int64
// (N), the members `hamgan sample --out F.npz --float` writes beside x.
#include <torch/torch.h>

#include <string>

#include "gan/sample/noise.h"

namespace hamgan {

// z and labels of every row of `path`, in file order, checked against a
// generator of `z_dim` inputs and `num_classes` classes: z float32 2-D with
// z_dim columns and finite, y integer 1-D with one label in [0, num_classes)
// per row of z. Any fault is a DataError naming the file and the member.
NoiseBatch read_latents(const std::string& path, int64_t z_dim, int64_t num_classes);

// The number of rows of path's y (what --n defaults to with --latents); reads y alone. An empty y is a
// DataError naming the file.
int64_t latents_count(const std::string& path);

}  // namespace hamgan
