#pragma once
// Whether a data set fits a model, checked before training starts rather than
// found out at the first batch ("Sizes of tensors must match") or as a model
// with thousands of classes for one stray label.
#include <cstdint>
#include <string>

#include "data/dataset.h"

namespace hamgan {

// Throws DataError (one line naming the data set, what was found, what was
// expected and the fix) unless every image is `channels` x `resolution` x
// `resolution` and every label lies in [0, num_classes). `source` is the
// dataset path as the user gave it, for the suggested command. Image folders
// and IDX opened with DatasetSpec::size = resolution pass: they are resized on load.
void check_dataset_fits(const Dataset& dataset, int64_t resolution, int64_t channels, int64_t num_classes,
                        const std::string& source);

}  // namespace hamgan
