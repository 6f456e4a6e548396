#pragma once
// Whether a module's weights are finite: training refuses to save NaN weights,
// and the loaders of files from elsewhere (a generator to sample, Inception
// weights) refuse them before they turn into black images or a NaN FID.
#include <torch/torch.h>

#include <string>

namespace hamgan {

// The dotted name of the first parameter (then, with `buffers`, buffer) of `m`
// holding NaN or Inf; "" when every one is finite. Integer tensors are skipped.
std::string first_nonfinite_tensor(const torch::nn::Module& m, bool buffers = true);

}  // namespace hamgan
