// The metrics log: rows appended, read back (also by Python's json), trimmed on resume.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "core/errors.h"
#include "gan/report/run_log.h"
#include "tests/common/report_test_util.h"

namespace hamgan {
namespace {

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

}  // namespace
}  // namespace hamgan
