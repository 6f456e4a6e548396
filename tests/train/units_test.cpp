// Losses, EMA, TensorBoard encoding, metrics log and plot against independent expectations.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "core/errors.h"
#include "data/image_io.h"
#include "gan/checkpoint/checkpoint.h"
#include "gan/train/ema.h"
#include "gan/train/losses.h"
#include "modules/ham_block.h"
#include "gan/report/plot.h"
#include "gan/report/run_log.h"
#include "gan/report/tensorboard.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {

TEST(Losses, HingeAndNonSaturatingMatchTheirFormulasInDouble) {
  torch::manual_seed(3);
  const torch::Tensor r = torch::randn({17}) * 2, f = torch::randn({17}) * 2;
  const auto rd = r.to(torch::kDouble), fd = f.to(torch::kDouble);
  double hinge_d = 0, hinge_g = 0, ns_d = 0, ns_g = 0;
  for (int64_t i = 0; i < 17; ++i) {
    const double x = rd[i].item<double>(), y = fd[i].item<double>();
    hinge_d += std::max(0.0, 1 - x) / 17 + std::max(0.0, 1 + y) / 17;
    hinge_g += -y / 17;
    const double sx = 1 / (1 + std::exp(-x)), sy = 1 / (1 + std::exp(-y));
    ns_d += -std::log(sx) / 17 - std::log(1 - sy) / 17;
    ns_g += -std::log(sy) / 17;
  }
  EXPECT_NEAR(discriminator_loss(LossType::kHinge, r, f).item<double>(), hinge_d, 1e-5);
  EXPECT_NEAR(generator_loss(LossType::kHinge, f).item<double>(), hinge_g, 1e-5);
  EXPECT_NEAR(discriminator_loss(LossType::kNonSaturating, r, f).item<double>(), ns_d, 1e-5);
  EXPECT_NEAR(generator_loss(LossType::kNonSaturating, f).item<double>(), ns_g, 1e-5);
  EXPECT_EQ(parse_loss_type("ns"), LossType::kNonSaturating);
  EXPECT_THROW(parse_loss_type("wgan"), ConfigError);
}

struct Net : torch::nn::Module {
  Net() {
    w = register_parameter("w", torch::randn({3, 4}));
    running = register_buffer("running", torch::randn({4}));
    count = register_buffer("count", torch::tensor(int64_t{5}));
  }
  torch::Tensor w, running, count;
};

TEST(Ema, CopiesBeforeStartThenFollowsTheDecayFormula) {
  torch::manual_seed(1);
  Net src, dst;
  EXPECT_EQ(ema_decay_at(3, 5, 0.99), 0.0);
  EXPECT_EQ(ema_decay_at(5, 5, 0.99), 0.99);
  ema_update(src, dst, ema_decay_at(0, 5, 0.99));  // before start: a copy
  EXPECT_TRUE(torch::equal(dst.w, src.w));
  EXPECT_TRUE(torch::equal(dst.running, src.running));
  const torch::Tensor before_w = dst.w.to(torch::kDouble).clone(), before_r = dst.running.to(torch::kDouble).clone();
  {
    torch::NoGradGuard g;
    src.w.add_(1.5);
    src.running.mul_(-2);
    src.count.fill_(9);
  }
  const double decay = 0.9;
  ema_update(src, dst, decay);
  const torch::Tensor want_w = decay * before_w + (1 - decay) * src.w.to(torch::kDouble);
  const torch::Tensor want_r = decay * before_r + (1 - decay) * src.running.to(torch::kDouble);
  EXPECT_LT((dst.w.to(torch::kDouble) - want_w).abs().max().item<double>(), 1e-6);
  EXPECT_LT((dst.running.to(torch::kDouble) - want_r).abs().max().item<double>(), 1e-6);
  EXPECT_EQ(dst.count.item<int64_t>(), 9);  // integer buffers are copied
}

TEST(TensorBoard, Crc32cMatchesPublishedTestVectors) {
  // RFC 3720 B.4 / the CRC catalogue's check value for CRC-32C.
  const std::string check = "123456789";
  EXPECT_EQ(crc32c(check.data(), check.size()), 0xE3069283u);
  const std::string zeros(32, '\0'), ones(32, '\xff');
  EXPECT_EQ(crc32c(zeros.data(), zeros.size()), 0x8A9136AAu);
  EXPECT_EQ(crc32c(ones.data(), ones.size()), 0x62A8AB43u);
  std::string inc(32, '\0');
  for (int i = 0; i < 32; ++i) inc[i] = static_cast<char>(i);
  EXPECT_EQ(crc32c(inc.data(), inc.size()), 0x46DD794Eu);
  const uint32_t c = crc32c(check.data(), check.size());
  EXPECT_EQ(masked_crc32c(check.data(), check.size()), ((c >> 15) | (c << 17)) + 0xA282EAD8u);
}

TEST(TensorBoard, EventFileReadsBackThroughTensorboardsOwnReader) {
  if (test::run_command(HAMGAN_PYTHON " -c 'import tensorboard'") != 0) REFERENCE_MISSING("python tensorboard not installed");
  const std::string dir = test::temp_dir("tb");
  std::string png_path = dir + "/img.png";
  save_png(torch::arange(2 * 3 * 5, torch::kUInt8).reshape({3, 2, 5}), png_path);
  const std::string png = test::file_contents(png_path);
  std::string event_file;
  {
    TensorBoardWriter w(dir + "/run");
    w.add_scalar("loss/d", 1.25, 7);
    w.add_scalar("loss/g", -3.5e-3, 123456789012LL);
    w.add_image("samples", png, 2, 5, 3, 8);
    w.flush();
    event_file = w.path();
  }
  EXPECT_NE(std::filesystem::path(event_file).filename().string().find("tfevents"), std::string::npos);
  std::string out;
  ASSERT_EQ(test::run_command(HAMGAN_PYTHON " " + test::python_script("read_tfevents.py") + " " + event_file, &out), 0) << out;
  std::ostringstream want;
  want << std::setprecision(17) << "version brain.Event:2\n"
       << "scalar 7 loss/d 1.25\n"
       << "scalar 123456789012 loss/g " << static_cast<double>(-3.5e-3f) << "\n"
       << "image 8 samples 2 5 3 " << png.size() << "\n";
  // The script prints floats with repr(); compare numerically line by line.
  std::istringstream got_lines(out), want_lines(want.str());
  std::string g, w;
  while (std::getline(want_lines, w)) {
    ASSERT_TRUE(static_cast<bool>(std::getline(got_lines, g))) << out;
    std::istringstream gs(g), ws(w);
    std::string gt, wt;
    while (ws >> wt) {
      ASSERT_TRUE(static_cast<bool>(gs >> gt)) << g;
      char* e1 = nullptr;
      char* e2 = nullptr;
      const double a = std::strtod(gt.c_str(), &e1), b = std::strtod(wt.c_str(), &e2);
      if (*e1 == '\0' && *e2 == '\0' && !gt.empty()) EXPECT_NEAR(a, b, 1e-9 * std::max(1.0, std::fabs(b))) << g;
      else EXPECT_EQ(gt, wt) << g;
    }
  }
  // A flipped payload byte must be caught by the reader's CRC check.
  std::string bytes = test::file_contents(event_file);
  bytes[bytes.size() - 10] ^= 0x20;
  {
    std::ofstream f(event_file, std::ios::binary | std::ios::trunc);
    f << bytes;
  }
  EXPECT_NE(test::run_command(HAMGAN_PYTHON " " + test::python_script("read_tfevents.py") + " " + event_file), 0);
}

TEST(MetricsLog, AppendsReadsAndTrimsOnResume) {
  const std::string dir = test::temp_dir("log");
  const std::string path = dir + "/metrics.jsonl";
  {
    MetricsLog log(path, -1);
    for (int64_t s = 1; s <= 4; ++s) log.append(s, {{"d_loss", 0.5 * s}, {"bad", s == 3 ? NAN : 1.0}});
  }
  auto rows = read_metrics(path);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1].at("step"), 2);
  EXPECT_DOUBLE_EQ(rows[1].at("d_loss"), 1.0);
  EXPECT_TRUE(std::isnan(rows[2].at("bad")));
  // Python's json module reads the same file.
  std::string out;
  ASSERT_EQ(test::run_command(HAMGAN_PYTHON " -c \"import json,sys; r=[json.loads(l) for l in open('" + path +
                                  "')]; print(sum(x['d_loss'] for x in r))\"",
                              &out),
            0)
      << out;
  EXPECT_NEAR(std::stod(out), 5.0, 1e-12);
  MetricsLog resumed(path, 2);  // rows after the checkpoint's step are dropped
  resumed.append(3, {{"d_loss", 9}});
  rows = read_metrics(path);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_DOUBLE_EQ(rows[2].at("d_loss"), 9);
  std::ofstream(path, std::ios::app) << "{\"step\": 4, \"x\": }\n";
  EXPECT_THROW(read_metrics(path), DataError);
}

TEST(Plot, DrawsOnePanelPerMetricGroupWithTheCurvesColoured) {
  const std::string dir = test::temp_dir("plot");
  {
    MetricsLog log(dir + "/metrics.jsonl", -1);
    for (int64_t s = 10; s <= 200; s += 10)
      log.append(s, {{"d_loss", 2.0 - s / 200.0}, {"g_loss", 0.5}, {"d_real", 1}, {"d_fake", -1}, {"it_per_s", 3}});
    log.append(200, {{"class_consistency", 0.8}});
  }
  const auto panels = plot_panels(read_metrics(dir + "/metrics.jsonl"));
  ASSERT_EQ(panels.size(), 4u);
  EXPECT_EQ(panels[0].first, "losses");
  EXPECT_EQ(panels[3].first, "class_consistency");
  PlotConfig pc;
  pc.run_dir = dir;
  const std::string out = plot_run(pc);
  const torch::Tensor img = load_png(out);
  EXPECT_EQ(img.size(0), 3);
  EXPECT_EQ(img.size(1), 2 * pc.height);
  EXPECT_EQ(img.size(2), 2 * pc.width);
  // The first palette colours (d_loss blue, g_loss red) appear in the losses panel.
  auto count_colour = [&](int r, int g, int b) {
    const auto p = img.slice(1, 0, pc.height).slice(2, 0, pc.width).to(torch::kInt);
    return ((p[0] == r) & (p[1] == g) & (p[2] == b)).sum().item<int64_t>();
  };
  EXPECT_GT(count_colour(31, 119, 180), 100);
  EXPECT_GT(count_colour(214, 39, 40), 100);
  PlotConfig missing;
  missing.run_dir = dir + "/nope";
  EXPECT_THROW(plot_run(missing), DataError);
}

// The checkpoint's model text is the flat TOML of model_config_fields(): compared with text written
// by hand, not with the writer's own output.
const char* const kModelText =
    "resolution = 64\n"
    "image_channels = 3\n"
    "num_classes = 10\n"
    "z_dim = 128\n"
    "g_ch = 24\n"
    "d_ch = 64\n"
    "block_resolution = 16\n"
    "g_block = \"ham\"\n"
    "d_block = \"sa\"\n"
    "init = \"orthogonal\"\n"
    "ham_type = \"cd\"\n"
    "ham_train_steps = 6\n"
    "ham_eval_steps = 3\n"
    "ham_rank = 0\n"
    "ham_gradient = \"one-step\"\n"
    "ham_temperature = 0.125\n"
    "ham_beta = 0.01\n"
    "ham_init = \"random\"\n";

// The hand-written text, then every other block's option at its registered default (strings quoted),
// so adding a block needs no edit here.
std::string expected_model_text() {
  std::string text = kModelText;
  for (const FieldSpec& f : context_block_option_fields()) {
    if (f.key.rfind("ham_", 0) == 0) continue;
    const bool quoted = f.type == FieldType::kString || f.type == FieldType::kChoice;
    text += f.key + " = " + (quoted ? "\"" + f.default_value + "\"" : f.default_value) + "\n";
  }
  return text;
}

TEST(Checkpoint, ModelConfigTextIsTheHandWrittenText) {
  ModelConfig c;
  c.resolution = 64;
  c.g_ch = 24;
  c.block_resolution = 16;
  c.g_block.name = "ham";
  c.d_block.name = "sa";
  c.init = InitScheme::kOrthogonal;
  c.block_options["ham_type"] = "cd";
  c.block_options["ham_eval_steps"] = "3";
  c.block_options["ham_temperature"] = "0.125";
  EXPECT_EQ(model_config_to_text(c), expected_model_text());
}

TEST(Checkpoint, ModelConfigTextReadsBackFieldByField) {
  const ModelConfig r = model_config_from_text(std::string("# a comment\n\n") + kModelText);
  EXPECT_EQ(r.resolution, 64);
  EXPECT_EQ(r.image_channels, 3);
  EXPECT_EQ(r.num_classes, 10);
  EXPECT_EQ(r.z_dim, 128);
  EXPECT_EQ(r.g_ch, 24);
  EXPECT_EQ(r.d_ch, 64);
  EXPECT_EQ(r.block_resolution, 16);
  EXPECT_EQ(r.g_block.name, "ham");
  EXPECT_EQ(r.d_block.name, "sa");
  EXPECT_EQ(r.init, InitScheme::kOrthogonal);
  // Block options reach both networks' blocks, typed.
  for (const auto& ctx : {r.g_context(), r.d_context()}) {
    const HamOptions h = parse_ham_options(ctx);
    EXPECT_EQ(h.type, HamType::kCD);
    EXPECT_EQ(h.train_steps, 6);
    EXPECT_EQ(h.eval_steps, 3);
    EXPECT_EQ(h.rank, 0);
    EXPECT_EQ(h.gradient, HamGradient::kOneStep);
    EXPECT_DOUBLE_EQ(h.temperature, 0.125);
    EXPECT_DOUBLE_EQ(h.beta, 0.01);
    EXPECT_EQ(h.init, HamInit::kRandom);
  }
  // Keys left out keep their defaults; unknown keys and bad values name the key.
  const ModelConfig partial = model_config_from_text("z_dim = 7\n");
  EXPECT_EQ(partial.z_dim, 7);
  EXPECT_EQ(partial.resolution, ModelConfig{}.resolution);
  for (const char* bad : {"z_dimm = 7\n", "z_dim = seven\n", "ham_rank = -1\n", "g_block = \"attention\"\n"}) {
    try {
      model_config_from_text(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const ConfigError& e) {
      const std::string key = std::string(bad).substr(0, std::string(bad).find(' '));
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace hamgan
