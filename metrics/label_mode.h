#pragma once
// Which classes a class-conditional generator is asked for when it is evaluated
// (docs/metrics.md, "Label protocol"): the choice moves published FIDs (one model
// of the EDM2 line: 1.07 with class-balanced labels, 1.19 with random ones), so
// it is a named part of every evaluation's protocol.
//   balanced  image i gets class i mod K: every class equally often (HamGAN's default)
//   random    classes drawn uniformly at random (ADM, DiT and MAR sample this way)
//   dataset   classes drawn with the class frequencies of a labelled data set
#include <string>

#include "core/enum_names.h"

namespace hamgan {

enum class LabelMode { balanced, random, dataset };

const EnumNames<LabelMode>& label_mode_table();
std::string to_string(LabelMode mode);

}  // namespace hamgan
