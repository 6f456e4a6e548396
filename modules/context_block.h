#pragma once
// The global-context block interface and its registry. Every block maps
// (N, C, H, W) to the same shape; G and D build theirs by name, so swapping
// SA for the Hamburger never touches generator or discriminator code.
// A block registers its name, its factory, its option fields and its MAC
// count in one registry line (context_registry.cpp); the model config, CLI,
// checkpoint text, validation and `hamgan bench modules` pick them up from there.
#include <torch/torch.h>

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/config_fields.h"

namespace hamgan {

struct ContextOptions {
  std::string name = "none";  // a registered block name
  // Set by the generator: class-conditional layers inside the block (G only).
  int64_t num_classes = 0;
  // Block option values by key ("ham_rank" -> "2"), as text; a key left out reads as its
  // registered default. Blocks parse them into their own typed options.
  std::map<std::string, std::string> values;

  // The value of `key`; a key that no block registers throws ConfigError.
  std::string value(const std::string& key) const;
  int64_t get_int(const std::string& key) const;
  double get_float(const std::string& key) const;
  bool get_bool(const std::string& key) const;
};

class ContextBlockImpl : public torch::nn::Module {
 public:
  // labels: (N,) int64 class labels; blocks that are not class-conditional ignore them.
  virtual torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& labels = {}) = 0;
  // A short description for model-info and logs, e.g. "ham(nmf, r=32, K=6/6, one-step)".
  virtual std::string describe() const = 0;
};
using ContextBlock = std::shared_ptr<ContextBlockImpl>;

using ContextBlockFactory = std::function<ContextBlock(const ContextOptions&, int64_t channels)>;
// Analytic multiply-accumulates of one forward of the block on `shape` (N, C, H, W): the sum over
// its convolutions and matrix products; element-wise ops, softmax and normalisations are not counted.
using ContextBlockMacs = std::function<int64_t(const ContextOptions&, const std::vector<int64_t>& shape)>;

// Builds the block `options.name` for `channels` input channels; an unknown name
// throws ConfigError listing the known ones.
ContextBlock make_context_block(const ContextOptions& options, int64_t channels);
std::vector<std::string> context_block_names();
// Adds a block with its option fields (keys unique across all blocks, since config files are
// flat) and, optionally, its MAC count; a duplicate name or key throws ModelError.
void register_context_block(const std::string& name, ContextBlockFactory factory,
                            std::vector<FieldSpec> options = {}, ContextBlockMacs macs = {});
// The option fields of every registered block, in registration order.
std::vector<FieldSpec> context_block_option_fields();
// The registered MAC count of block `options.name` on `shape` (N, C, H, W); -1 for a block that
// registered none or an unknown name (not counted).
int64_t module_macs(const ContextOptions& options, const std::vector<int64_t>& shape);

}  // namespace hamgan
