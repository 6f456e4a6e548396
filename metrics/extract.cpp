// Streaming feature extraction for FID/IS/KID (declared in metrics/fid.h).
#include "core/sha256.h"
#include "core/errors.h"
#include "core/stop_signal.h"
#include "core/progress.h"
#include "metrics/exact_arithmetic.h"
#include "metrics/fid.h"

namespace hamgan {

SideFeatures extract_features(ImageSource& source, FeatureExtractor& extractor, int64_t batch, bool keep_features,
                              bool keep_logits, const std::string& label, bool hash_images, bool keep_labels) {
  if (batch < 1) throw ConfigError("--batch must be ≥ 1");
  if (keep_labels && !source.labelled()) throw ConfigError(source.describe() + " has no class labels");
  SideFeatures side;
  side.description = source.describe();
  ExactArithmeticScope exact;  // images (a generator's too) and features in fp32 whatever the process's math mode
  RunningStats running, spatial;
  std::vector<torch::Tensor> feats, logits, labels;
  const int64_t n = source.size();
  ProgressBar bar(label, n, "img");
  Sha256 images_hash;
  for (int64_t offset = 0; offset < n; offset += batch) {
    throw_if_stop_requested(label);
    const int64_t count = std::min(batch, n - offset);
    const torch::Tensor images = source.batch(offset, count);
    side.image_size = images.size(2);
    if (hash_images) {
      const torch::Tensor bytes = images.to(torch::kCPU).contiguous();
      images_hash.update(bytes.data_ptr<uint8_t>(), static_cast<size_t>(bytes.numel()));
    }
    auto out = extractor.extract(images);
    running.add(out.features);
    if (out.spatial.defined()) spatial.add(out.spatial);
    if (keep_features) feats.push_back(out.features.to(torch::kCPU, torch::kFloat32));
    if (keep_logits) {
      if (!out.logits.defined())
        throw ConfigError("is: the feature extractor has no class logits (" + extractor.describe() + ")");
      logits.push_back(out.logits.to(torch::kCPU, torch::kFloat32));
    }
    if (keep_labels) labels.push_back(source.labels(offset, count));
    bar.advance(count);
  }
  bar.finish();
  side.stats = running.finish();
  if (spatial.count() > 0) {
    const FeatureStats s = spatial.finish();
    side.stats.mu_s = s.mu;
    side.stats.sigma_s = s.sigma;
  }
  if (hash_images) side.images_sha256 = images_hash.hex();
  if (keep_features) side.features = torch::cat(feats);
  if (keep_logits) side.logits = torch::cat(logits);
  if (keep_labels) side.labels = torch::cat(labels);
  return side;
}

}  // namespace hamgan
