#pragma once
// The global-context block interface and its registry. Every block maps
// (N, C, H, W) to the same shape; G and D build theirs by name, so swapping
// SA for the Hamburger never touches generator or discriminator code.
#include <torch/torch.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace hamgan {

enum class HamType { kNMF, kVQ, kCD };
enum class HamGradient { kOneStep, kBPTT };
enum class HamInit { kRandom, kOnline };

struct ContextOptions {
  std::string name = "none";  // none | sa | ylg | ham
  // Hamburger (architecture.md §3); ignored by the other blocks.
  HamType ham_type = HamType::kNMF;
  int64_t train_steps = 6;  // K while training
  int64_t eval_steps = 6;   // K in eval (the GAN code uses the same K)
  int64_t rank = 0;         // r; 0 means d / 8
  HamGradient gradient = HamGradient::kOneStep;
  double temperature = 0.0;  // 0 means the reference value for the type (NMF 1, VQ/CD 0.01 i.e. inv_t 100)
  double beta = 0.01;        // CD ridge term (GAN code 0.01)
  HamInit init = HamInit::kRandom;
  // Set by the generator: class-conditional BN after the upper bread (G only).
  int64_t num_classes = 0;
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

// Builds the block `options.name` for `channels` input channels; an unknown name
// throws ConfigError listing the known ones.
ContextBlock make_context_block(const ContextOptions& options, int64_t channels);
std::vector<std::string> context_block_names();
// Adds a block to the registry; a duplicate name throws.
void register_context_block(const std::string& name, ContextBlockFactory factory);

// Option parsing shared by the CLI and config files ("nmf" -> kNMF, ...); bad values throw ConfigError.
HamType parse_ham_type(const std::string& s);
HamGradient parse_ham_gradient(const std::string& s);
HamInit parse_ham_init(const std::string& s);
std::string to_string(HamType t);
std::string to_string(HamGradient g);
std::string to_string(HamInit i);

}  // namespace hamgan
