// R1/R2's input-gradient norms and their gradient in every D parameter, for every context block,
// against PyTorch autograd on the Python mirror of the discriminator (tests/python/penalty_reference.py,
// one process for all cases): D planted with a seed (context σ 0.5, so the block is in every
// gradient; biases away from 0), written as `hamgan export --with_d` writes it, both sides in float32
// on the CPU, in training mode, from the same u vectors and the same initial Hamburger bases.
#include <ATen/CPUGeneratorImpl.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/safetensors.h"
#include "core/text.h"
#include "gan/interop/generator_tensors.h"
#include "gan/model/discriminator.h"
#include "gan/step/penalties.h"
#include "modules/ham_block.h"
#include "tests/common/python_reference.h"

namespace hamgan {
namespace {

constexpr int64_t kBatch = 4;
constexpr double kTolerance = 1e-5;

struct PenaltyCase {
  std::string name;
  std::string block;
  std::map<std::string, std::string> options;
  int64_t d_ch = 8;  // the context block sits at 16×16 with d_ch channels
};

// Every block; the Hamburger with each decomposition from random and from online bases, with BPTT,
// and at a rank above the fused CPU kernel's (its other one-step node). VQ at T = 0.1: at its default
// 0.01 the codes' softmax scales float32 rounding by 1/T, which alone puts either side about 1e-5 from
// a float64 evaluation (measured), where the comparison is meant to see the implementations differ.
std::vector<PenaltyCase> every_block() {
  return {{"none", "none", {}},
          {"sa", "sa", {}},
          {"sa_dense", "sa_dense", {}},
          {"ylg", "ylg", {}, 64},
          {"ea", "ea", {{"ea_memory", "16"}}},
          {"ea_heads2", "ea", {{"ea_memory", "16"}, {"ea_heads", "2"}}},
          {"ham_nmf", "ham", {{"ham_type", "nmf"}, {"ham_rank", "4"}}},
          {"ham_vq", "ham", {{"ham_type", "vq"}, {"ham_rank", "4"}, {"ham_temperature", "0.1"}}},
          {"ham_cd", "ham", {{"ham_type", "cd"}, {"ham_rank", "4"}}},
          {"ham_nmf_online", "ham", {{"ham_type", "nmf"}, {"ham_rank", "4"}, {"ham_init", "online"}}},
          {"ham_vq_online", "ham",
           {{"ham_type", "vq"}, {"ham_rank", "4"}, {"ham_temperature", "0.1"}, {"ham_init", "online"}}},
          {"ham_cd_online", "ham", {{"ham_type", "cd"}, {"ham_rank", "4"}, {"ham_init", "online"}}},
          {"ham_nmf_bptt", "ham", {{"ham_type", "nmf"}, {"ham_rank", "4"}, {"ham_gradient", "bptt"}}},
          {"ham_nmf_rank9", "ham", {{"ham_type", "nmf"}, {"ham_rank", "9"}}, 16}};
}

ModelConfig case_config(const PenaltyCase& c) {
  ModelConfig m;
  m.resolution = 32;
  m.image_channels = 3;
  m.num_classes = 10;
  m.g_ch = 4;
  m.d_ch = c.d_ch;
  m.d_block.name = c.block;
  m.block_options = c.options;
  return m;
}

// What the C++ side computed for one case, by name: logits, norms, grad.<parameter>.
using Results = std::map<std::string, torch::Tensor>;

// Builds and plants case `c`'s D, writes it and the inputs into `work`, and computes the penalty.
Results prepare_case(const PenaltyCase& c, const std::string& work, int64_t bases_seed) {
  torch::manual_seed(41);
  const ModelConfig config = case_config(c);
  Discriminator d(config);
  {
    torch::NoGradGuard no_grad;
    for (auto& p : d->named_parameters()) {
      if (ends_with(p.key(), "sigma")) p.value().fill_(0.5);
      if (ends_with(p.key(), ".bias")) p.value().copy_(0.1 * torch::randn_like(p.value()));
    }
  }
  d->train();
  if (auto ham = std::dynamic_pointer_cast<HamBlockImpl>(d->context()); ham && bases_seed >= 0)
    ham->set_generator(at::make_generator<at::CPUGeneratorImpl>(bases_seed));
  SafetensorsFile file;
  file.tensors = discriminator_tensors(d);  // the u vectors before the forward's power iteration
  file.metadata = {{"format", "hamgan"}, {"format_version", "1"}, {"networks", "D"},
                   {"model", model_config_to_text(config)}};
  write_safetensors(work + "/D.safetensors", file);
  const torch::Tensor images = 0.5 * torch::randn({kBatch, 3, 32, 32});
  const torch::Tensor labels = torch::randint(0, 10, {kBatch}, torch::kLong);
  write_safetensors(work + "/inputs.safetensors", {{{"images", images}, {"labels", labels}}, {}});

  const torch::Tensor x = images.clone().requires_grad_(true);
  const torch::Tensor logits = d->forward(x, labels);
  const torch::Tensor norms = input_gradient_sq_norms(logits, x);
  std::vector<torch::Tensor> params;
  std::vector<std::string> names;
  for (const auto& p : d->named_parameters()) {
    names.push_back(p.key());
    params.push_back(p.value());
  }
  const auto grads = torch::autograd::grad({norms.mean()}, params, {}, /*retain_graph=*/false,
                                           /*create_graph=*/false, /*allow_unused=*/true);
  Results r{{"logits", logits.detach()}, {"norms", norms.detach()}};
  for (size_t i = 0; i < names.size(); ++i)
    r["grad." + names[i]] = grads[i].defined() ? grads[i] : torch::zeros_like(params[i]);
  return r;
}

double largest(const torch::Tensor& t) { return t.abs().max().item<double>(); }

// max |got − want| relative to `scale`.
double scaled_error(const torch::Tensor& got, const torch::Tensor& want, double scale) {
  return (got.to(torch::kDouble) - want.to(torch::kDouble)).abs().max().item<double>() / scale;
}

TEST(PenaltyReference, EveryBlockMatchesPyTorchAutograd) {
  const int threads = torch::get_num_threads();
  torch::set_num_threads(1);  // networks this small run fastest on one thread, as the reference does
  const std::string dir = test::scratch_dir("interop", "penalty_reference");
  std::map<std::string, Results> cpp;
  {
    std::ofstream cases(dir + "/cases.txt");
    int64_t seed = 100;
    for (const auto& c : every_block()) {
      const std::string work = dir + "/" + c.name;
      std::filesystem::create_directories(work);
      const bool random_bases = c.block == "ham" && !c.options.count("ham_init");
      const int64_t bases_seed = random_bases ? seed++ : -1;
      ASSERT_NO_THROW(cpp[c.name] = prepare_case(c, work, bases_seed)) << c.name;
      cases << c.name << " " << bases_seed << "\n";
    }
  }
  torch::set_num_threads(threads);
  RUN_REFERENCE("penalty_reference.py", dir);
  for (const auto& c : every_block()) {
    SCOPED_TRACE(c.name);
    const Results& got = cpp.at(c.name);
    const SafetensorsFile ref = read_safetensors(dir + "/" + c.name + "/reference.safetensors");
    std::map<std::string, torch::Tensor> want(ref.tensors.begin(), ref.tensors.end());
    ASSERT_EQ(want.size(), got.size()) << "the same parameters on both sides";
    EXPECT_LT(scaled_error(got.at("logits"), want.at("logits"), largest(want.at("logits"))), kTolerance);
    // Each image's squared norm to 1e-5 of itself.
    const auto norm_error = ((got.at("norms") - want.at("norms")).abs() / want.at("norms")).max().item<double>();
    EXPECT_LT(norm_error, kTolerance);
    EXPECT_GT(want.at("norms").min().item<double>(), 0.0);
    // Each gradient tensor to 1e-5 of its largest entry. A tensor below 1e-4 of the largest entry of
    // any (D's first biases, whose exact gradient under EA's softmax over positions is 0) holds only
    // rounding: it is held to 1e-9 of that largest entry instead.
    double overall = 0;
    for (const auto& [name, tensor] : want)
      if (name.rfind("grad.", 0) == 0) overall = std::max(overall, largest(tensor));
    double worst = 0;
    std::string worst_name;
    for (const auto& [name, tensor] : want) {
      if (name.rfind("grad.", 0) != 0) continue;
      ASSERT_TRUE(got.count(name)) << name;
      const double e = scaled_error(got.at(name), tensor, std::max(largest(tensor), 1e-4 * overall));
      EXPECT_LT(e, kTolerance) << name << " (largest entry " << largest(tensor) << " of " << overall << ")";
      if (e > worst) worst = e, worst_name = name;
      // The block's parameters reach the penalty well above that floor: each is compared to itself.
      if (c.block != "none" && name.rfind("grad.context.", 0) == 0) {
        EXPECT_GT(largest(tensor), 1e-4 * overall) << name;
      }
    }
    char summary[160];
    std::snprintf(summary, sizeof summary, "norms %.1e, worst gradient %.1e at %s", norm_error, worst,
                  worst_name.c_str());
    ::testing::Test::RecordProperty(c.name, summary);
  }
}

}  // namespace
}  // namespace hamgan
