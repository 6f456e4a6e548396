#include "data/image_transform.h"

#include "core/errors.h"
#include "data/image_ops.h"

namespace hamgan {

const std::vector<std::string>& transform_names() {
  static const std::vector<std::string> names = {kTransformDefault, kTransformBigGan, kTransformDhariwal};
  return names;
}

void check_transform_name(const std::string& transform) {
  for (const auto& name : transform_names())
    if (transform == name) return;
  throw ConfigError("data: unknown transform '" + transform + "'; use " + kTransformDefault + ", " +
                    kTransformBigGan + " or " + kTransformDhariwal);
}

torch::Tensor apply_transform(const torch::Tensor& image, const std::string& transform, int64_t size) {
  // Both recipes start from PIL's convert("RGB"), as their sources do.
  const auto rgb = convert_channels(image, 3);
  if (transform == kTransformDhariwal) return center_crop_dhariwal(rgb, size);
  check_transform_name(transform);
  return resize_bilinear_pil(center_crop_square(rgb), size, size);
}

}  // namespace hamgan
