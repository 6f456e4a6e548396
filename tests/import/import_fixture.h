#pragma once
// What the import and --latents tests share: a two-step run of a tiny ham
// model on a 20-image folder (ham, so the NMF's random bases in eval mode are
// exercised too), an untrained classifier as the feature extractor, and the
// run's EMA generator in the safetensors layout `hamgan export` writes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "core/safetensors.h"
#include "data/image_io.h"
#include "gan/checkpoint/run_dir.h"
#include "gan/interop/generator_tensors.h"
#include "gan/sample/load_generator.h"
#include "metrics/classifier.h"
#include "tests/common/test_util.h"

namespace hamgan::test {

// The model and train keys of every run here (a --config file).
inline const char* kImportModelToml =
    "resolution = 32\nimage_channels = 1\nnum_classes = 10\nz_dim = 8\ng_ch = 4\nd_ch = 4\ng_block = \"ham\"\n"
    "d_block = \"ham\"\nham_rank = 2\nbatch_size = 4\nema_start = 1\nema_decay = 0.9\nlog_every = 1\n"
    "sample_every = 2\ncheckpoint_every = 2\ndevice = \"cpu\"\n";

class ImportFixture : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!hamgan_bin()) return;
    dir_ = scratch_dir("import", "suite");
    torch::manual_seed(0);
    for (int k = 0; k < 10; ++k) {
      const std::string cls = dir_ + "/data/c" + std::to_string(k);
      std::filesystem::create_directories(cls);
      for (int i = 0; i < 2; ++i)
        save_png(torch::randint(0, 256, {1, 32, 32}, torch::kUInt8), cls + "/" + std::to_string(i) + ".png");
    }
    ClassifierConfig cc;
    cc.width = 8;
    cc.feature_dim = 16;
    FeatureClassifier net(cc);
    save_classifier(dir_ + "/cls.pt", net);
    std::ofstream(dir_ + "/model.toml") << kImportModelToml << "dataset = \"" << dir_ << "/data\"\n";
    status_ = run("train --config " + dir_ + "/model.toml --run-dir " + dir_ + "/run --steps 2 --quiet", &train_output_);
    if (status_ == 0) write_safetensors(dir_ + "/G.safetensors", exported(dir_ + "/run"));
  }
  void SetUp() override {
    if (!hamgan_bin()) GTEST_SKIP() << "HAMGAN_BIN not set";
    ASSERT_EQ(status_, 0) << train_output_;
  }

  static int run(const std::string& args, std::string* out) {
    return run_command(std::string(hamgan_bin()) + " " + args, out);
  }

  // The run's EMA generator as `hamgan export` lays it out: G.* tensors and the "hamgan" metadata.
  static SafetensorsFile exported(const std::string& run_dir) {
    const Generator g = load_generator(resolve_checkpoint_path(run_dir), /*use_ema=*/true, torch::kCPU, 0, 0);
    SafetensorsFile f;
    f.tensors = generator_tensors(g);
    f.metadata = {{"format", "hamgan"},          {"format_version", "1"}, {"networks", "G"},
                  {"model", model_config_to_text(g->config())}, {"weights", "ema"},     {"step", "2"},
                  {"standing_stats", "0"},       {"source", run_dir}};
    return f;
  }

  // Options every scoring command here takes: the untrained classifier, one standing batch, CPU.
  // The folder holds grey PNGs, read as grey for the grey classifier.
  static std::string features() {
    return " --features classifier:" + dir_ + "/cls.pt --channels 1 --standing_stats 1 --device cpu";
  }

  static inline std::string dir_, train_output_;
  static inline int status_ = -1;
};

// "hamgan: error: ..." and nothing else: the one line every bad input gets.
inline bool one_error_line(const std::string& out) {
  return out.rfind("hamgan: error: ", 0) == 0 && out.find('\n') == out.size() - 1;
}

// The error line of a command that printed other lines first ("" unless there is exactly one, and it is the last).
inline std::string last_error_line(const std::string& out) {
  const auto at = out.find("hamgan: error: ");
  if (at == std::string::npos || out.find("hamgan: error: ", at + 1) != std::string::npos) return "";
  const std::string line = out.substr(at);
  return line.find('\n') == line.size() - 1 ? line : "";
}

inline double fid_in(const std::string& out) {
  std::smatch m;
  return std::regex_search(out, m, std::regex("FID: ([-+0-9.eE]+)")) ? std::stod(m[1].str()) : NAN;
}

}  // namespace hamgan::test
