// `hamgan bench fid`: feature-extractor throughput (declared in metrics/fid.h).
#include <chrono>
#include <cstdio>
#include <iostream>

#include "core/device.h"
#include "core/errors.h"
#include "metrics/fid.h"

namespace hamgan {

void run_fid_bench(const FidBenchConfig& c, std::ostream& out) {
  if (c.images < 1 || c.batch < 1 || c.size < 8) throw ConfigError("bench fid: --images, --batch ≥ 1 and --size ≥ 8");
  auto time_extractor = [&](FeatureExtractor& fx) {
    auto images = torch::randint(0, 256, {c.batch, 3, c.size, c.size}, torch::kUInt8);
    fx.extract(images);  // warm-up (allocations, lazy init)
    synchronize(fx.device());
    auto t0 = std::chrono::steady_clock::now();
    int64_t done = 0;
    while (done < c.images) {
      auto f = fx.extract(images).features;
      synchronize(fx.device());
      done += c.batch;
    }
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    char rate[96];
    std::snprintf(rate, sizeof rate, " in %.2f s: %.1f images/s", s, done / s);
    out << "  " << fx.describe() << "\n  " << done << " images " << c.size << "×" << c.size << rate << " (batch " << c.batch << ", " << torch::get_num_threads()
        << " threads, " << fx.device() << ")\n";
  };
  FeatureOptions inc = c.features;
  inc.allow_random = true;
  out << "inception:\n";
  auto fx = make_feature_extractor(inc);
  time_extractor(*fx);
  out << "classifier:\n";
  std::unique_ptr<FeatureExtractor> cls;
  if (c.classifier.empty()) {
    cls = make_classifier_features(FeatureClassifier(ClassifierConfig{}), resolve_device(c.features.device),
                                   "(untrained, default architecture)");
  } else {
    FeatureOptions co = c.features;
    co.spec = "classifier:" + c.classifier;
    cls = make_feature_extractor(co);
  }
  time_extractor(*cls);
}

}  // namespace hamgan
