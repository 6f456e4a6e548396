// FID Inception-v3 (see inception.h); block layouts follow torchvision's
// Inception3 and pytorch-fid's FIDInceptionA/C/E_1/E_2 patches.
#include "metrics/inception.h"

#include <torch/serialize.h>

#include <fstream>
#include <iterator>

#include "core/errors.h"
#include "core/stop_signal.h"

namespace hamgan {

BasicConv2dImpl::BasicConv2dImpl(int64_t in, int64_t out, torch::ExpandingArray<2> kernel,
                                 torch::ExpandingArray<2> stride, torch::ExpandingArray<2> padding) {
  conv = register_module(
      "conv", torch::nn::Conv2d(torch::nn::Conv2dOptions(in, out, kernel).stride(stride).padding(padding).bias(false)));
  bn = register_module("bn", torch::nn::BatchNorm2d(torch::nn::BatchNorm2dOptions(out).eps(0.001)));
}

torch::Tensor BasicConv2dImpl::forward(const torch::Tensor& x) { return torch::relu(bn(conv(x))); }

namespace {

using E2 = torch::ExpandingArray<2>;

// TF average pool: 3×3, stride 1, pad 1, padded cells not counted.
torch::Tensor tf_avg_pool(const torch::Tensor& x) {
  return torch::avg_pool2d(x, 3, 1, 1, /*ceil_mode=*/false, /*count_include_pad=*/false);
}

class InceptionAImpl : public torch::nn::Module {
 public:
  InceptionAImpl(int64_t in, int64_t pool_features) {
    b1 = register_module("branch1x1", BasicConv2d(in, 64, 1));
    b5_1 = register_module("branch5x5_1", BasicConv2d(in, 48, 1));
    b5_2 = register_module("branch5x5_2", BasicConv2d(48, 64, 5, 1, 2));
    b3_1 = register_module("branch3x3dbl_1", BasicConv2d(in, 64, 1));
    b3_2 = register_module("branch3x3dbl_2", BasicConv2d(64, 96, 3, 1, 1));
    b3_3 = register_module("branch3x3dbl_3", BasicConv2d(96, 96, 3, 1, 1));
    bp = register_module("branch_pool", BasicConv2d(in, pool_features, 1));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return torch::cat({b1(x), b5_2(b5_1(x)), b3_3(b3_2(b3_1(x))), bp(tf_avg_pool(x))}, 1);
  }
  BasicConv2d b1{nullptr}, b5_1{nullptr}, b5_2{nullptr}, b3_1{nullptr}, b3_2{nullptr}, b3_3{nullptr}, bp{nullptr};
};
TORCH_MODULE(InceptionA);

class InceptionBImpl : public torch::nn::Module {  // unchanged by pytorch-fid
 public:
  explicit InceptionBImpl(int64_t in) {
    b3 = register_module("branch3x3", BasicConv2d(in, 384, 3, 2));
    d1 = register_module("branch3x3dbl_1", BasicConv2d(in, 64, 1));
    d2 = register_module("branch3x3dbl_2", BasicConv2d(64, 96, 3, 1, 1));
    d3 = register_module("branch3x3dbl_3", BasicConv2d(96, 96, 3, 2));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return torch::cat({b3(x), d3(d2(d1(x))), torch::max_pool2d(x, 3, 2)}, 1);
  }
  BasicConv2d b3{nullptr}, d1{nullptr}, d2{nullptr}, d3{nullptr};
};
TORCH_MODULE(InceptionB);

class InceptionCImpl : public torch::nn::Module {
 public:
  InceptionCImpl(int64_t in, int64_t c7) {
    b1 = register_module("branch1x1", BasicConv2d(in, 192, 1));
    s1 = register_module("branch7x7_1", BasicConv2d(in, c7, 1));
    s2 = register_module("branch7x7_2", BasicConv2d(c7, c7, E2({1, 7}), 1, E2({0, 3})));
    s3 = register_module("branch7x7_3", BasicConv2d(c7, 192, E2({7, 1}), 1, E2({3, 0})));
    d1 = register_module("branch7x7dbl_1", BasicConv2d(in, c7, 1));
    d2 = register_module("branch7x7dbl_2", BasicConv2d(c7, c7, E2({7, 1}), 1, E2({3, 0})));
    d3 = register_module("branch7x7dbl_3", BasicConv2d(c7, c7, E2({1, 7}), 1, E2({0, 3})));
    d4 = register_module("branch7x7dbl_4", BasicConv2d(c7, c7, E2({7, 1}), 1, E2({3, 0})));
    d5 = register_module("branch7x7dbl_5", BasicConv2d(c7, 192, E2({1, 7}), 1, E2({0, 3})));
    bp = register_module("branch_pool", BasicConv2d(in, 192, 1));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return torch::cat({b1(x), s3(s2(s1(x))), d5(d4(d3(d2(d1(x))))), bp(tf_avg_pool(x))}, 1);
  }
  BasicConv2d b1{nullptr}, s1{nullptr}, s2{nullptr}, s3{nullptr}, d1{nullptr}, d2{nullptr}, d3{nullptr}, d4{nullptr},
      d5{nullptr}, bp{nullptr};
};
TORCH_MODULE(InceptionC);

class InceptionDImpl : public torch::nn::Module {  // unchanged by pytorch-fid
 public:
  explicit InceptionDImpl(int64_t in) {
    t1 = register_module("branch3x3_1", BasicConv2d(in, 192, 1));
    t2 = register_module("branch3x3_2", BasicConv2d(192, 320, 3, 2));
    s1 = register_module("branch7x7x3_1", BasicConv2d(in, 192, 1));
    s2 = register_module("branch7x7x3_2", BasicConv2d(192, 192, E2({1, 7}), 1, E2({0, 3})));
    s3 = register_module("branch7x7x3_3", BasicConv2d(192, 192, E2({7, 1}), 1, E2({3, 0})));
    s4 = register_module("branch7x7x3_4", BasicConv2d(192, 192, 3, 2));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    return torch::cat({t2(t1(x)), s4(s3(s2(s1(x)))), torch::max_pool2d(x, 3, 2)}, 1);
  }
  BasicConv2d t1{nullptr}, t2{nullptr}, s1{nullptr}, s2{nullptr}, s3{nullptr}, s4{nullptr};
};
TORCH_MODULE(InceptionD);

class InceptionEImpl : public torch::nn::Module {
 public:
  // max_pool=false: FIDInceptionE_1 (avg, count_include_pad=false); true: FIDInceptionE_2.
  InceptionEImpl(int64_t in, bool max_pool) : max_pool_(max_pool) {
    b1 = register_module("branch1x1", BasicConv2d(in, 320, 1));
    t1 = register_module("branch3x3_1", BasicConv2d(in, 384, 1));
    t2a = register_module("branch3x3_2a", BasicConv2d(384, 384, E2({1, 3}), 1, E2({0, 1})));
    t2b = register_module("branch3x3_2b", BasicConv2d(384, 384, E2({3, 1}), 1, E2({1, 0})));
    d1 = register_module("branch3x3dbl_1", BasicConv2d(in, 448, 1));
    d2 = register_module("branch3x3dbl_2", BasicConv2d(448, 384, 3, 1, 1));
    d3a = register_module("branch3x3dbl_3a", BasicConv2d(384, 384, E2({1, 3}), 1, E2({0, 1})));
    d3b = register_module("branch3x3dbl_3b", BasicConv2d(384, 384, E2({3, 1}), 1, E2({1, 0})));
    bp = register_module("branch_pool", BasicConv2d(in, 192, 1));
  }
  torch::Tensor forward(const torch::Tensor& x) {
    auto t = t1(x);
    auto d = d2(d1(x));
    auto pooled = max_pool_ ? torch::max_pool2d(x, 3, 1, 1) : tf_avg_pool(x);
    return torch::cat({b1(x), torch::cat({t2a(t), t2b(t)}, 1), torch::cat({d3a(d), d3b(d)}, 1), bp(pooled)}, 1);
  }
  bool max_pool_;
  BasicConv2d b1{nullptr}, t1{nullptr}, t2a{nullptr}, t2b{nullptr}, d1{nullptr}, d2{nullptr}, d3a{nullptr},
      d3b{nullptr}, bp{nullptr};
};
TORCH_MODULE(InceptionE);

}  // namespace

FidInceptionV3Impl::FidInceptionV3Impl() {
  register_module("Conv2d_1a_3x3", BasicConv2d(3, 32, 3, 2));
  register_module("Conv2d_2a_3x3", BasicConv2d(32, 32, 3));
  register_module("Conv2d_2b_3x3", BasicConv2d(32, 64, 3, 1, 1));
  register_module("Conv2d_3b_1x1", BasicConv2d(64, 80, 1));
  register_module("Conv2d_4a_3x3", BasicConv2d(80, 192, 3));
  register_module("Mixed_5b", InceptionA(192, 32));
  register_module("Mixed_5c", InceptionA(256, 64));
  register_module("Mixed_5d", InceptionA(288, 64));
  register_module("Mixed_6a", InceptionB(288));
  register_module("Mixed_6b", InceptionC(768, 128));
  register_module("Mixed_6c", InceptionC(768, 160));
  register_module("Mixed_6d", InceptionC(768, 160));
  register_module("Mixed_6e", InceptionC(768, 192));
  register_module("Mixed_7a", InceptionD(768));
  register_module("Mixed_7b", InceptionE(1280, false));
  register_module("Mixed_7c", InceptionE(2048, true));
  register_module("fc", torch::nn::Linear(2048, 1008));
}

namespace {

torch::Tensor first_channels_hwc(const torch::Tensor& map) {  // (B, C, 17, 17) → (B, 2023)
  return map.slice(1, 0, kSfidChannels).permute({0, 2, 3, 1}).reshape({map.size(0), -1});
}

}  // namespace

InceptionOutput FidInceptionV3Impl::forward(const torch::Tensor& input, std::optional<SfidLayer> sfid) {
  auto call = [this](const char* name, const torch::Tensor& x) -> torch::Tensor {
    throw_if_stop_requested("feature extraction");  // a CPU batch takes up to minutes: stop between blocks
    auto m = named_children()[name];
    if (auto c = m->as<BasicConv2dImpl>()) return c->forward(x);
    if (auto a = m->as<InceptionAImpl>()) return a->forward(x);
    if (auto b = m->as<InceptionBImpl>()) return b->forward(x);
    if (auto c = m->as<InceptionCImpl>()) return c->forward(x);
    if (auto d = m->as<InceptionDImpl>()) return d->forward(x);
    return m->as<InceptionEImpl>()->forward(x);
  };
  auto x = call("Conv2d_1a_3x3", input);  // (B, 32, 149, 149)
  x = call("Conv2d_2a_3x3", x);
  x = call("Conv2d_2b_3x3", x);
  x = torch::max_pool2d(x, 3, 2);  // (B, 64, 73, 73)
  x = call("Conv2d_3b_1x1", x);
  x = call("Conv2d_4a_3x3", x);
  x = torch::max_pool2d(x, 3, 2);  // (B, 192, 35, 35)
  torch::Tensor spatial;
  for (const std::string n : {"Mixed_5b", "Mixed_5c", "Mixed_5d", "Mixed_6a", "Mixed_6b", "Mixed_6c", "Mixed_6d",
                              "Mixed_6e", "Mixed_7a", "Mixed_7b", "Mixed_7c"}) {
    // TF's `mixed_6/conv` is Mixed_6d's 1×1 branch (conv→BN→ReLU); recomputing that one
    // conv keeps InceptionC's forward unchanged.
    if (sfid == SfidLayer::adm && n == "Mixed_6d")
      spatial = first_channels_hwc(named_children()[n]->as<InceptionCImpl>()->b1(x));
    x = call(n.c_str(), x);  // (B, 2048, 8, 8) at the end
    if (sfid == SfidLayer::mixed_6e && n == "Mixed_6e") spatial = first_channels_hwc(x);
  }
  auto pool = x.mean({2, 3});  // adaptive average pool → (B, 2048)
  return {pool, named_children()["fc"]->as<torch::nn::LinearImpl>()->forward(pool), spatial};
}

torch::Tensor FidInceptionV3Impl::fc_weight() const {
  return named_children()["fc"]->as<torch::nn::LinearImpl>()->weight;
}

void load_pytorch_fid_weights(FidInceptionV3& net, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw CheckpointError(path + ": cannot open Inception weights (download pt_inception-2015-12-05-6726825d.pth "
                          "from pytorch-fid's 'fid_weights' release and pass --inception PATH or set HAMGAN_INCEPTION)");
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // torch.save writes a zip ("PK"); before PyTorch 1.6 it wrote a pickle stream opening with
  // protocol 2 and a long-int magic number (0x80 0x02 0x8a 0x0a). Anything else is not weights.
  const auto byte = [&](size_t i) { return i < bytes.size() ? static_cast<unsigned char>(bytes[i]) : 0u; };
  const bool zip = byte(0) == 'P' && byte(1) == 'K';
  if (!zip && byte(0) == 0x80 && byte(1) == 0x02 && byte(2) == 0x8a && byte(3) == 0x0a)
    throw CheckpointError(path + ": PyTorch legacy (pre-1.6) serialization, which LibTorch cannot read; convert it once "
                          "with '.venv/bin/python scripts/convert_inception.py " + path + " OUT.pth' and pass OUT.pth");
  if (!zip)
    throw CheckpointError(path + ": neither a torch.save file nor a legacy PyTorch one (" + std::to_string(bytes.size()) +
                          " bytes); pass pytorch-fid's pt_inception-2015-12-05-6726825d.pth as --inception PATH");
  torch::IValue value;
  try {
    value = torch::pickle_load(bytes);
  } catch (const c10::Error& e) {
    // LibTorch's zip reader speaks of central directories and records: say what it means.
    std::string why = e.what_without_backtrace();
    why = why.substr(0, why.find('\n'));
    throw CheckpointError(path + ": a damaged or truncated torch.save archive (" + std::to_string(bytes.size()) +
                          " bytes; the reader says: " + why.substr(0, 120) + "); download or convert it again");
  }
  if (!value.isGenericDict()) throw CheckpointError(path + ": expected a state dict (name → tensor)");
  std::map<std::string, torch::Tensor> dict;
  for (const auto& item : value.toGenericDict()) {
    if (item.key().isString() && item.value().isTensor())
      dict[item.key().toStringRef()] = item.value().toTensor();
  }
  torch::NoGradGuard no_grad;
  auto assign = [&](const std::string& name, torch::Tensor& target) {
    auto it = dict.find(name);
    if (it == dict.end()) {
      if (name.size() >= 19 && name.substr(name.size() - 19) == "num_batches_tracked") return;
      throw CheckpointError(path + ": missing '" + name + "' (not pytorch-fid's FID Inception weights)");
    }
    if (it->second.sizes() != target.sizes())
      throw CheckpointError(path + ": '" + name + "' has shape " + c10::str(it->second.sizes()) + ", expected " +
                            c10::str(target.sizes()) + " (not pytorch-fid's FID Inception weights)");
    target.copy_(it->second);
    dict.erase(it);
  };
  for (auto& p : net->named_parameters()) assign(p.key(), p.value());
  for (auto& b : net->named_buffers()) assign(b.key(), b.value());
  for (auto& [name, t] : dict)
    if (name.find("num_batches_tracked") == std::string::npos)
      throw CheckpointError(path + ": unexpected '" + name +
                            "' (torchvision's ImageNet Inception? FID needs pytorch-fid's FID weights)");
}

}  // namespace hamgan
