// HDF5 datasets in BigGAN-PyTorch's layout (NCHW) or StudioGAN's (NHWC),
// read image by image (or run by run) without loading the file, unless
// in_memory asks for it. Layout: the `layout` attribute if present, else the
// shape ((N, 1|3, H, W) is NCHW, (N, H, W, 1|3) is NHWC; ambiguous → NCHW).

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "core/errors.h"
#include "core/stop_signal.h"
#include "data/formats.h"
#include "data/hdf5_chunks.h"
#include "data/hdf5_common.h"
#include "data/hdf5_lzf.h"
#include "data/hdf5_storage.h"
#include "data/image_io.h"
#include "data/memory_budget.h"

namespace hamgan {
namespace {
using hdf5::register_lzf_filter;
using hdf5::unavailable_filter;

int64_t read_int_attr(const H5::H5Object& obj, const char* name) {
  H5::Attribute a = obj.openAttribute(name);
  int64_t v = 0;
  a.read(H5::PredType::NATIVE_INT64, &v);
  return v;
}

class Hdf5Dataset : public Dataset {
 public:
  explicit Hdf5Dataset(const DatasetSpec& spec) : path_(spec.path) {
    try {
      open(spec);
    } catch (const H5::Exception& e) {
      throw DataError(path_ + ": HDF5 error while opening (" + hdf5::detail(e) + ")");
    }
  }
  int64_t size() const override { return n_; }
  Example get(int64_t index) const override {
    TORCH_CHECK(index >= 0 && index < n_, "HDF5 index out of range");
    auto img = torch::empty({c_, h_, w_}, torch::kUInt8);
    int64_t label = 0;
    get_batch({index}, img.data_ptr<uint8_t>(), &label);
    return {img, label};
  }
  int64_t label(int64_t index) const override { return labels_.at(index); }
  void get_batch(const std::vector<int64_t>& indices, uint8_t* images, int64_t* labels) const override {
    const int64_t per = c_ * h_ * w_, b = indices.size();
    for (int64_t i = 0; i < b; ++i) {
      TORCH_CHECK(indices[i] >= 0 && indices[i] < n_, "HDF5 index out of range");
      labels[i] = labels_[indices[i]];
    }
    if (!memory_.empty() && !nhwc_) {
      for (int64_t i = 0; i < b; ++i) std::memcpy(images + i * per, memory_.data() + indices[i] * per, per);
      return;
    }
    // Sorted order, then one read per run of consecutive indices.
    std::vector<int64_t> order(b);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t c) { return indices[a] < indices[c]; });
    std::vector<uint8_t> run_buf;
    for (int64_t s = 0; s < b;) {
      int64_t e = s + 1;
      while (e < b && indices[order[e]] == indices[order[e - 1]] + 1) ++e;
      const int64_t first = indices[order[s]], len = e - s;
      const uint8_t* src;
      if (!memory_.empty()) {
        src = memory_.data() + first * per;
      } else {
        run_buf.resize(len * per);
        read_raw(first, len, run_buf.data());
        src = run_buf.data();
      }
      for (int64_t k = 0; k < len; ++k) place(src + k * per, images + order[s + k] * per);
      s = e;
    }
  }
  int64_t chunk_rows() const override { return memory_.empty() ? chunks_.rows() : 0; }
  void read_chunk(int64_t k, uint8_t* images) const override {
    const int64_t rows = chunks_.rows(), count = std::min(rows, n_ - k * rows), per = c_ * h_ * w_;
    TORCH_CHECK(rows > 0 && k >= 0 && count > 0, "HDF5 chunk out of range");
    if (!nhwc_) return chunks_.read(imgs_, k, count, images);
    std::vector<uint8_t> stored(count * per);
    chunks_.read(imgs_, k, count, stored.data());
    for (int64_t i = 0; i < count; ++i) place(stored.data() + i * per, images + i * per);
  }
  std::string check_integrity() const override {
    return memory_.empty() ? chunks_.check_all(imgs_, n_) : "";  // in memory: read whole at open
  }
  int64_t num_classes() const override { return num_classes_; }
  int64_t channels() const override { return c_; }
  int64_t height() const override { return h_; }
  int64_t width() const override { return w_; }
  std::string describe() const override {
    return "HDF5 " + path_ + " (" + (nhwc_ ? "NHWC" : "NCHW") + (memory_.empty() ? "" : ", in memory") + ")";
  }

 private:
  void open(const DatasetSpec& spec) {
    if (!looks_like_hdf5(path_)) throw DataError(path_ + ": not an HDF5 file (truncated or damaged?)");
    register_lzf_filter();  // BigGAN-PyTorch's make_hdf5.py --compression writes LZF
    file_ = H5::H5File(path_, H5F_ACC_RDONLY);
    for (const char* name : {hdf5::kImages, hdf5::kLabels})
      if (!file_.nameExists(name))
        throw DataError(path_ + ": no dataset \"" + name + "\" (expected BigGAN layout: imgs N×3×H×W uint8, " +
                        "labels N int64; make one with 'hamgan prepare')");
    imgs_ = file_.openDataSet(hdf5::kImages);
    H5::DataSet labels = file_.openDataSet(hdf5::kLabels);
    for (H5::DataSet* d : {&imgs_, &labels}) {
      const std::string missing = unavailable_filter(d->getCreatePlist().getId());
      if (!missing.empty()) throw DataError(path_ + ": \"" + d->getObjName().substr(1) + "\" is " + missing);
    }
    if (imgs_.getTypeClass() != H5T_INTEGER || imgs_.getIntType().getSize() != 1)
      throw DataError(path_ + ": \"imgs\" must hold uint8 pixels");
    if (labels.getTypeClass() != H5T_INTEGER || labels.getIntType().getSize() > 8)
      throw DataError(path_ + ": \"labels\" must hold integers of at most 64 bits");
    H5::DataSpace space = imgs_.getSpace();
    if (space.getSimpleExtentNdims() != 4)
      throw DataError(path_ + ": \"imgs\" must be 4-D (N, C, H, W), has " +
                      std::to_string(space.getSimpleExtentNdims()) + " dimension(s)");
    space.getSimpleExtentDims(dims_);
    H5::DataSpace lspace = labels.getSpace();
    hsize_t ln = 0;
    if (lspace.getSimpleExtentNdims() != 1) throw DataError(path_ + ": \"labels\" must be 1-D (N)");
    lspace.getSimpleExtentDims(&ln);
    n_ = static_cast<int64_t>(dims_[0]);
    if (int64_t(ln) != n_)
      throw DataError(path_ + ": \"imgs\" has " + std::to_string(n_) + " images but \"labels\" has " +
                      std::to_string(ln) + " entries");
    if (n_ == 0) throw DataError(path_ + ": holds no images");
    nhwc_ = detect_nhwc();
    c_ = nhwc_ ? dims_[3] : dims_[1];
    h_ = nhwc_ ? dims_[1] : dims_[2];
    w_ = nhwc_ ? dims_[2] : dims_[3];
    if (c_ != 1 && c_ != 3) throw DataError(path_ + ": images must have 1 or 3 channels, found " + std::to_string(c_));
    if (h_ < 1 || w_ < 1 || uint64_t(h_) > kMaxImageSide || uint64_t(w_) > kMaxImageSide ||
        uint64_t(h_) * uint64_t(w_) > kMaxImagePixels)
      throw DataError(path_ + ": images of " + std::to_string(h_) + "x" + std::to_string(w_) +
                      " are outside what a data set can hold (at most 8192x8192 pixels; damaged header?)");
    // The storage must hold what the shape promises before anything is read.
    check_hdf5_storage(path_, imgs_, "imgs", uint64_t(n_) * uint64_t(c_) * uint64_t(h_) * uint64_t(w_));
    check_hdf5_storage(path_, labels, "labels", uint64_t(n_) * labels.getDataType().getSize());
    labels_.resize(n_);
    labels.read(labels_.data(), H5::PredType::NATIVE_INT64);
    const int64_t max_label = *std::max_element(labels_.begin(), labels_.end());
    num_classes_ = file_.attrExists(hdf5::kNumClassesAttr) ? read_int_attr(file_, hdf5::kNumClassesAttr)
                                                             : max_label + 1;
    for (int64_t i = 0; i < n_; ++i)
      if (labels_[i] < 0 || labels_[i] >= num_classes_)
        throw DataError(path_ + ": label " + std::to_string(labels_[i]) + " at index " + std::to_string(i) +
                        " is outside [0, " + std::to_string(num_classes_) + ")");
    // Single images of uncompressed chunks are read straight from the file
    // (a cached 24 MB chunk per random image would be far slower). Whole
    // chunks, which the loader reads under chunk windows, bypass the cache.
    chunks_ = hdf5::ChunkReader(imgs_, dims_, path_);
    if (imgs_.getCreatePlist().getNfilters() == 0) {
      H5::DSetAccPropList dapl;
      dapl.setChunkCache(0, 0, 1.0);
      imgs_ = file_.openDataSet(hdf5::kImages, dapl);
    }
    if (spec.in_memory) load_all();
  }

  bool detect_nhwc() const {
    if (imgs_.attrExists(hdf5::kLayoutAttr)) {
      H5::Attribute a = imgs_.openAttribute(hdf5::kLayoutAttr);
      std::string layout;
      a.read(a.getStrType(), layout);
      layout.erase(std::find(layout.begin(), layout.end(), '\0'), layout.end());
      if (layout == "NCHW") return false;
      if (layout == "NHWC") return true;
      throw DataError(path_ + ": \"imgs\" attribute layout is '" + layout + "', expected NCHW or NHWC");
    }
    const bool chw = dims_[1] == 1 || dims_[1] == 3, hwc = dims_[3] == 1 || dims_[3] == 3;
    return hwc && !chw;
  }

  void load_all() {
    const uint64_t bytes = uint64_t(n_) * c_ * h_ * w_;
    if (!fits_in_memory(bytes))
      throw DataError(path_ + ": in-memory load needs " + std::to_string(bytes >> 20) + " MiB but the machine has " +
                      std::to_string(physical_memory_bytes() >> 20) +
                      " MiB; read it from disk instead (in_memory = false)");
    memory_.resize(bytes);
    const int64_t per = c_ * h_ * w_;
    for (int64_t s = 0; s < n_; s += hdf5::kChunk) {
      throw_if_stop_requested(path_ + ": reading into memory");
      read_raw(s, std::min<int64_t>(hdf5::kChunk, n_ - s), memory_.data() + s * per);
    }
  }

  // Rows [first, first + len) as stored in the file (NCHW or NHWC order).
  void read_raw(int64_t first, int64_t len, uint8_t* dst) const {
    hdf5::quiet_errors();
    try {
      H5::DataSpace fspace = imgs_.getSpace();
      hsize_t start[4] = {hsize_t(first), 0, 0, 0}, count[4] = {hsize_t(len), dims_[1], dims_[2], dims_[3]};
      fspace.selectHyperslab(H5S_SELECT_SET, count, start);
      H5::DataSpace mspace(4, count);
      imgs_.read(dst, H5::PredType::NATIVE_UINT8, mspace, fspace);
    } catch (const H5::Exception& e) {
      chunks_.throw_chunk_error(imgs_, first, len, n_);  // the damaged chunk's own line, where one fails
      throw DataError(path_ + ": cannot read images " + std::to_string(first) + ".." +
                      std::to_string(first + len - 1) + chunks_.span(first, len, n_) + " (" + hdf5::detail(e) +
                      "; a chunk fails its checksum or does not decompress, or the file is truncated)");
    }
  }

  // One stored image to (C, H, W).
  void place(const uint8_t* src, uint8_t* dst) const {
    const int64_t per = c_ * h_ * w_;
    if (!nhwc_) {
      std::memcpy(dst, src, per);
      return;
    }
    for (int64_t p = 0; p < h_ * w_; ++p)
      for (int64_t ch = 0; ch < c_; ++ch) dst[ch * h_ * w_ + p] = src[p * c_ + ch];
  }

  std::string path_;
  H5::H5File file_;
  H5::DataSet imgs_;
  hdf5::ChunkReader chunks_;
  hsize_t dims_[4] = {0, 0, 0, 0};
  int64_t n_ = 0, c_ = 0, h_ = 0, w_ = 0, num_classes_ = 0;
  bool nhwc_ = false;
  std::vector<int64_t> labels_;
  std::vector<uint8_t> memory_;
};

}  // namespace

bool looks_like_hdf5(const std::string& path) {
  hdf5::quiet_errors();
  try {
    return H5::H5File::isHdf5(path);
  } catch (const H5::Exception&) {
    return false;
  }
}

std::shared_ptr<Dataset> open_hdf5_dataset(const DatasetSpec& spec) {
  return std::make_shared<Hdf5Dataset>(spec);
}

}  // namespace hamgan
