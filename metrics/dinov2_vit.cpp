#include "metrics/dinov2_vit.h"

#include <map>

#include "core/errors.h"
#include "core/safetensors.h"

namespace hamgan {
namespace {

const std::string kConvertVit = "write it with scripts/convert_dinov2.py --out FILE.safetensors";
constexpr int64_t kImageSize = 224;

// The tensors of one file, taken by name with their shapes checked; what is left over is an error.
class VitTensorTable {
 public:
  VitTensorTable(SafetensorsFile file, std::string path) : path_(std::move(path)) {
    for (auto& [name, tensor] : file.tensors) tensors_[name] = std::move(tensor);
  }
  torch::Tensor take(const std::string& name, const std::vector<int64_t>& shape, torch::Device device) {
    const auto it = tensors_.find(name);
    if (it == tensors_.end())
      throw CheckpointError(path_ + ": tensor " + name + " is missing; " + kConvertVit);
    const torch::Tensor t = it->second;
    if (t.sizes().vec() != shape)
      throw CheckpointError(path_ + ": tensor " + name + " has shape " + c10::str(t.sizes()) + ", expected " +
                            c10::str(c10::IntArrayRef(shape)) + "; " + kConvertVit);
    if (!t.is_floating_point())
      throw CheckpointError(path_ + ": tensor " + name + " is not floating point; " + kConvertVit);
    if (!torch::isfinite(t).all().item<bool>())
      throw CheckpointError(path_ + ": tensor " + name + " holds NaN or Inf; the weights are damaged: " + kConvertVit);
    tensors_.erase(it);
    return t.to(device, torch::kFloat32).contiguous();
  }
  const torch::Tensor* find(const std::string& name) const {
    const auto it = tensors_.find(name);
    return it == tensors_.end() ? nullptr : &it->second;
  }
  void expect_empty() const {
    if (!tensors_.empty())
      throw CheckpointError(path_ + ": tensor " + tensors_.begin()->first + " is not part of a DINOv2 ViT (" +
                            std::to_string(tensors_.size()) + " such); " + kConvertVit);
  }

 private:
  std::string path_;
  std::map<std::string, torch::Tensor> tensors_;
};

int64_t vit_metadata_int(const SafetensorsFile& f, const std::string& key, const std::string& path) {
  const auto it = f.metadata.find(key);
  try {
    if (it != f.metadata.end()) return std::stoll(it->second);
  } catch (const std::exception&) {
  }
  throw CheckpointError(path + ": metadata " + key + " is missing or not an integer; " + kConvertVit);
}

}  // namespace

Dinov2Vit::Dinov2Vit(const std::string& path, torch::Device device) {
  SafetensorsFile file;
  try {
    file = read_safetensors(path);
  } catch (const DataError& e) {
    throw CheckpointError(std::string(e.what()) + "; " + kConvertVit);
  }
  const auto meta = [&](const char* key) {
    const auto it = file.metadata.find(key);
    return it == file.metadata.end() ? std::string() : it->second;
  };
  if (meta("format") != "hamgan-dinov2" || meta("format_version") != "1")
    throw CheckpointError(path + ": not a DINOv2 file of format hamgan-dinov2 version 1 (metadata format \"" +
                          meta("format") + "\", format_version \"" + meta("format_version") + "\"); " + kConvertVit);
  if (meta("mlp_activation") != "gelu_erf")
    throw CheckpointError(path + ": MLP activation \"" + meta("mlp_activation") + "\" is not the GELU DINOv2's "
                          "ViT-S/B/L use (ViT-g's SwiGLU is not supported); " + kConvertVit);
  if (vit_metadata_int(file, "image_size", path) != kImageSize)
    throw CheckpointError(path + ": built for " + meta("image_size") + " px input; FD_DINOv2 runs at 224: " + kConvertVit);
  patch_ = vit_metadata_int(file, "patch_size", path);
  heads_ = vit_metadata_int(file, "num_heads", path);
  const int64_t depth = vit_metadata_int(file, "depth", path);
  try {
    eps_ = std::stod(meta("layer_norm_eps"));
  } catch (const std::exception&) {
    throw CheckpointError(path + ": metadata layer_norm_eps is missing or not a number; " + kConvertVit);
  }
  VitTensorTable t(std::move(file), path);
  const torch::Tensor* cls = t.find("cls_token");
  const torch::Tensor* fc1 = t.find("blocks.0.mlp.fc1.weight");
  if (!cls || cls->dim() != 3 || !fc1 || fc1->dim() != 2)
    throw CheckpointError(path + ": cls_token (1, 1, D) or blocks.0.mlp.fc1.weight is missing; " + kConvertVit);
  dim_ = cls->size(2);
  const int64_t hidden = fc1->size(0), side = patch_ > 0 ? kImageSize / patch_ : 0;
  const bool shape_ok = patch_ >= 1 && kImageSize % patch_ == 0 && heads_ >= 1 && dim_ % heads_ == 0 && depth >= 1 &&
                        dim_ <= kDinov2MaxFeatureDim;
  if (!shape_ok)
    throw CheckpointError(path + ": patch " + std::to_string(patch_) + ", " + std::to_string(heads_) +
                          " heads, depth " + std::to_string(depth) + " and width " + std::to_string(dim_) +
                          " are no DINOv2 ViT; " + kConvertVit);
  const int64_t d = dim_;
  patch_w_ = t.take("proj.weight", {d, 3, patch_, patch_}, device);
  patch_b_ = t.take("proj.bias", {d}, device);
  cls_ = t.take("cls_token", {1, 1, d}, device);
  pos_ = t.take("pos_embed", {1, 1 + side * side, d}, device);
  for (int64_t i = 0; i < depth; ++i) {
    const std::string p = "blocks." + std::to_string(i) + ".";
    blocks_.push_back({t.take(p + "norm1.weight", {d}, device), t.take(p + "norm1.bias", {d}, device),
                       t.take(p + "attn.qkv.weight", {3 * d, d}, device), t.take(p + "attn.qkv.bias", {3 * d}, device),
                       t.take(p + "attn.proj.weight", {d, d}, device), t.take(p + "attn.proj.bias", {d}, device),
                       t.take(p + "ls1.gamma", {d}, device), t.take(p + "norm2.weight", {d}, device),
                       t.take(p + "norm2.bias", {d}, device), t.take(p + "mlp.fc1.weight", {hidden, d}, device),
                       t.take(p + "mlp.fc1.bias", {hidden}, device), t.take(p + "mlp.fc2.weight", {d, hidden}, device),
                       t.take(p + "mlp.fc2.bias", {d}, device), t.take(p + "ls2.gamma", {d}, device)});
  }
  norm_w_ = t.take("norm.weight", {d}, device);
  norm_b_ = t.take("norm.bias", {d}, device);
  t.expect_empty();
}

torch::Tensor Dinov2Vit::forward(const torch::Tensor& images) const {
  TORCH_CHECK(images.dim() == 4 && images.size(1) == 3 && images.size(2) == kImageSize && images.size(3) == kImageSize,
              "DINOv2: expected (N, 3, 224, 224) images, got ", images.sizes());
  const int64_t n = images.size(0), d = dim_, head_dim = dim_ / heads_;
  auto x = torch::conv2d(images, patch_w_, patch_b_, {patch_, patch_}).flatten(2).transpose(1, 2);  // (N, T-1, D)
  x = torch::cat({cls_.expand({n, 1, d}), x}, 1) + pos_;
  const int64_t tokens = x.size(1);
  for (const Block& b : blocks_) {
    auto h = torch::layer_norm(x, {d}, b.norm1_w, b.norm1_b, eps_);
    auto qkv = torch::linear(h, b.qkv_w, b.qkv_b).reshape({n, tokens, 3, heads_, head_dim}).permute({2, 0, 3, 1, 4});
    auto attended = at::scaled_dot_product_attention(qkv[0], qkv[1], qkv[2]);  // softmax(QKᵀ/√d_h) V
    attended = attended.transpose(1, 2).reshape({n, tokens, d});
    x = x + torch::linear(attended, b.proj_w, b.proj_b) * b.ls1;
    h = torch::layer_norm(x, {d}, b.norm2_w, b.norm2_b, eps_);
    x = x + torch::linear(torch::gelu(torch::linear(h, b.fc1_w, b.fc1_b)), b.fc2_w, b.fc2_b) * b.ls2;
  }
  return torch::layer_norm(x, {d}, norm_w_, norm_b_, eps_).select(1, 0).contiguous();
}

}  // namespace hamgan
