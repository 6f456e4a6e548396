// ZIP datasets as StyleGAN2-ADA's, StyleGAN3's, EDM's and EDM2's dataset_tool.py
// write them (and as `hamgan prepare --format zip` does): PNG members
// `00000/img00000000.png` (JPEG members accepted too), and an optional
// `dataset.json` {"labels": [["00000/img00000000.png", 6], ...]} or
// {"labels": null}. As those repositories' training datasets read them: image
// order = sorted member names with an image extension, labels looked up by
// name, no labels = class 0 for all. Pixels are as stored (one size and
// channel count throughout) unless a transform crops and resizes them.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <unordered_map>

#include "core/errors.h"
#include "data/formats.h"
#include "data/image_bytes.h"
#include "data/image_transform.h"
#include "data/zip_archive.h"

namespace hamgan {
namespace {

constexpr int64_t kMaxLabel = (int64_t(1) << 24) - 1;

bool is_image_member(const std::string& name) {
  if (name.empty() || name.back() == '/') return false;
  std::string ext = name.substr(name.rfind('.') + 1);  // the whole name when it has no dot, as dataset_tool
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == "png" || ext == "jpg" || ext == "jpeg";
}

// The labels of `images` (member names) from dataset.json; all 0 without it.
std::vector<int64_t> read_labels(const ZipArchive& zip, const std::vector<std::string>& images) {
  std::vector<int64_t> labels(images.size(), 0);
  const int64_t meta = zip.find("dataset.json");
  if (meta < 0) return labels;
  const std::string where = zip.path() + ":dataset.json";
  const std::string expected = R"(; expected {"labels": [["00000/img00000000.png", 6], ...]} or {"labels": null})";
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(zip.read(meta));
  } catch (const nlohmann::json::exception& e) {
    throw DataError(where + ": not valid JSON (" + e.what() + ")" + expected);
  }
  if (!doc.is_object() || !doc.contains("labels")) throw DataError(where + ": no \"labels\" key" + expected);
  const auto& list = doc["labels"];
  if (list.is_null()) return labels;
  if (!list.is_array()) throw DataError(where + ": \"labels\" is neither a list nor null" + expected);
  std::unordered_map<std::string, int64_t> by_name;
  for (const auto& entry : list) {
    if (!entry.is_array() || entry.size() != 2 || !entry[0].is_string())
      throw DataError(where + ": label entry " + entry.dump().substr(0, 80) + " is not [name, class]" + expected);
    const std::string name = entry[0].get<std::string>();
    const auto& value = entry[1];
    if (!value.is_number_integer() || value.get<int64_t>() < 0 || value.get<int64_t>() > kMaxLabel)
      throw DataError(where + ": the label of " + name + " is " + value.dump().substr(0, 40) +
                      ", not a class index in [0, " + std::to_string(kMaxLabel) +
                      "]; HamGAN takes integer classes (not StyleGAN's float label vectors)");
    by_name[name] = value.get<int64_t>();  // a repeated name: the last wins, as in Python's dict
  }
  std::unordered_map<std::string, size_t> position;
  for (size_t i = 0; i < images.size(); ++i) position.emplace(images[i], i);
  for (const auto& [name, label] : by_name) {
    const auto it = position.find(name);
    if (it == position.end())
      throw DataError(where + ": labels " + name + ", which is not a PNG or JPEG member of the archive; add the "
                      "image or remove its entry");
    labels[it->second] = label;
  }
  if (by_name.size() < images.size())
    for (const auto& name : images)
      if (!by_name.count(name))
        throw DataError(where + ": no label for " + name + "; add [\"" + name +
                        "\", class] to \"labels\", or set \"labels\": null for one class");
  return labels;
}

class ZipDataset : public Dataset {
 public:
  explicit ZipDataset(const DatasetSpec& spec)
      : zip_(spec.path), transform_(spec.transform), size_(spec.size) {
    check_transform_name(transform_);
    std::vector<int64_t> order;
    for (size_t i = 0; i < zip_.names().size(); ++i)
      if (is_image_member(zip_.names()[i])) order.push_back(int64_t(i));
    if (order.empty())
      throw DataError(spec.path + ": no PNG or JPEG member in the archive; expected members such as "
                      "00000/img00000000.png (dataset_tool.py) and an optional dataset.json");
    // Python's sorted(): by code point, which byte order of UTF-8 preserves.
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return zip_.names()[a] < zip_.names()[b]; });
    std::vector<std::string> names;
    for (int64_t i : order) names.push_back(zip_.names()[i]);
    members_ = std::move(order);
    labels_ = read_labels(zip_, names);
    num_classes_ = *std::max_element(labels_.begin(), labels_.end()) + 1;
    // As stored, image 0 sets the shape (StyleGAN's dataset reads it the same way).
    shape_ = transform_ == kTransformDefault ? decode(0).sizes().vec() : std::vector<int64_t>{3, size_, size_};
  }

  int64_t size() const override { return int64_t(members_.size()); }
  Example get(int64_t index) const override {
    TORCH_CHECK(index >= 0 && index < size(), "ZIP dataset index out of range");
    auto img = decode(index);
    if (transform_ != kTransformDefault) return {apply_transform(img, transform_, size_), labels_[index]};
    if (img.sizes().vec() != shape_)
      throw DataError(zip_.path() + ":" + zip_.names()[members_[index]] + ": " + shape_text(img.sizes().vec()) +
                      " but the first image (" + zip_.names()[members_[0]] + ") is " + shape_text(shape_) +
                      "; every image of a ZIP dataset must share one size and channel count: re-create it with "
                      "one --resolution, or convert it with " + prepare_command());
    return {img, labels_[index]};
  }
  int64_t label(int64_t index) const override { return labels_.at(index); }
  int64_t num_classes() const override { return num_classes_; }
  int64_t channels() const override { return shape_[0]; }
  int64_t height() const override { return shape_[1]; }
  int64_t width() const override { return shape_[2]; }
  std::string describe() const override {
    return "ZIP " + zip_.path() + " (" + std::to_string(num_classes_) + " classes" +
           (transform_ == kTransformDefault ? "" : ", cropped and resized to " + std::to_string(size_) + " by " + transform_) +
           ")";
  }

 private:
  torch::Tensor decode(int64_t index) const {
    const int64_t member = members_[index];
    const std::string bytes = zip_.read(member);
    return decode_image_bytes(bytes.data(), bytes.size(), zip_.path() + ":" + zip_.names()[member]);
  }
  // The conversion that crops and resizes every image to the first one's shorter side.
  std::string prepare_command() const {
    const std::string& in = zip_.path();
    const int64_t side = std::min(shape_[1], shape_[2]);
    const size_t dot = in.size() >= 4 && in.compare(in.size() - 4, 4, ".zip") == 0 ? in.size() - 4 : in.size();
    return "'hamgan prepare --input " + in + " --output " + in.substr(0, dot) + "_" + std::to_string(side) +
           ".zip --size " + std::to_string(side) + " --transform center-crop-dhariwal'";
  }
  static std::string shape_text(const std::vector<int64_t>& s) {
    return std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]) + " (CxHxW)";
  }

  ZipArchive zip_;
  std::string transform_;
  int64_t size_;
  std::vector<int64_t> members_;  // archive index of each image, in sorted name order
  std::vector<int64_t> labels_;
  int64_t num_classes_ = 1;
  std::vector<int64_t> shape_;  // (C, H, W) of every example
};

}  // namespace

std::shared_ptr<Dataset> open_zip_dataset(const DatasetSpec& spec) { return std::make_shared<ZipDataset>(spec); }

}  // namespace hamgan
