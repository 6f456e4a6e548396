#pragma once
// The protocol behind FID statistics, stamped into every statistics file
// HamGAN writes: FIDs compare across codebases only when the feature
// extractor's weights, the preprocessing and the image size agree, and the
// most common complaint about published FIDs is that these silently differed.
// Stored in the .npz as the member `protocol`: UTF-8 JSON as uint8 bytes
// (numpy: json.loads(np.load(F)["protocol"].tobytes())); pytorch-fid and
// clean-fid read `mu` and `sigma` and ignore it.
#include <cstdint>
#include <string>

namespace hamgan {

struct StatsProtocol {
  // What makes two sets of statistics comparable.
  std::string extractor;       // "inception" | "classifier"
  std::string weights_sha256;  // of the weights file ("" for a network held in memory)
  std::string preprocessing;   // Inception resize mode, or "classifier input"
  int64_t image_size = 0;      // side of the images given to the extractor (0: not known yet)
  int64_t feature_dim = 0;
  std::string sfid_layer;      // sFID statistics' activation (metrics/sfid_layer.h); "" without them
  // Where the statistics come from: reported, never a reason to refuse.
  int64_t n = 0;               // samples
  std::string source;          // data set path, or generator checkpoint
  std::string source_sha256;   // of the uint8 images in the order used (data sets)
  std::string weights;         // the weights file as given
  std::string hamgan_version;  // version and source revision that wrote it
  std::string labels;          // generated images: the label protocol (metrics/label_mode.h); "" for data
  std::string arithmetic;      // the extractor's arithmetic (metrics/exact_arithmetic.h); "" from older files

  bool stamped() const { return !extractor.empty(); }
};

std::string protocol_json(const StatsProtocol& p);
// DataError naming `what` when the text is not a protocol object.
StatsProtocol parse_protocol_json(const std::string& text, const std::string& what);

// "" when statistics under `a` and `b` may be compared; otherwise one phrase
// naming the first field that differs and both values. An image size of 0 is
// not known yet (features not computed) and is not compared; neither is an
// sFID layer one side does not have (only sFID needs it). The label protocol
// and arithmetic are reported, not compared (real images have no labels drawn).
std::string protocol_mismatch(const StatsProtocol& a, const StatsProtocol& b);

// "inception sha256 1a2b3c4d…, legacy_tensorflow, 299 px in" : for the printed result.
std::string protocol_summary(const StatsProtocol& p);

}  // namespace hamgan
