// A generator's (and discriminator's) tensors through a safetensors file into a
// freshly built, differently initialised network: the same outputs bit for bit;
// a file of another architecture, a missing or an extra tensor named in one line.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <functional>
#include <map>
#include <string>

#include "core/errors.h"
#include "core/safetensors.h"
#include "gan/interop/generator_tensors.h"
#include "tests/common/gan_test_util.h"
#include "tests/common/test_util.h"

namespace hamgan {
namespace {

struct Case {
  std::string block;
  std::map<std::string, std::string> options;
};

ModelConfig config_of(const Case& c) {
  ModelConfig m = test::buildable_config(32, c.block);
  m.block_options = c.options;
  return m;
}

// Trains-mode forwards move the BN statistics, the spectral-norm u vectors and
// (online bases) the Hamburger's buffer away from their initial values, so the
// round trip has to carry every buffer, not only the parameters.
template <class Net>
void stir(Net& net, const std::function<void()>& forward) {
  net->train();
  torch::NoGradGuard no_grad;
  for (int i = 0; i < 2; ++i) forward();
  net->eval();
}

std::string file_of(const NamedTensors& tensors, const std::string& name) {
  const std::string path = test::scratch_dir("export", "generator_tensors") + "/" + name + ".safetensors";
  write_safetensors(path, {tensors, {{"format", "hamgan"}}});
  return path;
}

TEST(GeneratorTensors, ThroughAFileAFreshNetworkComputesTheSame) {
  const Case cases[] = {{"none", {}},
                        {"sa", {}},
                        {"sa_dense", {}},
                        {"ylg", {}},
                        {"ham", {{"ham_type", "nmf"}}},
                        {"ham", {{"ham_type", "vq"}}},
                        {"ham", {{"ham_type", "cd"}, {"ham_init", "online"}}},
                        {"ea", {{"ea_heads", "2"}, {"ea_cbn", "true"}}}};
  for (const Case& c : cases) {
    const ModelConfig mc = config_of(c);
    const std::string what = c.block + (c.options.empty() ? "" : " " + c.options.begin()->second);
    torch::manual_seed(1);
    Generator g(mc);
    Discriminator d(mc);
    torch::manual_seed(2);
    const torch::Tensor z = torch::randn({3, mc.z_dim}), y = torch::tensor({0, 4, 2}, torch::kLong);
    stir(g, [&] { g->forward(z, y); });
    stir(d, [&] { d->forward(g->forward(z, y), y); });
    const std::string path = file_of(generator_tensors(g), "g_" + c.block);
    const NamedTensors d_tensors = discriminator_tensors(d);
    const SafetensorsFile read = read_safetensors(path);
    ASSERT_EQ(read.tensors.size(), generator_tensors(g).size()) << what;

    torch::manual_seed(7);  // other initial weights, which the file must overwrite
    Generator g2(mc);
    Discriminator d2(mc);
    load_generator_tensors(g2, read.tensors, path);
    load_discriminator_tensors(d2, read_safetensors(file_of(d_tensors, "d_" + c.block)).tensors, "d.safetensors");
    g2->eval();
    d2->eval();
    torch::NoGradGuard no_grad;
    torch::manual_seed(11);  // the Hamburger's random bases, drawn alike for both
    const torch::Tensor a = g->forward(z, y), da = d->forward(a, y);
    torch::manual_seed(11);
    const torch::Tensor b = g2->forward(z, y), db = d2->forward(b, y);
    EXPECT_TRUE(torch::equal(a, b)) << what << ": max difference " << (a - b).abs().max().item<float>();
    EXPECT_TRUE(torch::equal(da, db)) << what;
    // And the test can fail: the other initialisation alone computes something else.
    torch::manual_seed(7);
    Generator other(mc);
    other->eval();
    torch::manual_seed(11);
    EXPECT_FALSE(torch::equal(a, other->forward(z, y))) << what;
  }
}

std::string load_error(const ModelConfig& mc, const NamedTensors& tensors) {
  Generator g(mc);
  try {
    load_generator_tensors(g, tensors, "G.safetensors");
  } catch (const CheckpointError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
    return m;
  }
  return "(loaded)";
}

TEST(GeneratorTensors, AnotherArchitectureOrAMissingOrExtraTensorIsNamed) {
  const ModelConfig mc = config_of({"ham", {}});
  const NamedTensors tensors = generator_tensors(Generator(mc));
  ASSERT_EQ(tensors.front().first, "G.linear.weight");

  ModelConfig wider = mc;
  wider.g_ch = 2 * mc.g_ch;
  const auto wide_shape = Generator(wider)->named_parameters()["linear.weight"].sizes();
  const std::string expected_wide = "[" + std::to_string(wide_shape[0]) + ", " + std::to_string(wide_shape[1]) + "]";
  EXPECT_NE(load_error(wider, tensors).find("G.safetensors: tensor 'G.linear.weight' has shape [" +
                                            std::to_string(tensors.front().second.size(0)) + ", " +
                                            std::to_string(mc.z_dim) + "], expected " + expected_wide),
            std::string::npos)
      << load_error(wider, tensors);

  ModelConfig sa = mc;
  sa.g_block.name = "sa";
  const std::string sa_error = load_error(sa, tensors);
  EXPECT_NE(sa_error.find("G.safetensors: tensor 'G.context.theta.weight' is missing"), std::string::npos) << sa_error;
  EXPECT_NE(sa_error.find("expected shape ["), std::string::npos) << sa_error;

  NamedTensors missing;
  for (const auto& t : tensors)
    if (t.first != "G.block1.bn2.running_var") missing.push_back(t);
  EXPECT_NE(load_error(mc, missing).find("tensor 'G.block1.bn2.running_var' is missing"), std::string::npos)
      << load_error(mc, missing);

  NamedTensors extra = tensors;
  extra.emplace_back("G.context.extra", torch::zeros({2}));
  extra.emplace_back("D.linear.weight", torch::zeros({1, 2}));  // another network's tensors are not G's business
  EXPECT_NE(load_error(mc, extra).find("tensor 'G.context.extra' is not part of this generator"), std::string::npos)
      << load_error(mc, extra);

  NamedTensors ints = tensors;
  ints.front().second = torch::zeros(ints.front().second.sizes(), torch::kLong);
  EXPECT_NE(load_error(mc, ints).find("'G.linear.weight' is Long; expected a float tensor"), std::string::npos)
      << load_error(mc, ints);

  // F16/BF16/F64 are converted to F32: the values that survive the round trip.
  NamedTensors wide_types = tensors;
  for (auto& t : wide_types) t.second = t.second.to(torch::kDouble);
  Generator g(mc);
  load_generator_tensors(g, wide_types, "G.safetensors");
  EXPECT_TRUE(torch::equal(g->named_parameters()["linear.weight"], tensors.front().second));
  EXPECT_EQ(g->named_parameters()["linear.weight"].scalar_type(), torch::kFloat);
}

}  // namespace
}  // namespace hamgan
