// IDX files (MNIST, Fashion-MNIST), gzip-compressed or plain (zlib reads
// both). Format: big-endian magic 0x0000 0x08 <ndims>, ndims big-endian
// uint32 sizes, then uint8 data. Both files are read whole at open (47 MB for
// Fashion-MNIST train); images are padded or resized on access.
#include <zlib.h>

#include <filesystem>
#include <vector>

#include "core/errors.h"
#include "data/formats.h"
#include "data/image_ops.h"

namespace hamgan {
namespace {

struct IdxArray {
  std::vector<uint32_t> dims;
  std::vector<uint8_t> data;
};

struct GzFile {
  gzFile f;
  explicit GzFile(const std::string& path) : f(gzopen(path.c_str(), "rb")) {}
  ~GzFile() {
    if (f) gzclose_r(f);
  }
};

// Reads exactly n bytes; a short read means the file (or its gzip stream) ends early.
void read_exact(GzFile& gz, const std::string& path, void* dst, size_t n, const char* what) {
  auto* p = static_cast<uint8_t*>(dst);
  while (n > 0) {
    const unsigned step = static_cast<unsigned>(std::min<size_t>(n, 1u << 30));
    const int got = gzread(gz.f, p, step);
    if (got < 0) {
      int code = 0;
      const char* msg = gzerror(gz.f, &code);
      throw DataError(path + ": corrupt gzip data while reading " + what + " (" + msg + ")");
    }
    if (got == 0) throw DataError(path + ": file is truncated (ends inside the " + what + ")");
    p += got;
    n -= static_cast<size_t>(got);
  }
}

IdxArray read_idx(const std::string& path, uint32_t want_ndims) {
  GzFile gz(path);
  if (!gz.f) throw DataError(path + ": cannot open");
  uint8_t magic[4];
  read_exact(gz, path, magic, 4, "header");
  if (magic[0] != 0 || magic[1] != 0 || magic[2] != 0x08 || magic[3] != want_ndims)
    throw DataError(path + ": wrong magic number (expected an IDX uint8 file with " +
                    std::to_string(want_ndims) + " dimension(s)); is this an MNIST-style file?");
  IdxArray a;
  size_t total = 1;
  for (uint32_t d = 0; d < want_ndims; ++d) {
    uint8_t b[4];
    read_exact(gz, path, b, 4, "header");
    const uint32_t v = (uint32_t(b[0]) << 24) | (uint32_t(b[1]) << 16) | (uint32_t(b[2]) << 8) | b[3];
    if (v == 0 || v > (1u << 28)) throw DataError(path + ": implausible dimension " + std::to_string(v));
    a.dims.push_back(v);
    total *= v;
  }
  if (total > (size_t(1) << 34)) throw DataError(path + ": implausibly large header sizes");
  // Grown as the data arrive, so a header promising gigabytes costs only what
  // the file really holds (a gzip stream's size is unknown until read).
  constexpr size_t kStep = size_t(64) << 20;
  for (size_t done = 0; done < total;) {
    const size_t step = std::min(kStep, total - done);
    a.data.resize(done + step);
    read_exact(gz, path, a.data.data() + done, step, "data");
    done += step;
  }
  uint8_t extra;
  const int more = gzread(gz.f, &extra, 1);
  if (more < 0) {
    int code = 0;
    throw DataError(path + ": corrupt gzip stream (" + gzerror(gz.f, &code) + ")");
  }
  if (more > 0) throw DataError(path + ": has more data than its header announces");
  int code = Z_OK;
  const char* msg = gzerror(gz.f, &code);  // a cut gzip trailer shows up only here
  if (code != Z_OK) throw DataError(path + ": file is truncated or corrupt (" + msg + ")");
  return a;
}

// The file for `stem`, gzipped or not.
std::string find_file(const std::string& dir, const std::string& stem) {
  namespace fs = std::filesystem;
  for (const char* ext : {".gz", ""}) {
    const auto p = fs::path(dir) / (stem + ext);
    if (fs::is_regular_file(p)) return p.string();
  }
  throw DataError((fs::path(dir) / (stem + ".gz")).string() + ": missing (expected MNIST-style IDX files)");
}

std::string prefix_for(const std::string& split) {
  if (split == "train") return "train";
  if (split == "test" || split == "t10k") return "t10k";
  throw ConfigError("data: split must be train or test, got '" + split + "'");
}

class IdxDataset : public Dataset {
 public:
  explicit IdxDataset(const DatasetSpec& spec) : spec_(spec) {
    const std::string prefix = prefix_for(spec.split);
    images_path_ = find_file(spec.path, prefix + "-images-idx3-ubyte");
    const std::string labels_path = find_file(spec.path, prefix + "-labels-idx1-ubyte");
    IdxArray images = read_idx(images_path_, 3);
    IdxArray labels = read_idx(labels_path, 1);
    if (images.dims[0] != labels.dims[0])
      throw DataError(labels_path + ": " + std::to_string(labels.dims[0]) + " labels for " +
                      std::to_string(images.dims[0]) + " images in " + images_path_);
    n_ = images.dims[0];
    src_h_ = images.dims[1];
    src_w_ = images.dims[2];
    pixels_ = std::move(images.data);
    labels_ = std::move(labels.data);
    int max_label = 0;
    for (uint8_t l : labels_) max_label = std::max<int>(max_label, l);
    num_classes_ = max_label + 1;
  }
  int64_t size() const override { return n_; }
  Example get(int64_t index) const override {
    TORCH_CHECK(index >= 0 && index < n_, "IDX index out of range");
    // Owns a copy: from_blob over const storage, then pad/resize produce new tensors.
    auto src = torch::from_blob(const_cast<uint8_t*>(pixels_.data()) + index * src_h_ * src_w_,
                                {1, src_h_, src_w_}, torch::kUInt8);
    torch::Tensor img;
    if (src_h_ == spec_.size && src_w_ == spec_.size)
      img = src.clone();
    else if (spec_.idx_resize)
      img = resize_bilinear_pil(src, spec_.size, spec_.size);
    else
      img = pad_to_square(src, spec_.size, 0);  // background is 0 in MNIST/Fashion-MNIST
    return {img, labels_[index]};
  }
  int64_t label(int64_t index) const override { return labels_.at(index); }
  int64_t num_classes() const override { return num_classes_; }
  int64_t channels() const override { return 1; }
  int64_t height() const override { return spec_.size; }
  int64_t width() const override { return spec_.size; }
  std::string describe() const override {
    return "IDX " + images_path_ + " (" + std::to_string(src_h_) + "x" + std::to_string(src_w_) +
           (spec_.idx_resize ? " resized" : " padded") + " to " + std::to_string(spec_.size) + ")";
  }

 private:
  DatasetSpec spec_;
  std::string images_path_;
  int64_t n_ = 0, src_h_ = 0, src_w_ = 0, num_classes_ = 0;
  std::vector<uint8_t> pixels_, labels_;
};

}  // namespace

bool looks_like_idx_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  for (const char* stem : {"train-images-idx3-ubyte", "t10k-images-idx3-ubyte"})
    for (const char* ext : {".gz", ""})
      if (fs::exists(fs::path(dir) / (std::string(stem) + ext))) return true;
  return false;
}

std::shared_ptr<Dataset> open_idx_dataset(const DatasetSpec& spec) {
  return std::make_shared<IdxDataset>(spec);
}

}  // namespace hamgan
