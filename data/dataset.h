#pragma once
// Datasets yield (uint8 C×H×W image, int64 label) and know their class count.
// The formats and how each is recognised: kDatasetFormats in data/formats.h.
#include <torch/torch.h>

#include <memory>
#include <string>
#include <vector>

namespace hamgan {

// The embedded default: Debian's dataset-fashion-mnist package.
inline constexpr const char* kDefaultFashionMnistDir = "/usr/share/datasets/fashion-mnist";

struct Example {
  torch::Tensor image;  // uint8 (C, H, W)
  int64_t label = 0;
};

class Dataset {
 public:
  virtual ~Dataset() = default;
  virtual int64_t size() const = 0;
  virtual Example get(int64_t index) const = 0;  // thread-safe
  virtual int64_t num_classes() const = 0;
  virtual int64_t channels() const = 0;
  virtual int64_t height() const = 0;
  virtual int64_t width() const = 0;
  virtual std::string describe() const = 0;  // format and path, for logs

  // The label alone; formats override it so counting classes reads no pixels.
  virtual int64_t label(int64_t index) const { return get(index).label; }
  // Copies examples `indices` into `images` (B·C·H·W bytes, (B, C, H, W)
  // order) and `labels` (B). Formats override it to read efficiently (HDF5
  // reads sorted runs of neighbours in one call). Thread-safe.
  virtual void get_batch(const std::vector<int64_t>& indices, uint8_t* images, int64_t* labels) const;
  // Examples [k·chunk_rows(), (k+1)·chunk_rows()) are stored and decoded
  // together (an HDF5 chunk): reading one of them costs the whole chunk, so
  // the loader visits them together (data/epoch_order.h). 0: random access is cheap.
  virtual int64_t chunk_rows() const { return 0; }
  // Decodes chunk k whole into `images` ((rows, C, H, W) bytes, rows = the
  // examples it holds). The default reads them with get_batch. Thread-safe.
  virtual void read_chunk(int64_t k, uint8_t* images) const;
  // Reads every stored chunk that carries a checksum and checks it (polling
  // for a stop); throws DataError naming the first damaged one. Returns one
  // line on what was checked, or on why damage cannot be detected; "" when the
  // format has nothing to say (its reads check what they can).
  virtual std::string check_integrity() const { return ""; }
};

struct DatasetSpec {
  std::string path = kDefaultFashionMnistDir;  // any format of data/formats.h
  std::string split = "train";                 // IDX: train | test
  int64_t size = 32;       // target side for IDX (padded/resized) and image folders
  int64_t channels = 0;    // 0: the source's own (IDX 1, folders/HDF5 3); 1 or 3 converts
  bool in_memory = false;  // HDF5: load the whole file when it fits
  bool idx_resize = false; // IDX: resize 28→size (bilinear) instead of zero-padding
  bool quiet = false;      // no warnings on stderr (skipped files are still counted)
  // Image folders and ZIP: "default" (folders: BigGAN's crop to `size`; ZIP: as
  // stored), "center-crop-biggan" or "center-crop-dhariwal" (data/image_transform.h).
  std::string transform = "default";
};
// HDF5 and ZIP files keep their own image size (unless a ZIP is given a
// transform): `size` applies to IDX and folders.

// Detects the format from the path and opens it; bad input throws DataError.
std::shared_ptr<Dataset> open_dataset(const DatasetSpec& spec);

// Wraps a dataset so every image has `channels` channels (0 or its own: unchanged; see convert_channels).
std::shared_ptr<Dataset> with_channels(std::shared_ptr<Dataset> inner, int64_t channels);

}  // namespace hamgan
