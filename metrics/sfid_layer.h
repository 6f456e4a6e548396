#pragma once
// Which Inception activation sFID (spatial FID, Nash et al. 2021, as ADM's
// evaluator computes it) takes: the first 7 channels of a 17×17 map, 2023-d.
//   adm       `mixed_6/conv` of the TF graph, the 1×1 branch of Mixed_6d after
//             its ReLU: ADM's evaluator (Dhariwal & Nichol 2021), the DiT/MAR tables.
//   mixed_6e  the output of Mixed_6e (whose first 7 channels are its 1×1 branch):
//             dgm-eval's `sinception`.
#include <string>

#include "core/enum_names.h"

namespace hamgan {

enum class SfidLayer { adm, mixed_6e };

const EnumNames<SfidLayer>& sfid_layer_table();
std::string to_string(SfidLayer layer);

constexpr int64_t kSfidChannels = 7, kSfidSide = 17, kSfidDim = kSfidChannels * kSfidSide * kSfidSide;  // 2023

}  // namespace hamgan
