#pragma once
// Image sizes refused from the header, before any pixel is allocated: a
// 30-byte PNG or JPEG header may claim 16000 x 16000 (over a gigabyte decoded).
// Real photos (ImageNet's included) are far inside these limits.
#include <cstdint>
#include <string>

namespace hamgan {

inline constexpr uint64_t kMaxImageSide = uint64_t(1) << 14;
inline constexpr uint64_t kMaxImagePixels = uint64_t(1) << 26;  // 8192 x 8192

// "" when width x height is within both limits; otherwise what is wrong and
// what to do, for a message that names the file.
std::string image_size_problem(uint64_t width, uint64_t height);

}  // namespace hamgan
