// The default batch read and the channel-converting wrapper.
#include "data/dataset.h"

#include <algorithm>
#include <cstring>

#include "core/errors.h"
#include "data/image_ops.h"

namespace hamgan {

void Dataset::get_batch(const std::vector<int64_t>& indices, uint8_t* images, int64_t* labels) const {
  const int64_t per = channels() * height() * width();
  for (size_t b = 0; b < indices.size(); ++b) {
    Example ex = get(indices[b]);
    auto img = ex.image.contiguous();
    if (img.scalar_type() != torch::kUInt8 || img.numel() != per)
      throw DataError(describe() + ": example " + std::to_string(indices[b]) + " has shape " +
                      std::string(c10::str(img.sizes())) + ", expected (" + std::to_string(channels()) + ", " +
                      std::to_string(height()) + ", " + std::to_string(width()) + ") uint8");
    std::memcpy(images + b * per, img.data_ptr<uint8_t>(), per);
    labels[b] = ex.label;
  }
}

void Dataset::read_chunk(int64_t k, uint8_t* images) const {
  const int64_t rows = chunk_rows(), first = k * rows;
  if (rows < 1 || first < 0 || first >= size()) throw DataError(describe() + ": no chunk " + std::to_string(k));
  std::vector<int64_t> indices(std::min(rows, size() - first));
  for (size_t i = 0; i < indices.size(); ++i) indices[i] = first + static_cast<int64_t>(i);
  std::vector<int64_t> labels(indices.size());
  get_batch(indices, images, labels.data());
}

namespace {

class ChannelAdapter : public Dataset {
 public:
  ChannelAdapter(std::shared_ptr<Dataset> inner, int64_t channels)
      : inner_(std::move(inner)), channels_(channels) {}
  int64_t size() const override { return inner_->size(); }
  Example get(int64_t index) const override {
    Example ex = inner_->get(index);
    ex.image = convert_channels(ex.image, channels_);
    return ex;
  }
  int64_t label(int64_t index) const override { return inner_->label(index); }
  void get_batch(const std::vector<int64_t>& indices, uint8_t* images, int64_t* labels) const override {
    const int64_t b = indices.size(), h = height(), w = width();
    auto native = torch::empty({b, inner_->channels(), h, w}, torch::kUInt8);
    inner_->get_batch(indices, native.data_ptr<uint8_t>(), labels);
    auto out = torch::from_blob(images, {b, channels_, h, w}, torch::kUInt8);
    for (int64_t i = 0; i < b; ++i) out[i].copy_(convert_channels(native[i], channels_));
  }
  int64_t chunk_rows() const override { return inner_->chunk_rows(); }
  void read_chunk(int64_t k, uint8_t* images) const override {
    const int64_t rows = std::min(chunk_rows(), size() - k * chunk_rows()), h = height(), w = width();
    auto native = torch::empty({rows, inner_->channels(), h, w}, torch::kUInt8);
    inner_->read_chunk(k, native.data_ptr<uint8_t>());
    auto out = torch::from_blob(images, {rows, channels_, h, w}, torch::kUInt8);
    for (int64_t i = 0; i < rows; ++i) out[i].copy_(convert_channels(native[i], channels_));
  }
  std::string check_integrity() const override { return inner_->check_integrity(); }
  int64_t num_classes() const override { return inner_->num_classes(); }
  int64_t channels() const override { return channels_; }
  int64_t height() const override { return inner_->height(); }
  int64_t width() const override { return inner_->width(); }
  std::string describe() const override {
    return inner_->describe() + " as " + std::to_string(channels_) + " channel(s)";
  }

 private:
  std::shared_ptr<Dataset> inner_;
  int64_t channels_;
};

}  // namespace

std::shared_ptr<Dataset> with_channels(std::shared_ptr<Dataset> inner, int64_t channels) {
  if (channels == 0 || channels == inner->channels()) return inner;
  return std::make_shared<ChannelAdapter>(std::move(inner), channels);
}

}  // namespace hamgan
