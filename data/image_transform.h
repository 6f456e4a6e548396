#pragma once
// The named crop-and-resize recipes `--transform` chooses between, for sources
// of arbitrary image sizes (image folders, ZIP archives).
#include <torch/torch.h>

#include <string>
#include <vector>

namespace hamgan {

// The source's own treatment: BigGAN's crop for image folders, pixels as stored
// for ZIP, padding (or --idx_resize) for IDX, as stored for HDF5.
inline constexpr const char* kTransformDefault = "default";
// BigGAN-PyTorch's make_hdf5.py: centred square crop, PIL BILINEAR resize.
inline constexpr const char* kTransformBigGan = "center-crop-biggan";
// ADM's center_crop_arr (EDM2's dataset_tool.py --transform center-crop-dhariwal).
inline constexpr const char* kTransformDhariwal = "center-crop-dhariwal";

// Every accepted name, the default first.
const std::vector<std::string>& transform_names();

// Throws ConfigError naming the accepted values unless `transform` is one of them.
void check_transform_name(const std::string& transform);

// RGB (gray replicated) cropped and resized to size×size by the named recipe
// (kTransformDefault means BigGAN's).
torch::Tensor apply_transform(const torch::Tensor& image, const std::string& transform, int64_t size);

}  // namespace hamgan
