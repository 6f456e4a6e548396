// hamgan.blocks.HamburgerBlock, the Python library's block, against the C++ HamBlock on the same
// weights, input and upstream gradient: outputs and every gradient, in training mode (batch
// statistics, SN's power iteration), for the one-step gradient and BPTT, NMF, VQ and CD, with and
// without class-conditional BN, in float64 (the ATen path: the arithmetic must agree to rounding) and
// float32 (on the CPU, NMF one-step at r <= 8 takes the fused kernel). This side writes each case's
// tensors; tests/python/block_gradient_check.py recomputes them with the Python block.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "metrics/npz.h"
#include "modules/ham_block.h"
#include "tests/common/python_reference.h"
#include "tests/common/test_util.h"

namespace hamgan {
namespace {

struct GradientCase {
  HamType type;
  HamGradient gradient;
  int64_t channels, classes;
  torch::Dtype dtype;
};

std::string case_name(const GradientCase& c) {
  return to_string(c.type) + (c.gradient == HamGradient::kOneStep ? "_onestep" : "_bptt") + "_c" +
         std::to_string(c.channels) + "_k" + std::to_string(c.classes) + (c.dtype == torch::kDouble ? "_f64" : "_f32");
}

// One case's tensors: the block's state before the forward (SN's u moves in training), the inputs, the
// output and the gradients of the input and of every parameter.
NpzArrays run_case(const GradientCase& c) {
  HamOptions o;
  o.type = c.type;
  o.gradient = c.gradient;
  o.train_steps = 3;
  o.init = HamInit::kOnline;  // the starting bases are a buffer both sides load
  torch::manual_seed(11);
  HamBlock block(o, c.channels, c.classes);
  {
    torch::NoGradGuard no_grad;
    for (auto& p : block->parameters()) p.copy_(torch::rand(p.sizes()) - 0.3);  // sigma and BN gains away from 0, 1
  }
  block->to(c.dtype);
  block->train();
  NpzArrays a;
  for (const auto& p : block->named_parameters()) a["state." + p.key()] = p.value().detach().clone();
  for (const auto& b : block->named_buffers()) a["state." + b.key()] = b.value().clone();
  const auto x = torch::randn({3, c.channels, 6, 6}, torch::TensorOptions().dtype(c.dtype)).requires_grad_(true);
  const auto w = torch::randn({3, c.channels, 6, 6}, torch::TensorOptions().dtype(c.dtype));
  const auto labels = torch::tensor({2, 0, 1}, torch::kLong);
  const auto out = c.classes > 0 ? block->forward(x, labels) : block->forward(x);
  (out * w).sum().backward();
  a["x"] = x.detach().clone();
  a["w"] = w;
  a["labels"] = labels;
  a["out"] = out.detach().contiguous();
  a["grad.x"] = x.grad().contiguous();
  for (const auto& p : block->named_parameters()) a["grad." + p.key()] = p.value().grad().contiguous();
  return a;
}

TEST(PythonBlocks, HamburgerOutputsAndGradientsEqualTheCppBlock) {
  const std::string dir = test::scratch_dir("interop", "block_gradients");
  std::ofstream cases(dir + "/cases.txt");
  for (torch::Dtype dtype : {torch::kDouble, torch::kFloat})
    for (HamType type : {HamType::kNMF, HamType::kVQ, HamType::kCD})
      for (HamGradient gradient : {HamGradient::kOneStep, HamGradient::kBPTT})
        for (int64_t classes : {0, 4}) {
          // 32 channels: r = 4, the fused CPU kernel in float32; 80: r = 10, the batched products.
          for (int64_t channels : {32, 80}) {
            if (channels == 80 && (type != HamType::kNMF || gradient != HamGradient::kOneStep)) continue;
            const GradientCase c{type, gradient, channels, classes, dtype};
            write_npz(dir + "/" + case_name(c) + ".npz", run_case(c), /*compressed=*/false);
            cases << case_name(c) << ' ' << to_string(type) << ' '
                  << (gradient == HamGradient::kOneStep ? "one-step" : "bptt") << ' ' << channels << ' ' << classes
                  << ' ' << (dtype == torch::kDouble ? "float64" : "float32") << '\n';
          }
        }
  cases.close();
  RUN_REFERENCE("block_gradient_check.py", dir);
}

}  // namespace
}  // namespace hamgan
