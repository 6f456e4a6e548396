#include "data/subset_dataset.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <sstream>

#include "core/errors.h"
#include "core/rng.h"

namespace hamgan {
namespace {

class SubsetDataset final : public Dataset {
 public:
  SubsetDataset(std::shared_ptr<Dataset> inner, std::vector<int64_t> indices, double fraction)
      : inner_(std::move(inner)), indices_(std::move(indices)), fraction_(fraction) {}
  int64_t size() const override { return static_cast<int64_t>(indices_.size()); }
  Example get(int64_t i) const override { return inner_->get(indices_[static_cast<size_t>(i)]); }
  int64_t label(int64_t i) const override { return inner_->label(indices_[static_cast<size_t>(i)]); }
  int64_t num_classes() const override { return inner_->num_classes(); }
  int64_t channels() const override { return inner_->channels(); }
  int64_t height() const override { return inner_->height(); }
  int64_t width() const override { return inner_->width(); }
  std::string describe() const override {
    std::ostringstream s;
    s << inner_->describe() << ", a fixed " << fraction_ * 100 << "% of it (" << size() << " images)";
    return s.str();
  }
  void get_batch(const std::vector<int64_t>& indices, uint8_t* images, int64_t* labels) const override {
    std::vector<int64_t> mapped(indices.size());
    for (size_t k = 0; k < indices.size(); ++k) mapped[k] = indices_[static_cast<size_t>(indices[k])];
    inner_->get_batch(mapped, images, labels);
  }
  // The subset's chunks are runs of the file's chunk size of consecutive kept
  // images. They lie in neighbouring chunks of the file, each decoded whole
  // once per read, so the loader's chunk windows still read the file chunk by
  // chunk (each file chunk at most twice an epoch) instead of image by image.
  int64_t chunk_rows() const override { return inner_->chunk_rows(); }
  void read_chunk(int64_t k, uint8_t* images) const override {
    const int64_t rows = chunk_rows(), first = k * rows, per = channels() * height() * width();
    if (rows < 1 || first < 0 || first >= size()) throw DataError(describe() + ": no chunk " + std::to_string(k));
    std::vector<uint8_t> chunk;
    int64_t held = -1;  // the file chunk in `chunk`
    for (int64_t i = first; i < std::min(size(), first + rows); ++i) {
      const int64_t index = indices_[static_cast<size_t>(i)], c = index / rows;
      if (c != held) {
        chunk.resize(static_cast<size_t>(std::min(rows, inner_->size() - c * rows) * per));
        inner_->read_chunk(c, chunk.data());
        held = c;
      }
      std::memcpy(images + (i - first) * per, chunk.data() + (index - c * rows) * per, static_cast<size_t>(per));
    }
  }

 private:
  std::shared_ptr<Dataset> inner_;
  std::vector<int64_t> indices_;  // ascending: neighbours in the file stay neighbours
  double fraction_;
};

}  // namespace

std::shared_ptr<Dataset> dataset_fraction(std::shared_ptr<Dataset> inner, double fraction) {
  if (!(fraction > 0 && fraction <= 1))
    throw ConfigError("dataset_fraction " + std::to_string(fraction) + ": must lie in (0, 1]");
  if (fraction == 1) return inner;
  std::map<int64_t, std::vector<int64_t>> by_class;
  for (int64_t i = 0; i < inner->size(); ++i) by_class[inner->label(i)].push_back(i);
  at::Generator gen = make_cpu_generator(kSubsetSeed);
  std::vector<int64_t> kept;
  for (const auto& [label, members] : by_class) {
    const auto n = static_cast<int64_t>(members.size());
    const int64_t keep = std::max<int64_t>(1, std::llround(fraction * static_cast<double>(n)));
    const torch::Tensor order = torch::randperm(n, gen);
    const int64_t* o = order.data_ptr<int64_t>();
    for (int64_t k = 0; k < keep; ++k) kept.push_back(members[static_cast<size_t>(o[k])]);
  }
  std::sort(kept.begin(), kept.end());
  return std::make_shared<SubsetDataset>(std::move(inner), std::move(kept), fraction);
}

}  // namespace hamgan
