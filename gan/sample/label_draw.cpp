#include "gan/sample/label_draw.h"

#include "core/errors.h"
#include "core/rng.h"

namespace hamgan {
namespace {

// A stream of its own: the labels never shift the z drawn from the same seed.
constexpr uint64_t kLabelStream = 0x6c6162656c73ULL;  // "labels"

}  // namespace

std::string LabelDraw::describe() const {
  return mode == LabelMode::dataset ? "dataset (class frequencies of " + source + ")" : to_string(mode);
}

torch::Tensor draw_labels(int64_t n, int64_t num_classes, uint64_t seed, const LabelDraw& draw) {
  if (draw.mode == LabelMode::balanced) return torch::arange(n, torch::kInt64).remainder(num_classes);  // i mod K
  at::Generator gen = make_cpu_generator(seed ^ kLabelStream);
  if (draw.mode == LabelMode::random) return torch::randint(num_classes, {n}, gen, torch::kInt64);
  if (!draw.class_weights.defined() || draw.class_weights.numel() != num_classes)
    throw ConfigError("labels: dataset needs the class frequencies of a data set with " + std::to_string(num_classes) +
                      " classes" + (draw.class_weights.defined()
                                        ? " (" + draw.source + " has " + std::to_string(draw.class_weights.numel()) + ")"
                                        : std::string()));
  if (n == 0) return torch::empty({0}, torch::kInt64);
  return torch::multinomial(draw.class_weights, n, /*replacement=*/true, gen);
}

LabelDraw dataset_label_draw(const DatasetSpec& spec) {
  DatasetSpec quiet = spec;
  quiet.quiet = true;
  const auto data = open_dataset(quiet);
  torch::Tensor counts = torch::zeros({data->num_classes()}, torch::kFloat64);
  auto c = counts.accessor<double, 1>();
  for (int64_t i = 0; i < data->size(); ++i) c[data->label(i)] += 1.0;
  LabelDraw d;
  d.mode = LabelMode::dataset;
  d.class_weights = counts / counts.sum();
  d.source = spec.path;
  return d;
}

LabelDraw make_label_draw(LabelMode mode, const DatasetSpec& spec, const std::string& what) {
  if (mode != LabelMode::dataset) return LabelDraw{mode, {}, ""};
  if (spec.path.empty())
    throw ConfigError(what + ": --labels dataset needs a labelled data set for the class frequencies (--label_data PATH)");
  return dataset_label_draw(spec);
}

}  // namespace hamgan
