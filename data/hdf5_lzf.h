#pragma once
// The LZF filter (HDF5 filter id 32000) as h5py writes it, which is what
// BigGAN-PyTorch's make_hdf5.py --compression produces. Debian's
// hdf5-plugin-lzf fails to load on its own (undefined lzf_decompress), so the
// filter is registered inside the program around Debian's liblzf.
#include <string>

namespace hamgan::hdf5 {

inline constexpr int kLzfFilterId = 32000;

// Registers the filter with the HDF5 library once per process; idempotent.
void register_lzf_filter();

// One line naming a filter a dataset needs but this build cannot decode, and
// where it comes from; "" when every filter of the dataset is available.
// `dcpl` is the dataset's creation property list id (hid_t).
std::string unavailable_filter(long long dcpl);

}  // namespace hamgan::hdf5
