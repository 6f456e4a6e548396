#include "data/image_limits.h"

namespace hamgan {

std::string image_size_problem(uint64_t width, uint64_t height) {
  if (width <= kMaxImageSide && height <= kMaxImageSide && width * height <= kMaxImagePixels) return "";
  return std::to_string(width) + "x" + std::to_string(height) + " is over the limit for images (" +
         std::to_string(kMaxImageSide) + " pixels per side and " + std::to_string(kMaxImagePixels) +
         " pixels in all, 8192x8192; real photos such as ImageNet's are well within it), so it was not decoded; "
         "downscale the image or remove it";
}

}  // namespace hamgan
