// The training plot: one panel per metric group, the curves in the palette's colours.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include "core/errors.h"
#include "data/image_io.h"
#include "gan/report/plot.h"
#include "gan/report/run_log.h"
#include "tests/common/report_test_util.h"

namespace hamgan {
namespace {

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

}  // namespace
}  // namespace hamgan
