#include "data/hdf5_writer.h"

#include "core/errors.h"
#include "data/hdf5_common.h"

namespace hamgan {

struct Hdf5Writer::State {
  std::string path;
  H5::H5File file;
  H5::DataSet imgs, labels;
  hsize_t c = 0, h = 0, w = 0;
  int64_t n = 0;
  bool open = true;
};

namespace {
template <typename F>
void guarded(const std::string& path, const char* what, F&& f) {
  hdf5::quiet_errors();
  try {
    f();
  } catch (const H5::Exception& e) {
    throw DataError(path + ": HDF5 error while " + what + " (" + hdf5::detail(e) + "; disk full?)");
  }
}
}  // namespace

Hdf5Writer::Hdf5Writer(const std::string& path, int64_t channels, int64_t height, int64_t width)
    : s_(std::make_unique<State>()) {
  hdf5::quiet_errors();
  s_->path = path;
  s_->c = channels;
  s_->h = height;
  s_->w = width;
  guarded(path, "creating the file", [&] {
    s_->file = H5::H5File(path, H5F_ACC_TRUNC);
    // imgs: (0, C, H, W), unlimited along axis 0, chunks (500, C, H, W).
    hsize_t dims[4] = {0, s_->c, s_->h, s_->w}, maxdims[4] = {H5S_UNLIMITED, s_->c, s_->h, s_->w};
    hsize_t chunk[4] = {hdf5::kChunk, s_->c, s_->h, s_->w};
    H5::DSetCreatPropList ip;
    ip.setChunk(4, chunk);
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
    s_->labels = s_->file.createDataSet(hdf5::kLabels, H5::PredType::STD_I64LE, H5::DataSpace(1, ldims, lmax), lp);
  });
}

Hdf5Writer::~Hdf5Writer() = default;

int64_t Hdf5Writer::count() const { return s_->n; }

void Hdf5Writer::append(const uint8_t* images, const int64_t* labels, int64_t n) {
  if (n <= 0) return;
  if (!s_->open) throw DataError(s_->path + ": append after finish");
  guarded(s_->path, "writing images", [&] {
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
  guarded(s_->path, "finishing the file", [&] {
    H5::Attribute a = s_->file.createAttribute(hdf5::kNumClassesAttr, H5::PredType::STD_I64LE,
                                               H5::DataSpace(H5S_SCALAR));
    a.write(H5::PredType::NATIVE_INT64, &num_classes);
    a.close();
    s_->imgs.close();
    s_->labels.close();
    s_->file.flush(H5F_SCOPE_GLOBAL);
    s_->file.close();
  });
  s_->open = false;
}

}  // namespace hamgan
