#include "modules/resample_conv.h"

#include <map>
#include <mutex>
#include <string>
#include <tuple>

#include "core/errors.h"
#include "modules/fp32_region.h"

namespace hamgan {
namespace {

// Per axis, tap t of the 4-wide kernel as a combination of taps 0..2 of the 3-wide one.
// Upsampling: output 2i takes x[i-1]·w0 + x[i]·(w1 + w2), output 2i+1 takes x[i]·(w0 + w1) +
// x[i+1]·w2; a transposed convolution with stride 2 and padding 1 puts x[i] at outputs 2i-1+t.
// Pooling: the mean of outputs 2i and 2i+1 reads x[2i-1+t] with weight (w[t] + w[t-1]) / 2.
// Both axes at once: the (16, 9) Kronecker product, row 4a+b and column 3k+l holding M[a][k] M[b][l].
torch::Tensor fold_matrix(bool upsampling) {
  static const double up[12] = {0, 0, 1, 0, 1, 1, 1, 1, 0, 1, 0, 0};
  static const double pool[12] = {0.5, 0, 0, 0.5, 0.5, 0, 0, 0.5, 0.5, 0, 0, 0.5};
  const torch::Tensor m = torch::from_blob(const_cast<double*>(upsampling ? up : pool), {4, 3}, torch::kDouble);
  return torch::kron(m, m);
}

// The matrix on the weights' device and dtype, made once per (map, device, dtype): a copy to a
// GPU at every forward pass would hold the host up.
torch::Tensor fold_matrix_for(bool upsampling, const torch::TensorOptions& options) {
  static std::mutex mu;
  static std::map<std::tuple<bool, std::string, int>, torch::Tensor> made;
  const auto key = std::make_tuple(upsampling, options.device().str(), static_cast<int>(options.dtype().toScalarType()));
  std::lock_guard<std::mutex> lock(mu);
  auto it = made.find(key);
  if (it == made.end()) it = made.emplace(key, fold_matrix(upsampling).to(options)).first;
  return it->second;
}

// K[o][i] = M w[o][i] Mᵀ for every channel pair, as one (O·I, 9) x (9, 16) product.
torch::Tensor fold(const torch::Tensor& w, bool upsampling) {
  TORCH_CHECK(w.dim() == 4 && w.size(2) == 3 && w.size(3) == 3, "resample_conv: expected a (O, I, 3, 3) kernel, got ",
              w.sizes());
  Fp32Region fp32;  // the map is exact in float32; the convolution casts its result once under autocast
  const int64_t o = w.size(0), i = w.size(1);
  return torch::mm(w.reshape({o * i, 9}), fold_matrix_for(upsampling, w.options()).t()).view({o, i, 4, 4});
}

}  // namespace

const EnumNames<ResampleConv>& resample_conv_names() {
  static const EnumNames<ResampleConv> names("resample_conv",
                                             {{ResampleConv::kSeparate, "separate"}, {ResampleConv::kFolded, "folded"}});
  return names;
}

torch::Tensor upsampling_kernel(const torch::Tensor& w) { return fold(w, true).transpose(0, 1); }

torch::Tensor pooling_kernel(const torch::Tensor& w) { return fold(w, false); }

torch::Tensor upsample_conv3x3(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& bias) {
  return torch::conv_transpose2d(x, upsampling_kernel(w), bias, /*stride=*/2, /*padding=*/1);
}

torch::Tensor conv3x3_avgpool(const torch::Tensor& x, const torch::Tensor& w, const torch::Tensor& bias) {
  TORCH_CHECK(x.dim() == 4 && x.size(2) % 2 == 0 && x.size(3) % 2 == 0,
              "resample_conv: pooling needs an even height and width, got ", x.sizes());
  return torch::conv2d(x, pooling_kernel(w), bias, /*stride=*/2, /*padding=*/1);
}

}  // namespace hamgan
