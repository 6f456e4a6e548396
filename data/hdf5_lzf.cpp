#include "data/hdf5_lzf.h"

#include <hdf5.h>
#include <liblzf/lzf.h>

#include <cerrno>
#include <cstdlib>
#include <mutex>

#include "data/hdf5_common.h"

namespace hamgan::hdf5 {
namespace {

// h5py's cd_values: [0] filter revision, [1] LZF version, [2] chunk size in bytes.
constexpr unsigned kFilterRevision = 4;
constexpr unsigned kLzfVersion = 0x0105;

// Stores the chunk's byte size, so that decompression knows its output size.
herr_t lzf_set_local(hid_t dcpl, hid_t type, hid_t) {
  unsigned flags = 0;
  size_t nelements = 8;
  unsigned values[8] = {0};
  if (H5Pget_filter_by_id2(dcpl, kLzfFilterId, &flags, &nelements, values, 0, nullptr, nullptr) < 0) return -1;
  if (nelements < 3) nelements = 3;
  values[0] = kFilterRevision;
  values[1] = kLzfVersion;
  hsize_t chunk[32];
  const int rank = H5Pget_chunk(dcpl, 32, chunk);
  if (rank < 0) return -1;
  size_t bytes = H5Tget_size(type);
  if (bytes == 0) return -1;
  for (int i = 0; i < rank; ++i) bytes *= chunk[i];
  values[2] = static_cast<unsigned>(bytes);
  return H5Pmodify_filter(dcpl, kLzfFilterId, flags, nelements, values);
}

size_t lzf_filter(unsigned flags, size_t cd_nelmts, const unsigned cd_values[], size_t nbytes, size_t* buf_size,
                  void** buf) {
  if (flags & H5Z_FLAG_REVERSE) {
    // Decompress into a buffer of the chunk's size, growing it if the size was not recorded.
    // HDF5 copies a whole chunk out of the result whatever size is returned, so
    // the output must be exactly the chunk: its size as recorded (h5py always
    // records it; the reader checks the record against the dataset's shape).
    if (cd_nelmts < 3 || cd_values[2] == 0) return 0;
    const size_t chunk_bytes = cd_values[2];
    void* out = std::malloc(chunk_bytes);
    if (!out) return 0;
    count_chunk_decompression();
    const unsigned got = lzf_decompress(*buf, static_cast<unsigned>(nbytes), out, static_cast<unsigned>(chunk_bytes));
    if (got != chunk_bytes) {  // corrupt, or a different size than recorded
      std::free(out);
      return 0;
    }
    std::free(*buf);
    *buf = out;
    *buf_size = chunk_bytes;
    return got;
  }
  // Compress; a chunk that does not shrink is stored raw (the filter is optional).
  void* out = std::malloc(nbytes);
  if (!out) return 0;
  const unsigned got = lzf_compress(*buf, static_cast<unsigned>(nbytes), out, static_cast<unsigned>(nbytes));
  if (got == 0) {
    std::free(out);
    return 0;
  }
  std::free(*buf);
  *buf = out;
  *buf_size = nbytes;
  return got;
}

const H5Z_class2_t kLzfClass = {
    H5Z_CLASS_T_VERS, static_cast<H5Z_filter_t>(kLzfFilterId), 1, 1, "lzf", nullptr, lzf_set_local, lzf_filter};

}  // namespace

void register_lzf_filter() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (H5Zfilter_avail(kLzfFilterId) <= 0) H5Zregister(&kLzfClass);
  });
}

std::string unavailable_filter(long long dcpl_id) {
  const hid_t dcpl = static_cast<hid_t>(dcpl_id);
  const int n = H5Pget_nfilters(dcpl);
  for (int i = 0; i < n; ++i) {
    unsigned flags = 0, config = 0;
    size_t nelements = 0;
    char name[64] = "";
    const H5Z_filter_t id = H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &nelements, nullptr, sizeof name,
                                           name, &config);
    if (id < 0 || H5Zfilter_avail(id) > 0) continue;
    std::string source = "an HDF5 filter plugin (HDF5_PLUGIN_PATH)";
    if (id == 32001) source = "the Blosc plugin (Debian hdf5-filter-plugin-blosc-serial, or pip hdf5plugin)";
    if (id == 32004) source = "the LZ4 plugin (Debian hdf5-filter-plugin-lz4-serial, or pip hdf5plugin)";
    if (id == 32008) source = "the Bitshuffle plugin (Debian hdf5-filter-plugin-bitshuffle-serial, or pip hdf5plugin)";
    if (id == 32015) source = "the Zstandard plugin (Debian hdf5-filter-plugin-zstd-serial, or pip hdf5plugin)";
    if (id == 307) source = "the bzip2 plugin (pip hdf5plugin)";
    return "compressed with HDF5 filter " + std::to_string(id) + (name[0] ? std::string(" (") + name + ")" : "") +
           ", which this build cannot decode; install " + source + " or re-write the file with 'hamgan prepare'";
  }
  return "";
}

}  // namespace hamgan::hdf5
