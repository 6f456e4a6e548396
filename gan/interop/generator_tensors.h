#pragma once
// A generator's (or discriminator's) tensors by name, for files other programs
// read: every parameter and buffer under LibTorch's dotted module path
// ("linear.weight", "block1.bn1.gain", "context.lower.u", ...), each prefixed
// with the network ("G." or "D."). Spectral-norm layers keep their raw weight
// and their u vector (docs/interop.md says how σ follows from them).
#include <torch/torch.h>

#include <string>
#include <utility>
#include <vector>

#include "gan/model/discriminator.h"
#include "gan/model/generator.h"

namespace hamgan {

using NamedTensors = std::vector<std::pair<std::string, torch::Tensor>>;

// Parameters then buffers of `g`, in module order, detached on the CPU, names prefixed with `prefix`.
NamedTensors generator_tensors(const Generator& g, const std::string& prefix = "G.");
NamedTensors discriminator_tensors(const Discriminator& d, const std::string& prefix = "D.");

// Copies the tensors named `prefix`+name into `g`'s parameters and buffers. Every
// tensor of `g` must be present with its exact shape and a float dtype (F32, or
// F16/BF16/F64 converted to F32); a missing, extra (with that prefix), misshapen or
// wrongly typed tensor throws CheckpointError in one line naming `what` (the file),
// the tensor and what was expected. Tensors with other prefixes are ignored.
void load_generator_tensors(Generator& g, const NamedTensors& tensors, const std::string& what,
                            const std::string& prefix = "G.");
void load_discriminator_tensors(Discriminator& d, const NamedTensors& tensors, const std::string& what,
                                const std::string& prefix = "D.");

}  // namespace hamgan
