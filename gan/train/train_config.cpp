// The TrainConfig field table: validation, the resolved config text and its reader.
#include "gan/train/train_config.h"

#include <torch/torch.h>

#include <algorithm>

#include "core/device.h"
#include "core/errors.h"
#include "data/formats.h"
#include "gan/eval/evaluation.h"

namespace hamgan {
namespace {

// Spelling only; whether the device exists is checked by validate() (resolve_device).
std::string device_spelling(const std::string& v) {
  const bool indexed = v.rfind("cuda:", 0) == 0 && v.size() > 5 &&
                       v.find_first_not_of("0123456789", 5) == std::string::npos;
  return v == "auto" || v == "cpu" || v == "cuda" || indexed ? "" : "must be auto, cpu, cuda or cuda:N";
}

// Model keys (through TrainConfig::model) then train keys: the order of the resolved file.
FieldTable<TrainConfig> all_fields() {
  auto t = nested_fields(model_config_fields(), &TrainConfig::model);
  const auto& train = train_config_fields();
  t.insert(t.end(), train.begin(), train.end());
  return t;
}

std::vector<std::string> best_metric_choices() {
  std::vector<std::string> c = {"auto", "none"};
  for (const auto& m : eval_metric_names()) c.push_back(m);
  return c;
}

bool listed(const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); }

}  // namespace

const EnumNames<DatasetSplit>& dataset_split_names() {
  static const EnumNames<DatasetSplit> names("dataset_split",
                                             {{DatasetSplit::kTrain, "train"}, {DatasetSplit::kTest, "test"}});
  return names;
}

const EnumNames<NoiseStreams>& noise_streams_names() {
  static const EnumNames<NoiseStreams> names("noise_streams",
                                             {{NoiseStreams::kPerRank, "per_rank"}, {NoiseStreams::kGlobal, "global"}});
  return names;
}

const FieldTable<TrainConfig>& train_config_fields() {
  using T = TrainConfig;
  // What a resume may change (resume_check.h): keys that shape the updates or random draws must match.
  constexpr ResumeRule kMust = ResumeRule::kMustMatch, kMay = ResumeRule::kMayChange,
                       kNotCompared = ResumeRule::kNotCompared;
  static const FieldTable<TrainConfig> table = concat_fields<TrainConfig>({
      // data
      member_field(string_field("dataset", "Dataset: " + dataset_format_list(), not_empty()), &T::dataset)
          .on_resume(kMust),
      enum_field("dataset_split", dataset_split_names(), "IDX split", &T::dataset_split).on_resume(kMust),
      member_field(float_field("dataset_fraction", "Train on this fixed, class-balanced fraction of the data "
                                                   "(the same images for every seed)", between(1e-9, 1)),
                   &T::dataset_fraction)
          .on_resume(kMust),
      member_field(bool_field("flip", "Random horizontal flips of real images"), &T::flip).on_resume(kMust),
      member_field(int_field("workers", "Data decoding threads", at_least(1)), &T::workers).on_resume(kMay),
      member_field(int_field("shuffle_window",
                             "Chunked (compressed) HDF5: chunks shuffled together, each decoded once per epoch; "
                             "0 shuffles every image freely (docs/data.md, \"Loader\")",
                             at_least(0)),
                   &T::shuffle_window)
          .on_resume(kMust),
      // optimisation
      member_field(int_field("batch_size", "Images per D and per G update", at_least(1)), &T::batch_size)
          .on_resume(kMust),
      member_field(int_field("steps", "Total steps (d_steps D updates + 1 G update each)", at_least(0)), &T::steps)
          .on_resume(kMay),
      member_field(float_field("g_lr", "Generator Adam learning rate", above(0)), &T::g_lr).on_resume(kMay),
      member_field(float_field("d_lr", "Discriminator Adam learning rate", above(0)), &T::d_lr).on_resume(kMay),
      member_field(float_field("beta1", "Adam beta1", in_range(0, 1)), &T::beta1).on_resume(kMust),
      member_field(float_field("beta2", "Adam beta2", in_range(0, 1)), &T::beta2).on_resume(kMust),
      member_field(float_field("adam_eps", "Adam epsilon", above(0)), &T::adam_eps).on_resume(kMust),
      member_field(int_field("d_steps", "D updates per G update", at_least(1)), &T::d_steps).on_resume(kMust),
      member_field(int_field("accumulate", "Micro-batches per D and G update (gradient accumulation; batch_size / accumulate in memory)",
                             at_least(1)),
                   &T::accumulate).on_resume(kMust),
      enum_field("loss", loss_type_names(), "hinge | ns (non-saturating) | rpgan (relativistic pairing)", &T::loss)
          .on_resume(kMust),
      // EMA
      member_field(bool_field("ema", "Keep an EMA of G's weights for samples and evaluation"), &T::ema)
          .on_resume(kMust),
      member_field(float_field("ema_decay", "EMA decay", in_range(0, 1)), &T::ema_decay).on_resume(kMust),
      member_field(int_field("ema_start", "G updates before which the EMA copies G", at_least(0)), &T::ema_start)
          .on_resume(kMust),
      // run
      member_field(int_field("seed", "Seed of weights, noise, labels and data order", at_least(0)), &T::seed)
          .on_resume(kMust),
      member_field(string_field("device", "auto | cpu | cuda | cuda:N", device_spelling), &T::device).on_resume(kMay),
      enum_field("precision", precision_choice_names(),
                 "auto (tf32 on CUDA, fp32 on CPU) | fp32 (strict) | tf32 | bf16 (autocast)", &T::precision)
          .on_resume(kMay),
      member_field(bool_field("channels_last", "NHWC activations and conv weights"), &T::channels_last).on_resume(kMay),
      member_field(int_field("max_nonfinite_steps",
                             "Non-finite steps skipped (updates not applied) before the run stops (0: first stops)",
                             at_least(0)),
                   &T::max_nonfinite_steps).on_resume(kMay),
      member_field(int_field("threads", "LibTorch CPU threads (0 = default)", at_least(0)), &T::threads)
          .on_resume(kMay),
      member_field(string_field("run_dir", "Run directory (default runs/<config name>)", not_empty()), &T::run_dir)
          .on_resume(kNotCompared),
      // Intervals (core/schedule.h): at each multiple, and at the last step.
      member_field(int_field("log_every", "Steps between metrics rows, plus one at the last step", at_least(1)),
                   &T::log_every).on_resume(kMay),
      member_field(int_field("sample_every", "Steps between sample grids, plus one at the last step (0: that one only)",
                             at_least(0)),
                   &T::sample_every).on_resume(kMay),
      member_field(int_field("checkpoint_every",
                             "Steps between checkpoints, plus one at the last step and on a stop (0: those only)",
                             at_least(0)),
                   &T::checkpoint_every).on_resume(kMay),
      member_field(int_field("keep_checkpoints", "Newest checkpoint files kept", at_least(1)), &T::keep_checkpoints)
          .on_resume(kMay),
      member_field(int_field("eval_every", "Steps between evaluations, plus one at the last step (0: none at all)",
                             at_least(0)),
                   &T::eval_every)
          .on_resume(kMay),
      member_field(int_field("eval_n", "Generated images per evaluation", at_least(1)), &T::eval_n).on_resume(kMay),
      member_field(int_field("eval_final_n", "Generated images for the evaluation at the last step (0: eval_n)",
                             at_least(0)),
                   &T::eval_final_n).on_resume(kMay),
      member_field(list_field("eval_metrics", eval_metric_names(), "Metrics of each evaluation (one set of samples)"),
                   &T::eval_metrics).on_resume(kMay),
      member_field(string_field("eval_reference", "Inception statistics of the real images (.npz from fid-stats; "
                                                  "with --sfid for sfid) for fid_inception and sfid"),
                   &T::eval_reference).on_resume(kMay),
      member_field(string_field("inception", "Inception weights for fid_inception, sfid and is (default "
                                             "$HAMGAN_INCEPTION)"),
                   &T::inception).on_resume(kMay),
      member_field(string_field("dinov2", "DINOv2 TorchScript file for the dinov2 metric (scripts/convert_dinov2.py)"),
                   &T::dinov2).on_resume(kMay),
      enum_field("dinov2_resize", dino_resize_table(), "DINOv2 preprocessing of the dinov2 metric", &T::dinov2_resize)
          .on_resume(kMay),
      member_field(string_field("eval_reference_dinov2", "DINOv2 statistics of the real images (.npz from fid-stats "
                                                         "--features dinov2:FILE) for dinov2"),
                   &T::eval_reference_dinov2).on_resume(kMay),
      enum_field("eval_labels", label_mode_table(), "Classes each evaluation asks G for: balanced, random, or dataset "
                                                    "(the training set's class frequencies)",
                 &T::eval_labels).on_resume(kMust),
      member_field(choice_field("best_metric", best_metric_choices(),
                                "Metric whose best value keeps checkpoints/best.pt (auto: fid_inception if "
                                "evaluated, else fid_classifier)"),
                   &T::best_metric)
          .on_resume(kMay),
      member_field(int_field("standing_stats",
                             "Batches of " + std::to_string(kStandingBatchSize) +
                                 " images to recompute G's BN statistics over before grids and evaluation "
                                 "(0: stored moving averages)",
                             at_least(0)),
                   &T::standing_stats).on_resume(kMay),
      member_field(string_field("classifier", "Fashion-MNIST classifier for evaluation (built if missing)"),
                   &T::classifier).on_resume(kMay),
      member_field(bool_field("tensorboard", "Write TensorBoard event files into the run dir"), &T::tensorboard)
          .on_resume(kNotCompared),
      // data-parallel
      member_field(bool_field("sync_bn", "Synchronise G's batch-norm statistics across ranks"), &T::sync_bn)
          .on_resume(kMay),
      enum_field("dist_backend", dist_backend_choice_names(), "auto (NCCL on CUDA, Gloo on CPU) | gloo | nccl",
                 &T::dist_backend)
          .on_resume(kMay),
      member_field(int_field("dist_timeout", "Seconds a rank waits on the others before ending with an error",
                             at_least(1)),
                   &T::dist_timeout).on_resume(kMay),
      enum_field("noise_streams", noise_streams_names(),
                 "per_rank: each rank draws its own z | global: each rank its slice of one stream", &T::noise_streams)
          .on_resume(kMay),
  }, nested_fields(recipe_config_fields(), &TrainConfig::recipe));
  return table;
}

void TrainConfig::validate() const {
  model.validate();
  validate_fields("train", train_config_fields(), *this);
  resolve_device(device);  // it exists; whether it computes bf16 is found once, by resolve_precision
  if (batch_size % accumulate != 0)
    throw ConfigError("train: batch_size " + std::to_string(batch_size) + " does not split into accumulate = " +
                      std::to_string(accumulate) + " equal micro-batches; choose an accumulate that divides it");
  if (best_metric != "auto" && best_metric != "none" && eval_every > 0 && !listed(evaluated_metrics(*this), best_metric))
    throw ConfigError("train: best_metric " + best_metric + " is not evaluated (eval_metrics = [" +
                      join_list(evaluated_metrics(*this)) + "]); add it to eval_metrics or choose one of those");
}

std::vector<std::string> evaluated_metrics(const TrainConfig& c) {
  std::vector<std::string> out;
  if (c.eval_every <= 0) return out;
  for (const auto& m : c.eval_metrics)
    if (!uses_classifier(m) || !c.classifier.empty()) out.push_back(m);
  return out;
}

std::string resolved_best_metric(const TrainConfig& c) {
  const auto metrics = evaluated_metrics(c);
  if (c.best_metric == "none") return "";
  if (c.best_metric != "auto") return listed(metrics, c.best_metric) ? c.best_metric : "";
  for (const char* m : {"fid_inception", "fid_classifier"})
    if (listed(metrics, m)) return m;
  return "";
}

std::string resolved_config_text(const TrainConfig& c) {
  return "# resolved by hamgan train; reproduce with: hamgan train --config THIS_FILE\n" +
         model_config_to_text(c.model) + fields_to_text(train_config_fields(), c);
}

TrainConfig train_config_from_text(const std::string& text) {
  TrainConfig c;
  fields_from_text("train", all_fields(), text, c);
  return c;
}

}  // namespace hamgan
