#include "data/hdf5_storage.h"

#include <filesystem>

#include "core/errors.h"
#include "data/hdf5_lzf.h"

namespace hamgan {

void check_hdf5_storage(const std::string& path, const H5::DataSet& d, const char* name, uint64_t bytes) {
  const H5::DSetCreatPropList plist = d.getCreatePlist();
  const H5D_layout_t layout = plist.getLayout();
  const auto damaged = [&](uint64_t stored, uint64_t needed, const std::string& what) {
    return DataError(path + ": \"" + name + "\" stores " + std::to_string(stored) + " bytes " + what +
                     " but its shape needs " + std::to_string(needed) + " (file truncated or damaged)");
  };
  if ((layout == H5D_COMPACT || layout == H5D_CONTIGUOUS) && d.getStorageSize() < bytes)
    throw damaged(d.getStorageSize(), bytes, "in all");
  if (layout != H5D_CHUNKED) return;
  hsize_t chunk[H5S_MAX_RANK];
  const int rank = plist.getChunk(H5S_MAX_RANK, chunk);
  uint64_t chunk_bytes = d.getDataType().getSize();
  for (int i = 0; i < rank; ++i) chunk_bytes *= chunk[i];
  // LZF decompresses to the chunk size the file records: it must be the real one.
  if (plist.allFiltersAvail() && H5Pget_filter_by_id2(plist.getId(), hdf5::kLzfFilterId, nullptr, nullptr, nullptr,
                                                      0, nullptr, nullptr) >= 0) {
    unsigned flags = 0, values[8] = {0};
    size_t count = 8;
    H5Pget_filter_by_id2(plist.getId(), hdf5::kLzfFilterId, &flags, &count, values, 0, nullptr, nullptr);
    if (count < 3 || values[2] != chunk_bytes)
      throw DataError(path + ": \"" + name + "\" records LZF chunks of " + std::to_string(count < 3 ? 0 : values[2]) +
                      " bytes but its chunks hold " + std::to_string(chunk_bytes) + " (file damaged)");
  }
  // Unfiltered chunks are copied as stored: each must be exactly a chunk's size.
  // Any chunk is read whole at its recorded size: none can exceed the file.
  const bool filtered = plist.getNfilters() != 0;
  std::error_code ec;
  const uint64_t file_bytes = std::filesystem::file_size(path, ec);
  hsize_t chunks = 0;
  const H5::DataSpace space = d.getSpace();
  if (H5Dget_num_chunks(d.getId(), space.getId(), &chunks) < 0) return;
  for (hsize_t i = 0; i < chunks; ++i) {
    hsize_t offset[H5S_MAX_RANK];
    unsigned mask = 0;
    haddr_t addr = 0;
    hsize_t size = 0;
    if (H5Dget_chunk_info(d.getId(), space.getId(), i, offset, &mask, &addr, &size) < 0) continue;
    if ((!filtered && size != chunk_bytes) || (!ec && size > file_bytes))
      throw damaged(size, chunk_bytes, "in chunk " + std::to_string(i));
  }
}

}  // namespace hamgan
