#pragma once
// Everything `hamgan train` needs, as one aggregate with defaults. The defaults
// are the reference ImageNet recipe (docs/training.md, "Reference recipes"): hinge loss,
// Adam TTUR G 1e-4 / D 4e-4, betas (0, 0.999), 1 D step per G step; EMA as
// BigGAN-PyTorch (decay 0.9999). The TOML keys and CLI options carry the
// same names as the fields; train_config_fields() is the one list of them.
#include <cstdint>
#include <string>
#include <vector>

#include "core/config_fields.h"
#include "data/loader.h"
#include "core/distributed/communicator.h"
#include "gan/step/losses.h"
#include "gan/step/precision.h"
#include "gan/step/recipe_config.h"
#include "gan/model/model_config.h"
#include "gan/sample/standing_stats.h"
#include "metrics/dinov2_preprocess.h"
#include "metrics/label_mode.h"

namespace hamgan {

// The IDX split a run trains on (its names are the dataset's split names).
enum class DatasetSplit { kTrain, kTest };
const EnumNames<DatasetSplit>& dataset_split_names();  // train, test

// Whose noise stream each rank of a data-parallel job draws z and fake labels from.
enum class NoiseStreams {
  kPerRank,  // its own, seeded by (seed, rank)
  kGlobal,   // its slice of rank 0's draw of the global batch: the run does not depend on the world size
};
const EnumNames<NoiseStreams>& noise_streams_names();  // per_rank, global

// What `hamgan train` does with checkpoints already in its run directory.
enum class ResumeMode {
  kNo,    // there must be none: a second run into the same directory is refused
  kYes,   // --resume: continue from the newest (or from resume_file); refused where there is none
  kAuto,  // --resume auto: continue from the newest where there is one, else start fresh (a requeued job)
};
const EnumNames<ResumeMode>& resume_mode_names();  // false, true, auto

struct TrainConfig {
  ModelConfig model;
  // data
  std::string dataset = kDefaultFashionMnistDir;  // any format of data/formats.h
  DatasetSplit dataset_split = DatasetSplit::kTrain;  // IDX split
  double dataset_fraction = 1;                    // a fixed, class-balanced subset (data/subset_dataset.h)
  bool flip = false;                              // random horizontal flips (TF-GAN: none)
  int64_t workers = 1;                            // data decoding threads
  int64_t shuffle_window = LoaderOptions::kDefaultShuffleWindow;  // chunks shuffled together (0: full shuffle)
  // optimisation
  int64_t batch_size = 64;  // images per D and per G update
  int64_t steps = 10000;    // total training steps; one step = d_steps D updates + 1 G update
  double g_lr = 1e-4;       // generator Adam learning rate (TTUR)
  double d_lr = 4e-4;       // discriminator Adam learning rate (TTUR)
  double beta1 = 0.0;       // Adam beta1 (TF-GAN 0.0)
  double beta2 = 0.999;     // Adam beta2 (TF default; SAGAN paper 0.9)
  double adam_eps = 1e-8;   // Adam epsilon
  int64_t d_steps = 1;      // D updates per G update
  // Micro-batches per D and per G update, gradients summed before the optimiser step
  // (BigGAN-PyTorch's num_D_accumulations/num_G_accumulations): batch_size / accumulate
  // images in memory at a time. BN and spectral norm see each micro-batch on its own.
  int64_t accumulate = 1;
  LossType loss = LossType::kHinge;
  RecipeConfig recipe;  // penalties, augmentation, LeCam (docs/recipe.md); keys listed with the train keys
  // EMA of G's weights (used for samples and evaluation)
  bool ema = true;
  double ema_decay = 0.9999;  // BigGAN-PyTorch default
  int64_t ema_start = 1000;   // G updates before which the EMA is a plain copy
  // run
  uint64_t seed = 0;                 // seeds weights, noise, labels and data order
  std::string device = "auto";       // auto | cpu | cuda | cuda:N
  // Arithmetic (docs/training.md "Precision"): auto (tf32 on CUDA, fp32 on CPU) | fp32 | tf32 | bf16
  PrecisionChoice precision = PrecisionChoice::kAuto;
  bool channels_last = false;        // NHWC activations and conv weights (faster convolutions with cuDNN)
  int64_t max_nonfinite_steps = 0;   // non-finite steps skipped before the run stops (0: the first stops it)
  int64_t threads = 0;               // CPU threads for LibTorch; 0 = its default
  std::string run_dir = "runs/train";
  ResumeMode resume = ResumeMode::kNo;
  std::string resume_file;           // --resume FILE: continue from this checkpoint (resume is then kYes)
  int64_t time_limit = 0;            // wall-clock seconds this process may run (0: no limit); it stops in time to checkpoint
  bool allow_config_change = false;  // resume even when seed, batch_size, data, ... differ (gan/train/resume_check.h)
  int64_t log_every = 50;            // steps between metrics.jsonl/TensorBoard rows
  int64_t sample_every = 1000;       // steps between sample grids (0 = only at the end)
  int64_t checkpoint_every = 1000;   // steps between checkpoints (0 = only at the end)
  int64_t keep_checkpoints = 2;      // newest checkpoint files kept (>= 1)
  int64_t eval_every = 0;            // steps between evaluations (0 = off; gan/eval/evaluation.h)
  int64_t eval_n = 1000;             // generated images per evaluation
  int64_t eval_final_n = 0;          // images for the evaluation at the last step (0: eval_n), e.g. 50000 for the paper number
  std::vector<std::string> eval_metrics = {"class_consistency", "fid_classifier"};  // fid_inception, is too
  std::string eval_reference;        // Inception statistics of the real images (hamgan fid-stats) for fid_inception
  std::string inception;             // Inception weights for fid_inception, sfid and is ("" = $HAMGAN_INCEPTION)
  std::string dinov2;                // DINOv2 TorchScript file for the dinov2 metric (scripts/convert_dinov2.py)
  DinoResize dinov2_resize = DinoResize::torch_bicubic;
  std::string eval_reference_dinov2; // DINOv2 statistics of the real images (fid-stats --features dinov2:FILE)
  LabelMode eval_labels = LabelMode::balanced;  // classes the evaluation asks G for (metrics/label_mode.h)
  // The metric whose best value keeps checkpoints/best.pt: auto = fid_inception when
  // evaluated, else fid_classifier; none = no best checkpoint.
  std::string best_metric = "auto";
  // Batches of kStandingBatchSize images over which G's BN statistics are recomputed
  // before grids and evaluation (gan/sample/standing_stats.h); 0 = the stored moving averages.
  int64_t standing_stats = kDefaultStandingBatches;
  std::string classifier = "runs/classifier/fmnist_classifier.pt";  // for evaluation (Fashion-MNIST)
  bool tensorboard = true;           // write TensorBoard event files into run_dir
  bool progress = true;              // draw a progress bar
  // data-parallel (docs/training.md "Data-parallel training"); batch_size is the global batch
  bool sync_bn = false;                 // G's batch-norm statistics over all ranks' batches (default: per rank, as BigGAN)
  DistBackendChoice dist_backend = DistBackendChoice::kAuto;  // auto: NCCL on CUDA, Gloo on CPU
  int64_t dist_timeout = 600;           // seconds a rank waits on the others before ending with an error
  NoiseStreams noise_streams = NoiseStreams::kPerRank;

  std::string config_text;  // resolved config (TOML); written to run_dir/config.toml and every checkpoint

  // Throws ConfigError naming the key. Checks what needs no computation on the device:
  // whether the device computes in bf16 is found when the run resolves its precision.
  void validate() const;
};

// The metrics evaluation computes (none when eval_every = 0; the classifier
// metrics only with a classifier), and the one that keeps best.pt ("" = none).
std::vector<std::string> evaluated_metrics(const TrainConfig& c);
std::string resolved_best_metric(const TrainConfig& c);

// The train keys in order (model keys excluded; they are model_config_fields()). Run control
// (resume, time_limit, progress) and callbacks are not keys.
const FieldTable<TrainConfig>& train_config_fields();

// The complete resolved config as TOML: a comment line, the model keys, then the train keys.
// `hamgan train --config FILE` with this text reproduces `c` (run control aside).
std::string resolved_config_text(const TrainConfig& c);
// Reads resolved_config_text (or any flat file of model and train keys) onto the defaults;
// unknown keys and bad values throw ConfigError naming the key.
TrainConfig train_config_from_text(const std::string& text);

}  // namespace hamgan
