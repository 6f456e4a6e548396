#pragma once
// The two separable passes of PIL's resampling (Pillow's Resample.c, 8 bits
// per sample) on uint8 buffers, in PIL's own arithmetic: int32 sums of 22-bit
// fixed-point weights started at one half, shifted and clipped to 0..255.
// Integer sums do not depend on the order of their terms, so the unrolled and
// vectorised loops here give PIL's bytes exactly.
#include <cstdint>
#include <vector>

namespace hamgan {

constexpr int kPilPrecisionBits = 32 - 8 - 2;  // Resample.c PRECISION_BITS

// Per output pixel o: the first input pixel first[o], the number of taps
// count[o] and the weights weights[o·support_len + t], t < count[o].
struct PilTaps {
  int64_t support_len = 0;
  std::vector<int> first, count;
  std::vector<int> weights;
};

// Horizontal pass: input row r starts at in_rows[r] and holds in_w samples
// `pixel_stride` bytes apart (1 for planar images, C for interleaved ones, as
// libjpeg decodes them); output row r, taps.first.size() samples, goes to
// out_rows[r]. So a (C, H, W) view of interleaved pixels comes out planar.
void pil_resample_rows(const std::vector<const uint8_t*>& in_rows, int64_t pixel_stride, int64_t in_w,
                       const PilTaps& taps, const std::vector<uint8_t*>& out_rows);

// Vertical pass on each of `planes` contiguous planes of (in_h, width) →
// (taps.first.size(), width), written contiguously.
void pil_resample_columns(const uint8_t* in, int64_t planes, int64_t in_h, int64_t width, const PilTaps& taps,
                          uint8_t* out);

}  // namespace hamgan
