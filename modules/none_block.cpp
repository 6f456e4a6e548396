// The `none` context block: an identity module rather than a null branch, so
// G and D always own a "context" submodule (docs/modules.md, "Context blocks").
#include "modules/builtin_blocks.h"
#include "core/errors.h"

namespace hamgan {
namespace {

class NoneBlockImpl : public ContextBlockImpl {
 public:
  torch::Tensor forward(const torch::Tensor& x, const torch::Tensor& /*labels*/) override {
    TORCH_CHECK(x.dim() == 4, "none block: expected (N, C, H, W), got ", x.sizes());
    return x;
  }
  std::string describe() const override { return "none"; }
};

}  // namespace

ContextBlock make_none_block(const ContextOptions&, int64_t channels) {
  if (channels <= 0) throw ModelError("context block none: channels must be positive, got " + std::to_string(channels));
  return std::make_shared<NoneBlockImpl>();
}

int64_t none_block_macs(const ContextOptions&, const std::vector<int64_t>&) { return 0; }

}  // namespace hamgan
