#pragma once
// The augmentations D sees (docs/recipe.md, "Augmentation"): DiffAugment's color,
// translation and cutout (Zhao et al., "Differentiable Augmentation for
// Data-Efficient GAN Training", NeurIPS 2020; mit-han-lab/data-efficient-gans,
// DiffAugment_pytorch.py), each transform applied to each image with probability p
// as in ADA (Karras et al., "Training Generative Adversarial Networks with Limited
// Data", NeurIPS 2020). The random draws are kept apart from their application:
// draw_augment() draws every per-image parameter on the CPU from a given generator
// (so CPU and CUDA runs see the same augmentations and a resumed run the same
// stream), apply_augment() applies them on the images' device, differentiably in
// the images and without reading anything back to the host.
#include <torch/torch.h>

#include <string>
#include <vector>

#include "core/enum_names.h"

namespace hamgan {

// The train key `augment`: none, DiffAugment at p = 1, or p steered by AdaController (gan/step/ada.h).
enum class AugmentMode { kNone, kDiffAug, kAda };
const EnumNames<AugmentMode>& augment_mode_names();  // "none" | "diffaug" | "ada"

// The policy's entries, applied in the order written (DiffAugment's order is color, translation, cutout).
enum class AugmentOp {
  kColor,        // brightness, then saturation, then contrast
  kTranslation,  // integer shift with zero padding
  kCutout,       // one zeroed square
};
const EnumNames<AugmentOp>& augment_op_names();  // key `augment_policy`
using AugmentPolicy = std::vector<AugmentOp>;
inline constexpr const char* kDefaultAugmentPolicy = "color,translation,cutout";

// "color,translation,cutout" (spaces around names allowed); an unknown, repeated or
// missing name throws ConfigError naming the known ones.
AugmentPolicy parse_augment_policy(const std::string& text);
std::string augment_policy_text(const AugmentPolicy& policy);

// DiffAugment's ratios (DiffAugment_pytorch.py): shifts up to 1/8 of a side, a cutout of half a side.
inline constexpr double kTranslationRatio = 0.125;
inline constexpr double kCutoutRatio = 0.5;
int64_t max_translation(int64_t side);  // int(side * 1/8 + 0.5): shifts lie in [-s, s]
int64_t cutout_side(int64_t side);      // int(side * 1/2 + 0.5)

// The transforms that each take their own per-image Bernoulli(p) draw: the columns of AugmentDraws::apply.
enum AugmentTransform : int64_t { kBrightness, kSaturation, kContrast, kTranslate, kCutoutSquare, kAugmentTransforms };

// Every random number of one augmentation of N images of height x width. Tensors
// hold one row per image; those of ops outside `policy` stay undefined.
struct AugmentDraws {
  AugmentPolicy policy;
  int64_t height = 0, width = 0;
  torch::Tensor brightness;  // (N) float, U(-0.5, 0.5): added
  torch::Tensor saturation;  // (N) float, U(0, 2): scales each pixel's deviation from its mean over channels
  torch::Tensor contrast;    // (N) float, U(0.5, 1.5): scales the deviation from the image's mean
  torch::Tensor shift;       // (N, 2) int64, rows then columns, each in [-s, s]: out(i, j) = in(i + dy, j + dx)
  // (N, 2) int64, rows then columns: the square covers [o - c/2, o - c/2 + c) on each axis,
  // clipped to the image, with o in [0, side - c % 2] (DiffAugment's offsets) and c = cutout_side.
  torch::Tensor cutout_offset;
  torch::Tensor apply;  // (N, kAugmentTransforms) bool: transform t is applied to image n

  int64_t size() const;  // N
  AugmentDraws rows(int64_t from, int64_t to) const;  // images [from, to): a rank's slice of a global draw
  // On `device`; from the CPU to CUDA through pinned memory, so the host does not wait for the copy.
  AugmentDraws to(torch::Device device) const;
};

// Draws for n images of height x width, in this order from `gen` (a CPU generator):
// per policy entry its parameters, then the (n, kAugmentTransforms) uniforms u whose
// u < p choose the applied transforms. The stream consumed depends on the policy and
// the sizes, never on p, so p = 0 and p = 1 draw the same parameters.
AugmentDraws draw_augment(const AugmentPolicy& policy, int64_t n, int64_t height, int64_t width, double p,
                          at::Generator& gen, torch::Device device = torch::kCPU);

// The policy applied to NCHW images (any channel count) with draws on their device;
// differentiable in `images`. Throws ConfigError when the draws do not fit the images.
torch::Tensor apply_augment(const torch::Tensor& images, const AugmentDraws& draws);

}  // namespace hamgan
