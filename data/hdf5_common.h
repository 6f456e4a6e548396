#pragma once
// Names and conventions shared by the HDF5 reader and writer. The layout is
// BigGAN-PyTorch's make_hdf5.py (docs/data.md, "Sources"): `imgs` uint8
// (N, 3, H, W), `labels` int64 (N), chunks of 500 along axis 0. We add an
// `imgs` attribute "layout" ("NCHW" or, for StudioGAN files, "NHWC") and a
// root attribute "num_classes"; both are optional when reading.
#include <H5Cpp.h>

#include <cstdint>
#include <string>

namespace hamgan::hdf5 {

inline constexpr const char* kImages = "imgs";
inline constexpr const char* kLabels = "labels";
inline constexpr const char* kLayoutAttr = "layout";
inline constexpr const char* kNumClassesAttr = "num_classes";
inline constexpr int kChunk = 500;  // BigGAN's --chunk_size default

// Turns off HDF5's own error-stack printing for the calling thread (once per
// thread); errors are reported as one-line DataErrors instead.
void quiet_errors();

// Chunks this process has decompressed (LZF or deflate, by the whole-chunk
// reader or in the LZF filter HDF5 calls): what a test counts to see each
// chunk decoded once.
int64_t chunk_decompressions();
void count_chunk_decompression();

// "H5Dread failed" style detail from an HDF5 exception, for messages.
std::string detail(const H5::Exception& e);

}  // namespace hamgan::hdf5
