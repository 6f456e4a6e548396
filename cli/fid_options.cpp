#include "cli/fid_options.h"

#include <algorithm>

#include "core/errors.h"
#include "gan/sample/latents_file.h"

namespace hamgan::cli {

const FieldTable<FeatureOptions>& feature_option_fields() {
  using F = FeatureOptions;
  static const FieldTable<FeatureOptions> table = {
      member_field(string_field("features", "Feature extractor: inception, inception:PATH, dinov2:PATH (FD_DINOv2) or classifier:PATH"),
                   &F::spec),
      member_field(string_field("inception", "Inception weights: NVIDIA inception-2015-12-05.pt or pytorch-fid .pth "
                                             "(default: $HAMGAN_INCEPTION)"),
                   &F::inception),
      enum_field("resize", resize_mode_table(), "Inception preprocessing (legacy_tensorflow = TF1/StyleGAN2-ADA protocol)",
                 &F::resize),
      enum_field("dinov2_resize", dino_resize_table(),
                 "DINOv2 preprocessing (torch_bicubic = EDM2's default, pil_bicubic = dgm-eval, legacy_tensorflow = "
                 "torch-fidelity)",
                 &F::dinov2_resize),
      member_field(flag_field("sfid", "Also sFID: spatial Inception features (ADM's evaluator)"), &F::sfid),
      enum_field("sfid_layer", sfid_layer_table(), "sFID's activation: adm (mixed_6/conv) or mixed_6e (dgm-eval)",
                 &F::sfid_layer),
      member_field(string_field("device", "auto, cpu, cuda or cuda:N (features and generator checkpoints)"),
                   &F::device),
  };
  return table;
}

FieldTable<SampleOptions> sample_option_fields() {
  using S = SampleOptions;
  FieldTable<SampleOptions> table = {
      member_field(int_field("n", "Images per data set or generator (0: a whole data set; generators class-balanced)",
                             at_least(0)),
                   &S::n),
      member_field(int_field("batch", "Images per feature-extractor batch (0: what the device suits, 250 on a GPU, 50 "
                                      "on a CPU)",
                             at_least(0)),
                   &S::batch),
      member_field(int_field("seed", "Generator noise and data-subset seed", at_least(0)), &S::seed),
      member_field(int_field("standing_stats", "Generators: batches of 64 to recompute G's BN statistics over "
                                               "(0: stored moving averages)",
                             at_least(0)),
                   &S::standing_stats),
      enum_field("labels", label_mode_table(),
                 "Generators: classes asked for (balanced: i mod K; random: uniform; dataset: the class frequencies of "
                 "--label_data or of the data-set input)",
                 &S::labels),
      member_field(string_field("label_data", "--labels dataset: the data set whose class frequencies are drawn"),
                   &S::label_data),
      member_field(string_field("latents", "Generators: z float32 (N, z_dim) and labels y int64 (N) from this .npz "
                                           "(as `hamgan sample --float` writes them) instead of the seed; all N "
                                           "images in file order (--n defaults to N)"),
                   &S::latents),
  };
  const auto data = nested_fields(dataset_option_fields(), &S::data);
  table.insert(table.end(), data.begin(), data.end());
  return table;
}

void default_n_from_latents(const CLI::App* app, SampleOptions& sampling, int64_t repeats) {
  if (sampling.latents.empty() || option_given(app, "n")) return;
  const int64_t rows = latents_count(sampling.latents);
  if (repeats > 1 && rows % repeats != 0)
    throw ConfigError("--latents " + sampling.latents + " holds " + std::to_string(rows) + " rows, which do not split "
                      "into --repeats " + std::to_string(repeats) + " equal seed ranges" +
                      (rows < repeats ? " (fewer rows than ranges)" : "") + "; give a file of " +
                      std::to_string(repeats) + " × n rows");
  sampling.n = rows / std::max<int64_t>(1, repeats);
}

}  // namespace hamgan::cli
