#include "metrics/sfid_layer.h"

namespace hamgan {

const EnumNames<SfidLayer>& sfid_layer_table() {
  static const EnumNames<SfidLayer> names("sfid_layer", {{SfidLayer::adm, "adm"}, {SfidLayer::mixed_6e, "mixed_6e"}});
  return names;
}

std::string to_string(SfidLayer layer) { return sfid_layer_table().name(layer); }

}  // namespace hamgan
