#pragma once
// Checks that an HDF5 dataset's storage holds what its shape promises, before
// anything is read: HDF5 itself reads a short compact dataset past the end of
// its own buffer and trusts the chunk sizes a file records (found by fuzzing,
// docs/reliability.md).
#include <H5Cpp.h>

#include <cstdint>
#include <string>

namespace hamgan {

// DataError naming `name` in the file at `path` when the stored bytes (in all,
// per chunk, or as LZF records them) differ from the `bytes` its shape needs.
void check_hdf5_storage(const std::string& path, const H5::DataSet& d, const char* name, uint64_t bytes);

}  // namespace hamgan
