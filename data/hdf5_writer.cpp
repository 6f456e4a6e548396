#include "data/hdf5_writer.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/atomic_file.h"
#include "core/checked_file.h"
#include "core/errors.h"
#include "data/hdf5_common.h"
#include "data/hdf5_lzf.h"

namespace hamgan {

struct Hdf5Writer::State {
  std::string path;
  H5::H5File file;
  H5::DataSet imgs, labels;
  hsize_t c = 0, h = 0, w = 0;
  int64_t n = 0;
  bool open = true;
  bool in_memory = false;
  std::string image;  // in_memory: the finished file's bytes

  // After a failed write (a full disk, a file size limit) HDF5 cannot flush
  // its chunk cache and metadata, so every close fails; the objects' own
  // destructors and the library's clean-up at exit then close them again and
  // crash. The file is discarded anyway: pointing HDF5's descriptor at
  // /dev/null lets the flush succeed (into nothing) and everything close.
  void abandon() {
    if (!in_memory) {
      void* handle = nullptr;
      const int sink = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
      if (sink >= 0 && file.getId() >= 0 && H5Fget_vfd_handle(file.getId(), H5P_DEFAULT, &handle) >= 0 && handle)
        ::dup2(sink, *static_cast<int*>(handle));  // the default (sec2) driver's handle is its descriptor
      if (sink >= 0) ::close(sink);
    }
    for (H5::DataSet* d : {&imgs, &labels}) {
      try {
        d->close();
      } catch (const H5::Exception&) {
      }
    }
    try {
      file.close();
    } catch (const H5::Exception&) {
    }
    open = false;
  }
};

namespace {

// The path to name in messages: the final file, not write_atomically's temporary.
std::string shown_path(const std::string& path) {
  const std::string suffix = temporary_path_for("");
  if (path.size() > suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0)
    return path.substr(0, path.size() - suffix.size());
  return path;
}

// Why a write failed, from the errno the failing write left behind.
std::string write_failure_hint(int err) {
  if (err == ENOSPC || err == EDQUOT) return "the disk is full (" + std::string(std::strerror(err)) + ")";
  if (err == EFBIG)
    return "the file outgrew the file system's or the process's file size limit (" + std::string(std::strerror(err)) +
           ")";
  return "check the free space and permissions where it is written";
}

template <typename F>
void guarded(Hdf5Writer::State& s, const char* what, F&& f) {
  hdf5::quiet_errors();
  errno = 0;
  try {
    f();
  } catch (const H5::Exception& e) {
    const int err = errno;
    const std::string message = shown_path(s.path) + ": HDF5 error while " + what + " (" + hdf5::detail(e) + "); " +
                                write_failure_hint(err);
    s.abandon();
    throw DataError(message);
  }
}
}  // namespace

namespace {

// Images and labels plus a margin for HDF5's own metadata.
uint64_t estimated_bytes(int64_t n, int64_t c, int64_t h, int64_t w) {
  return static_cast<uint64_t>(n) * static_cast<uint64_t>(c * h * w + 8) * 101 / 100 + (1u << 20);
}

}  // namespace

Hdf5Writer Hdf5Writer::in_memory(const std::string& path, int64_t channels, int64_t height, int64_t width) {
  return Hdf5Writer(path, channels, height, width, -1);
}

Hdf5Writer::Hdf5Writer(Hdf5Writer&&) noexcept = default;

Hdf5Writer::Hdf5Writer(const std::string& path, int64_t channels, int64_t height, int64_t width,
                       int64_t expected_images, const std::string& compression)
    : s_(std::make_unique<State>()) {
  if (compression != "none" && compression != "gzip" && compression != "lzf")
    throw ConfigError("compression: unknown '" + compression + "'; use none, gzip or lzf");
  hdf5::register_lzf_filter();
  hdf5::quiet_errors();
  s_->path = path;
  s_->c = channels;
  s_->h = height;
  s_->w = width;
  s_->in_memory = expected_images < 0;
  // Compressed output may well fit where the raw size does not: only its write can tell.
  if (expected_images > 0 && compression == "none") {
    const std::string dir = std::filesystem::path(path).parent_path().string();
    const uint64_t need = estimated_bytes(expected_images, channels, height, width);
    const uint64_t free = free_bytes_at(dir.empty() ? "." : dir);
    if (free > 0 && free < need)
      throw DataError(shown_path(path) + ": " + std::to_string(expected_images) + " images need about " +
                      human_bytes(need) +
                      " but " + human_bytes(free) + " is free there: free space or write elsewhere");
  }
  guarded(*s_, "creating the file", [&] {
    H5::FileAccPropList fapl;
    if (s_->in_memory) fapl.setCore(16 << 20, /*backing_store=*/false);
    s_->file = H5::H5File(path, H5F_ACC_TRUNC, H5::FileCreatPropList::DEFAULT, fapl);
    // imgs: (0, C, H, W), unlimited along axis 0, chunks (500, C, H, W).
    hsize_t dims[4] = {0, s_->c, s_->h, s_->w}, maxdims[4] = {H5S_UNLIMITED, s_->c, s_->h, s_->w};
    hsize_t chunk[4] = {hdf5::kChunk, s_->c, s_->h, s_->w};
    H5::DSetCreatPropList ip;
    ip.setChunk(4, chunk);
    if (compression == "gzip") ip.setDeflate(4);
    if (compression == "lzf") ip.setFilter(hdf5::kLzfFilterId, H5Z_FLAG_OPTIONAL, 0, nullptr);
    // LZF has no checksum of its own: a flipped byte would decompress to wrong
    // pixels. Fletcher-32 (last, over the compressed bytes) lets every reader catch it.
    if (compression != "none") ip.setFletcher32();
    // Cache two chunks so appends that do not end on a chunk boundary are
    // completed in memory instead of read back from the file.
    const size_t chunk_bytes = size_t(hdf5::kChunk) * s_->c * s_->h * s_->w;
    H5::DSetAccPropList ap;
    ap.setChunkCache(521, 2 * chunk_bytes, 1.0);
    s_->imgs = s_->file.createDataSet(hdf5::kImages, H5::PredType::STD_U8LE, H5::DataSpace(4, dims, maxdims), ip,
                                      ap);
    H5::StrType str(H5::PredType::C_S1, H5T_VARIABLE);
    str.setCset(H5T_CSET_UTF8);
    H5::Attribute layout = s_->imgs.createAttribute(hdf5::kLayoutAttr, str, H5::DataSpace(H5S_SCALAR));
    layout.write(str, std::string("NCHW"));
    // labels: (0,), unlimited, chunks (500,).
    hsize_t ldims[1] = {0}, lmax[1] = {H5S_UNLIMITED}, lchunk[1] = {hdf5::kChunk};
    H5::DSetCreatPropList lp;
    lp.setChunk(1, lchunk);
    if (compression == "gzip") lp.setDeflate(4);
    if (compression == "lzf") lp.setFilter(hdf5::kLzfFilterId, H5Z_FLAG_OPTIONAL, 0, nullptr);
    if (compression != "none") lp.setFletcher32();
    s_->labels = s_->file.createDataSet(hdf5::kLabels, H5::PredType::STD_I64LE, H5::DataSpace(1, ldims, lmax), lp);
  });
}

// Unfinished means abandoned (an error elsewhere): the file lacks its
// attributes anyway, and a close that had to flush onto a full disk would fail.
Hdf5Writer::~Hdf5Writer() {
  if (s_ && s_->open) s_->abandon();
}

int64_t Hdf5Writer::count() const { return s_->n; }
const std::string& Hdf5Writer::file_image() const { return s_->image; }

void Hdf5Writer::append(const uint8_t* images, const int64_t* labels, int64_t n) {
  if (n <= 0) return;
  if (!s_->open) throw DataError(s_->path + ": append after finish");
  guarded(*s_, "writing images", [&] {
    const hsize_t first = s_->n, total = s_->n + n;
    hsize_t dims[4] = {total, s_->c, s_->h, s_->w};
    s_->imgs.extend(dims);
    H5::DataSpace fspace = s_->imgs.getSpace();
    hsize_t start[4] = {first, 0, 0, 0}, count[4] = {hsize_t(n), s_->c, s_->h, s_->w};
    fspace.selectHyperslab(H5S_SELECT_SET, count, start);
    s_->imgs.write(images, H5::PredType::NATIVE_UINT8, H5::DataSpace(4, count), fspace);

    hsize_t ldims[1] = {total};
    s_->labels.extend(ldims);
    H5::DataSpace lspace = s_->labels.getSpace();
    hsize_t lstart[1] = {first}, lcount[1] = {hsize_t(n)};
    lspace.selectHyperslab(H5S_SELECT_SET, lcount, lstart);
    s_->labels.write(labels, H5::PredType::NATIVE_INT64, H5::DataSpace(1, lcount), lspace);
  });
  s_->n += n;
}

void Hdf5Writer::finish(int64_t num_classes) {
  if (!s_->open) return;
  if (!s_->in_memory) {
    // A flush that fails leaves HDF5 unable to close the file at all (it
    // crashes on the next attempt), so the room the cached chunks and metadata
    // need is checked first; an append that fails is safe to abandon.
    // Cached: at most two image chunks (the cache size above), the labels' 1 MiB cache, metadata.
    const uint64_t per = s_->c * s_->h * s_->w, n = static_cast<uint64_t>(s_->n);
    const uint64_t pending = std::min<uint64_t>(2 * hdf5::kChunk * per, n * per) + std::min<uint64_t>(n * 8, 1u << 20) +
                             (1u << 20);
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(s_->path, ec);
    const std::string dir = std::filesystem::path(s_->path).parent_path().string();
    const uint64_t free = free_bytes_at(dir.empty() ? "." : dir);
    struct rlimit limit {};
    int err = 0;
    if (free > 0 && free < pending) err = ENOSPC;
    if (!ec && ::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
        size + pending > limit.rlim_cur)
      err = EFBIG;
    if (err) {
      const std::string message = shown_path(s_->path) + ": cannot finish the HDF5 file (the last " +
                                  human_bytes(pending) + " may not fit); " + write_failure_hint(err);
      s_->abandon();
      throw DataError(message);
    }
  }
  guarded(*s_, "finishing the file", [&] {
    H5::Attribute a = s_->file.createAttribute(hdf5::kNumClassesAttr, H5::PredType::STD_I64LE,
                                               H5::DataSpace(H5S_SCALAR));
    a.write(H5::PredType::NATIVE_INT64, &num_classes);
    a.close();
    s_->imgs.close();
    s_->labels.close();
    s_->file.flush(H5F_SCOPE_GLOBAL);
    if (s_->in_memory) {
      const ssize_t size = H5Fget_file_image(s_->file.getId(), nullptr, 0);
      if (size < 0) throw H5::FileIException("H5Fget_file_image", "cannot size the file image");
      s_->image.resize(static_cast<size_t>(size));
      if (H5Fget_file_image(s_->file.getId(), s_->image.data(), s_->image.size()) != size)
        throw H5::FileIException("H5Fget_file_image", "cannot copy the file image");
    }
    s_->file.close();
  });
  s_->open = false;
}

}  // namespace hamgan
