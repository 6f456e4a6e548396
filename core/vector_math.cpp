#include "core/vector_math.h"

#include <torch/torch.h>

namespace hamgan {
namespace {

// ATen's grain for these functions: a range of T·2048 elements gives each of T threads a chunk.
constexpr int64_t kChunk = 2048;

void call_each_function(const torch::Tensor& x) {
  // In (0, 1): inside the domain of every function below.
  using Function = torch::Tensor (*)(const torch::Tensor&);
  static const Function functions[] = {torch::acos, torch::asin, torch::atan, torch::cos,   torch::erf,  torch::erfc,
                                       torch::erfinv, torch::exp, torch::log,  torch::log10, torch::log2, torch::sin,
                                       torch::sqrt, torch::tan,  torch::tanh, torch::trunc};
  for (const Function f : functions) f(x);
}

}  // namespace

void warm_up_vector_math() {
  torch::NoGradGuard no_grad;
  const int64_t elements = kChunk * torch::get_num_threads();
  for (const auto dtype : {torch::kFloat, torch::kDouble})
    call_each_function(torch::linspace(0.05, 0.95, elements, torch::TensorOptions().dtype(dtype)));
}

}  // namespace hamgan
