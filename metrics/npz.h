#pragma once
// NumPy .npy/.npz files without Python: the .npz written by np.savez (stored
// members) and np.savez_compressed (deflated members), read and written through
// libzip. The .npy header is the documented v1/v2/v3 format:
// magic "\x93NUMPY", version, little-endian header length, then an ASCII dict
// {'descr': '<f8', 'fortran_order': False, 'shape': (2048, 2048), } padded
// with spaces to a multiple of 64 bytes and ending in '\n'.
#include <torch/torch.h>

#include <map>
#include <string>

namespace hamgan {

using NpzArrays = std::map<std::string, torch::Tensor>;  // member name without ".npy"

// Parses one .npy blob. Supported dtypes: <f8 <f4 <f2 <i8 <i4 <i2 |i1 |u1 |b1
// (and '=' / native little-endian spellings); Fortran order is turned into C
// order. Throws DataError naming `what` on anything else.
torch::Tensor parse_npy(const std::string& bytes, const std::string& what);
// Serialises a contiguous CPU tensor as .npy v1 (v2 if the header needs it).
std::string format_npy(const torch::Tensor& array);

// Reads every member (or only `only`, when non-empty) of an .npz file.
NpzArrays read_npz(const std::string& path, const std::vector<std::string>& only = {});
// Writes atomically; compressed=true deflates members like np.savez_compressed.
void write_npz(const std::string& path, const NpzArrays& arrays, bool compressed);

}  // namespace hamgan
