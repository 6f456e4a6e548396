#include "metrics/label_mode.h"

namespace hamgan {

const EnumNames<LabelMode>& label_mode_table() {
  static const EnumNames<LabelMode> names(
      "labels", {{LabelMode::balanced, "balanced"}, {LabelMode::random, "random"}, {LabelMode::dataset, "dataset"}});
  return names;
}

std::string to_string(LabelMode mode) { return label_mode_table().name(mode); }

}  // namespace hamgan
