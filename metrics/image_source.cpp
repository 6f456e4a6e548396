// Image sources for FID (see image_source.h).
#include "metrics/image_source.h"

#include <ATen/CPUGeneratorImpl.h>
#include <ATen/Parallel.h>

#include "core/errors.h"
#include "core/tensor_text.h"

namespace hamgan {
namespace {

class DatasetSource : public ImageSource {
 public:
  DatasetSource(std::shared_ptr<Dataset> d, int64_t n, uint64_t seed) : dataset_(std::move(d)) {
    const int64_t total = dataset_->size();
    if (total == 0) throw DataError(dataset_->describe() + ": data set is empty");
    if (n <= 0 || n >= total) {
      size_ = total;
    } else {
      auto gen = at::make_generator<at::CPUGeneratorImpl>(seed);
      auto picked = std::get<0>(torch::randperm(total, gen, torch::kInt64).slice(0, 0, n).sort()).contiguous();
      indices_.assign(picked.data_ptr<int64_t>(), picked.data_ptr<int64_t>() + n);
      size_ = n;
    }
  }
  int64_t size() const override { return size_; }
  torch::Tensor batch(int64_t offset, int64_t count) override {
    TORCH_CHECK(offset >= 0 && count >= 0 && offset + count <= size_, "DatasetSource: range out of bounds");
    const int64_t c = dataset_->channels(), h = dataset_->height(), w = dataset_->width();
    auto out = torch::empty({count, c, h, w}, torch::kUInt8);
    std::vector<int64_t> labels(count);
    // Decoding (JPEG folders) dominates: split the batch over the intra-op threads,
    // each reading its slice through get_batch (HDF5 reads sorted runs in one call).
    at::parallel_for(0, count, 8, [&](int64_t b, int64_t e) {
      std::vector<int64_t> idx;
      for (int64_t i = b; i < e; ++i) idx.push_back(index(offset + i));
      dataset_->get_batch(idx, out.data_ptr<uint8_t>() + b * c * h * w, labels.data() + b);
    });
    return out;
  }
  std::string describe() const override {
    return dataset_->describe() + " (" + std::to_string(size_) + " of " + std::to_string(dataset_->size()) + " images)";
  }
  // A flat folder is one class (label 0): it names no classes to compare.
  bool labelled() const override { return dataset_->num_classes() > 1; }
  int64_t channels() const override { return dataset_->channels(); }
  int64_t num_classes() const override { return labelled() ? dataset_->num_classes() : 0; }
  torch::Tensor labels(int64_t offset, int64_t count) override {
    TORCH_CHECK(offset >= 0 && count >= 0 && offset + count <= size_, "DatasetSource: range out of bounds");
    if (!labelled()) return {};
    auto out = torch::empty({count}, torch::kInt64);
    int64_t* y = out.data_ptr<int64_t>();
    for (int64_t i = 0; i < count; ++i) y[i] = dataset_->label(index(offset + i));  // reads no pixels
    return out;
  }

 private:
  int64_t index(int64_t i) const { return indices_.empty() ? i : indices_[i]; }
  std::shared_ptr<Dataset> dataset_;
  std::vector<int64_t> indices_;  // sorted subset; empty = all in order
  int64_t size_ = 0;
};

class CallableSource : public ImageSource {
 public:
  CallableSource(ImageMaker make, int64_t size, std::string d, LabelMaker label, int64_t channels, int64_t classes)
      : make_(std::move(make)), label_(std::move(label)), size_(size), desc_(std::move(d)), channels_(channels),
        classes_(classes) {}
  int64_t size() const override { return size_; }
  torch::Tensor batch(int64_t offset, int64_t count) override {
    auto x = make_(count, offset);
    if (x.dim() != 4 || x.size(0) != count || x.scalar_type() != torch::kUInt8)
      throw DataError(desc_ + ": image maker returned " + tensor_text(x) +
                      ", expected uint8 (" + std::to_string(count) + ", C, H, W)");
    return x;
  }
  std::string describe() const override { return desc_; }
  bool labelled() const override { return static_cast<bool>(label_); }
  torch::Tensor labels(int64_t offset, int64_t count) override {
    if (!label_) return {};
    auto y = label_(count, offset);
    if (y.dim() != 1 || y.size(0) != count || y.scalar_type() != torch::kInt64)
      throw DataError(desc_ + ": label maker returned " + tensor_text(y) +
                      ", expected int64 (" + std::to_string(count) + ")");
    return y.to(torch::kCPU);
  }
  int64_t channels() const override { return channels_; }
  int64_t num_classes() const override { return label_ ? classes_ : 0; }

 private:
  ImageMaker make_;
  LabelMaker label_;
  int64_t size_;
  std::string desc_;
  int64_t channels_, classes_;
};

class RangeSource : public ImageSource {
 public:
  RangeSource(ImageSource& base, int64_t offset, int64_t count) : base_(base), offset_(offset), count_(count) {}
  int64_t size() const override { return count_; }
  torch::Tensor batch(int64_t offset, int64_t count) override { return base_.batch(offset_ + offset, count); }
  std::string describe() const override {
    return base_.describe() + ", images " + std::to_string(offset_) + "–" + std::to_string(offset_ + count_ - 1);
  }
  bool labelled() const override { return base_.labelled(); }
  torch::Tensor labels(int64_t offset, int64_t count) override { return base_.labels(offset_ + offset, count); }
  int64_t channels() const override { return base_.channels(); }
  int64_t num_classes() const override { return base_.num_classes(); }

 private:
  ImageSource& base_;
  int64_t offset_, count_;
};

}  // namespace

std::unique_ptr<ImageSource> make_range_source(ImageSource& base, int64_t offset, int64_t count) {
  if (offset < 0 || count < 1 || offset + count > base.size())
    throw ConfigError(base.describe() + ": images [" + std::to_string(offset) + ", " + std::to_string(offset + count) +
                      ") outside its " + std::to_string(base.size()));
  return std::make_unique<RangeSource>(base, offset, count);
}

std::unique_ptr<ImageSource> make_dataset_source(std::shared_ptr<Dataset> dataset, int64_t n, uint64_t seed) {
  return std::make_unique<DatasetSource>(std::move(dataset), n, seed);
}

std::unique_ptr<ImageSource> make_callable_source(ImageMaker make, int64_t size, std::string description,
                                                  LabelMaker label, int64_t channels, int64_t num_classes) {
  if (size <= 0) throw ConfigError(description + ": image count must be positive");
  return std::make_unique<CallableSource>(std::move(make), size, std::move(description), std::move(label), channels,
                                          num_classes);
}

torch::Tensor quantize_images(const torch::Tensor& images) {
  return (images.to(torch::kFloat32) * 127.5f + 128.0f).clamp(0.0f, 255.0f).to(torch::kUInt8);
}

}  // namespace hamgan
