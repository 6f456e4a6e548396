#include "metrics/protocol.h"

#include <nlohmann/json.hpp>

#include "core/errors.h"

namespace hamgan {
namespace {

using json = nlohmann::json;

template <typename T>
T field(const json& j, const char* key, const T& fallback) {
  auto it = j.find(key);
  return it == j.end() || it->is_null() ? fallback : it->get<T>();
}

}  // namespace

std::string protocol_json(const StatsProtocol& p) {
  const json j = {{"extractor", p.extractor},
                  {"weights_sha256", p.weights_sha256},
                  {"preprocessing", p.preprocessing},
                  {"image_size", p.image_size},
                  {"feature_dim", p.feature_dim},
                  {"n", p.n},
                  {"source", p.source},
                  {"source_sha256", p.source_sha256},
                  {"weights", p.weights},
                  {"hamgan_version", p.hamgan_version},
                  {"sfid_layer", p.sfid_layer},
                  {"labels", p.labels},
                  {"arithmetic", p.arithmetic}};
  return j.dump();
}

StatsProtocol parse_protocol_json(const std::string& text, const std::string& what) {
  try {
    const json j = json::parse(text);
    if (!j.is_object()) throw DataError("");
    StatsProtocol p;
    p.extractor = field<std::string>(j, "extractor", "");
    p.weights_sha256 = field<std::string>(j, "weights_sha256", "");
    p.preprocessing = field<std::string>(j, "preprocessing", "");
    p.image_size = field<int64_t>(j, "image_size", 0);
    p.feature_dim = field<int64_t>(j, "feature_dim", 0);
    p.n = field<int64_t>(j, "n", 0);
    p.source = field<std::string>(j, "source", "");
    p.source_sha256 = field<std::string>(j, "source_sha256", "");
    p.weights = field<std::string>(j, "weights", "");
    p.hamgan_version = field<std::string>(j, "hamgan_version", "");
    p.sfid_layer = field<std::string>(j, "sfid_layer", "");
    p.labels = field<std::string>(j, "labels", "");
    p.arithmetic = field<std::string>(j, "arithmetic", "");
    if (p.extractor.empty()) throw DataError("");
    return p;
  } catch (const std::exception&) {  // nlohmann's parse and type errors, and the checks above
    throw DataError(what + ": the `protocol` member is not a HamGAN protocol stamp (JSON object with an extractor); "
                    "rewrite the file with 'hamgan fid-stats' or delete that member");
  }
}

std::string protocol_mismatch(const StatsProtocol& a, const StatsProtocol& b) {
  auto differ = [](const char* name, const std::string& x, const std::string& y) {
    return std::string(name) + " differs (" + (x.empty() ? "none" : x) + " vs " + (y.empty() ? "none" : y) + ")";
  };
  if (a.extractor != b.extractor) return differ("extractor", a.extractor, b.extractor);
  if (a.weights_sha256 != b.weights_sha256) return differ("weights_sha256", a.weights_sha256, b.weights_sha256);
  if (a.preprocessing != b.preprocessing) return differ("preprocessing", a.preprocessing, b.preprocessing);
  if (a.image_size != b.image_size && a.image_size > 0 && b.image_size > 0)
    return differ("image_size", std::to_string(a.image_size), std::to_string(b.image_size));
  if (a.feature_dim != b.feature_dim)
    return differ("feature_dim", std::to_string(a.feature_dim), std::to_string(b.feature_dim));
  if (!a.sfid_layer.empty() && !b.sfid_layer.empty() && a.sfid_layer != b.sfid_layer)
    return differ("sfid_layer", a.sfid_layer, b.sfid_layer);
  return "";
}

std::string protocol_summary(const StatsProtocol& p) {
  const std::string sha = p.weights_sha256.empty() ? "in memory" : "sha256 " + p.weights_sha256.substr(0, 12) + "…";
  return p.extractor + " " + sha + ", " + p.preprocessing + ", " + std::to_string(p.image_size) + " px images" +
         (p.labels.empty() ? "" : ", labels " + p.labels) + (p.arithmetic.empty() ? "" : ", " + p.arithmetic);
}

}  // namespace hamgan
