// Does a domain classifier fit the images it judges (see classifier_fit.h).
#include "metrics/classifier_fit.h"

#include <filesystem>

#include "core/errors.h"
#include "metrics/classifier_training.h"

namespace hamgan {
namespace {

constexpr int64_t kFashionMnistClasses = 10;  // what ensure_classifier's default data set holds

std::string images_of(int64_t channels, int64_t classes) {
  std::string s = channels > 0 ? std::to_string(channels) + "-channel images" : "images";
  return classes > 0 ? s + " of " + std::to_string(classes) + " classes" : s;
}

}  // namespace

ClassifierConfig classifier_config_at(const std::string& path) {
  if (std::filesystem::exists(path)) return load_classifier(path)->config();
  const ClassifierTrainConfig made;
  ClassifierConfig c;
  c.channels = made.channels;
  c.image_size = made.image_size;
  c.num_classes = kFashionMnistClasses;
  c.width = made.width;
  c.feature_dim = made.feature_dim;
  return c;
}

void check_classifier_fits(const std::string& path, const ClassifierConfig& c, const JudgedImages& images) {
  const bool channels_differ = images.channels > 0 && images.channels != c.channels;
  const bool classes_differ = images.num_classes > 0 && images.num_classes != c.num_classes;
  if (!channels_differ && !classes_differ) return;
  const bool missing = !std::filesystem::exists(path);
  // Only what differs is compared, so each side is named by what is known of it.
  const std::string theirs = images_of(channels_differ ? images.channels : 0, classes_differ ? images.num_classes : 0);
  const std::string ours = images_of(channels_differ ? c.channels : 0, classes_differ ? c.num_classes : 0);
  const std::string make = "`hamgan train-classifier --dataset " + (images.dataset.empty() ? "DATA" : images.dataset) +
                           " --channels " + std::to_string(images.channels > 0 ? images.channels : c.channels) +
                           " --image_size " + std::to_string(images.image_size) + " --out FILE`";
  throw ConfigError(images.command + ": classifier " + path +
                    (missing ? " does not exist, and the Fashion-MNIST one trained in its place would take "
                             : " takes ") +
                    ours + ", but " + images.what + " " + theirs +
                    ": its classes and features would not describe these images; train one on this data with " + make +
                    " and pass " + images.use + (images.alternative.empty() ? "" : "; or, " + images.alternative));
}

}  // namespace hamgan
