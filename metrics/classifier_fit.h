#pragma once
// Whether a domain classifier (metrics/classifier.h) can judge a set of images.
// It turns grey into RGB and back and resizes any side to its own
// (classifier_input), so nothing fails when they differ; but its classes and
// the images it learned from are its training data's. Class-consistency against
// another class count is meaningless, and its features of another data set's
// images (a Fashion-MNIST classifier on RGB photographs) say nothing about
// them, yet give small, plausible FIDs. Such a pair is refused before any work.
// The image size is not checked: the classifier bilinearly resizes its input.
#include <cstdint>
#include <string>

#include "metrics/classifier.h"

namespace hamgan {

// The images a classifier is asked to judge, and how to make one that fits them.
struct JudgedImages {
  std::string command;      // prefix of the error line: "train", "fid", "class-consistency"
  std::string what;         // who has these images, with its verb: "the model makes", "A (DIR) holds"
  int64_t channels = 0;     // 0: not known
  int64_t num_classes = 0;  // 0: not known (unlabelled images)
  std::string dataset;      // where a fitting classifier is trained ("" names none)
  int64_t image_size = 32;  // the side to train it at
  std::string use;          // how its file is then given: "--classifier FILE"
  std::string alternative;  // another fix, where there is one ("" for none)
};

// The configuration of the classifier that `path` gives: the file's own (read
// now, so a bad file fails here), or where the file is missing the Fashion-MNIST
// one ensure_classifier (metrics/classifier_training.h) would train in its place.
ClassifierConfig classifier_config_at(const std::string& path);

// ConfigError in one line naming `path`, the classifier's channels and classes,
// the images', and the `hamgan train-classifier` command that makes a fitting
// one, when the channels or the classes (each where known) differ.
void check_classifier_fits(const std::string& path, const ClassifierConfig& classifier, const JudgedImages& images);

}  // namespace hamgan
