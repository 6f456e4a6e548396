// Image folders in ImageNet train layout: root/<class>/**/<file>.{png,jpg,jpeg}.
// Class index = position of the folder name in the sorted list (torchvision and
// BigGAN-PyTorch find_classes; docs/data.md, "Sources"); files are walked
// recursively and sorted, as BigGAN's make_dataset does. A root without
// sub-folders is a flat folder of images, one class (label 0), its files
// sorted: the way pytorch-fid, clean-fid and torch-fidelity take a folder. Pixels follow
// BigGAN-PyTorch's ImageNet preparation (make_hdf5.py): RGB, centred square crop of
// side min(H, W), then PIL-exact bilinear resize; see docs/data.md for rounding.
// `transform` center-crop-dhariwal swaps in ADM's recipe (data/image_transform.h).
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "core/errors.h"
#include "core/stop_signal.h"
#include "data/formats.h"
#include "data/image_io.h"
#include "data/image_transform.h"

namespace hamgan {
namespace {

namespace fs = std::filesystem;

bool has_image_extension(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext == ".png" || ext == ".jpg" || ext == ".jpeg";
}

bool hidden(const fs::path& p) { return !p.filename().empty() && p.filename().string()[0] == '.'; }

// The PNG/JPEG files (by extension) in `dir`, or below it, sorted; hidden entries skipped.
std::vector<fs::path> image_files(const fs::path& dir, bool recursive) {
  std::error_code ec;
  std::vector<fs::path> files;
  size_t seen = 0;
  auto keep = [&](const fs::directory_entry& e) {
    // A walk of ImageNet takes minutes: a stop request ends it.
    if (++seen % 1024 == 0) throw_if_stop_requested(dir.string() + ": listing the folder");
    if (!hidden(e.path()) && e.is_regular_file() && has_image_extension(e.path())) files.push_back(e.path());
  };
  if (recursive) {
    for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::follow_directory_symlink, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (hidden(it->path()) && it->is_directory()) it.disable_recursion_pending();
      keep(*it);
    }
  } else {
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) keep(*it);
  }
  if (ec) throw DataError(dir.string() + ": cannot list folder (" + ec.message() + ")");
  std::sort(files.begin(), files.end());
  return files;
}

class ImageFolderDataset : public Dataset {
 public:
  explicit ImageFolderDataset(const DatasetSpec& spec)
      : root_(spec.path), size_(spec.size), transform_(spec.transform) {
    check_transform_name(transform_);
    std::error_code ec;
    std::vector<fs::path> class_dirs;
    for (const auto& e : fs::directory_iterator(root_, ec))
      if (e.is_directory() && !hidden(e.path())) class_dirs.push_back(e.path());
    if (ec) throw DataError(root_ + ": cannot list folder (" + ec.message() + ")");
    std::sort(class_dirs.begin(), class_dirs.end());
    std::string first_skipped;
    auto add_images = [&](const std::vector<fs::path>& files, int64_t label) {
      for (size_t i = 0; i < files.size(); ++i) {
        const fs::path& f = files[i];
        if (i % 256 == 0) throw_if_stop_requested(root_ + ": reading the folder's images");
        if (has_image_signature(f.string())) {
          files_.push_back(f.string());
          labels_.push_back(label);
        } else if (skipped_++ == 0) {
          first_skipped = f.string();
        }
      }
    };
    if (class_dirs.empty()) {  // a flat folder
      classes_.push_back(fs::path(root_).filename().string());
      add_images(image_files(root_, /*recursive=*/false), 0);
    }
    for (size_t c = 0; c < class_dirs.size(); ++c) {
      classes_.push_back(class_dirs[c].filename().string());
      add_images(image_files(class_dirs[c], /*recursive=*/true), static_cast<int64_t>(c));
    }
    if (files_.empty())
      throw DataError(root_ + ": no readable PNG or JPEG image (in the folder itself, or in class folders root/<class>/)" +
                      (skipped_ ? " (" + std::to_string(skipped_) + " unreadable, e.g. " + first_skipped + ")"
                                : std::string()));
    if (skipped_ && !spec.quiet)
      std::cerr << "hamgan: warning: " << root_ << ": skipped " << skipped_
                << " file(s) that are not PNG or JPEG (e.g. " << first_skipped << ")\n";
  }
  int64_t size() const override { return static_cast<int64_t>(files_.size()); }
  Example get(int64_t index) const override {
    TORCH_CHECK(index >= 0 && index < size(), "image folder index out of range");
    return {apply_transform(load_image(files_[index]), transform_, size_), labels_[index]};
  }
  int64_t label(int64_t index) const override { return labels_.at(index); }
  int64_t num_classes() const override { return static_cast<int64_t>(classes_.size()); }
  int64_t channels() const override { return 3; }
  int64_t height() const override { return size_; }
  int64_t width() const override { return size_; }
  std::string describe() const override {
    return "image folder " + root_ + " (" + std::to_string(classes_.size()) + " classes, cropped and resized to " +
           std::to_string(size_) + (transform_ == kTransformDefault ? "" : " by " + transform_) + ")";
  }

 private:
  std::string root_;
  int64_t size_;
  std::string transform_;
  std::vector<std::string> classes_, files_;
  std::vector<int64_t> labels_;
  int64_t skipped_ = 0;
};

}  // namespace

std::shared_ptr<Dataset> open_image_folder_dataset(const DatasetSpec& spec) {
  return std::make_shared<ImageFolderDataset>(spec);
}

}  // namespace hamgan
