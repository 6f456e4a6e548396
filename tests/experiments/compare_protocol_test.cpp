// `hamgan compare` puts runs in one table only when their FIDs were measured
// alike: the label protocol and the evaluation protocol of the FID they report.
#include <gtest/gtest.h>

#include <fstream>

#include "experiments/run_result.h"
#include "gan/report/run_log.h"
#include "tests/common/test_util.h"

namespace hamgan {
namespace {

// A metrics log with one training row and evaluation rows of the given label protocol.
std::string write_log(const std::string& name, const std::string& labels, int64_t generated) {
  const std::string dir = test::scratch_dir("experiments", "compare_protocol_" + name);
  const std::string path = dir + "/metrics.jsonl";
  MetricsLog log(path, -1);
  log.append(1, {{"g_loss", 0.5}});
  const std::string proto = "class_consistency: classifier argmax over 8 generated; fid_classifier: classifier "
                            "sha256 0123456789ab…, classifier input, 32 px images vs " + std::to_string(generated) +
                            " generated";
  TextRow texts = {{"protocol", proto}};
  if (!labels.empty()) texts.emplace_back("labels", labels);
  log.append(2, {{"class_consistency", 0.4}, {"fid_classifier", 3.0}}, texts);
  log.append(4, {{"class_consistency", 0.5}, {"fid_classifier", 2.0}}, texts);
  return path;
}

TEST(CompareProtocol, TheFinalRowsProtocolOfTheReportedFid) {
  const std::string path = write_log("read", "random", 8);
  EXPECT_EQ(final_fid_protocol(path, "fid_classifier"),
            "labels random; fid_classifier: classifier sha256 0123456789ab…, classifier input, 32 px images vs 8 "
            "generated");
  EXPECT_EQ(final_fid_protocol(path, "fid_inception"), "");
  // A log from before labels were logged was class-balanced.
  EXPECT_EQ(final_fid_protocol(write_log("old", "", 8), "fid_classifier").rfind("labels balanced; ", 0), 0u);
  // Texts come back unescaped, numbers unchanged.
  EXPECT_EQ(read_metric_texts(path)[1].at("labels"), "random");
  EXPECT_DOUBLE_EQ(read_metrics(path)[2].at("fid_classifier"), 2.0);
}

TEST(CompareProtocol, RunsOfDifferentProtocolsConflict) {
  auto run = [](const std::string& name, const std::string& labels, int64_t n) {
    RunResult r;
    r.name = name;
    r.fid_protocol = final_fid_protocol(write_log(name + labels + std::to_string(n), labels, n), "fid_classifier");
    return r;
  };
  EXPECT_EQ(protocol_conflict({run("a", "balanced", 8), run("b", "balanced", 8), RunResult{}}), "");
  const std::string labels = protocol_conflict({run("a", "balanced", 8), run("b", "random", 8)});
  EXPECT_NE(labels.find("a seed 0 (labels balanced;"), std::string::npos) << labels;
  EXPECT_NE(labels.find("b seed 0 (labels random;"), std::string::npos) << labels;
  EXPECT_NE(protocol_conflict({run("a", "balanced", 8), run("b", "balanced", 16)}), "");  // sample counts differ
}

}  // namespace
}  // namespace hamgan
