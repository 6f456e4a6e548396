// Randomness of batches under chunk windows, against closed forms, and the
// check that refuses windows on a file stored in class order.
#include <cmath>

#include "core/errors.h"
#include "data/epoch_order.h"
#include "data/order_stats.h"
#include "tests/common/data_test_util.h"

namespace hamgan {
namespace {

std::vector<int64_t> sorted_labels(int64_t classes, int64_t per_class) {
  std::vector<int64_t> l(classes * per_class);
  for (size_t i = 0; i < l.size(); ++i) l[i] = int64_t(i) / per_class;
  return l;
}

TEST(OrderStats, FullShuffleMatchesTheClosedFormAndWindowsOnSortedLabelsDoNot) {
  const auto labels = sorted_labels(200, 300);
  OrderStatsConfig c;
  c.batch_size = 64;
  c.windows = "1,0";
  const auto rows = order_stats(labels, 200, 100, c);
  // Distinct classes in 64 draws from 200 equal classes: K(1 − (1 − 1/K)^B),
  // less a hair for drawing without replacement.
  const double expected = 200 * (1 - std::pow(1 - 1.0 / 200, 64));
  EXPECT_NEAR(rows[1].distinct_classes, expected, 0.5);
  EXPECT_NEAR(rows[1].neighbour_correlation, 0.0, 0.02);  // independent batches
  // A window of one 100-example chunk of a 300-per-class file holds one or
  // two classes; a batch spans at most two windows.
  EXPECT_LE(rows[0].distinct_classes, 4.0);
  EXPECT_GT(rows[0].neighbour_correlation, 0.3);  // neighbours share their classes
}

// Labels only; chunked like a compressed HDF5 file.
class Labels : public Dataset {
 public:
  Labels(std::vector<int64_t> labels, int64_t rows) : labels_(std::move(labels)), rows_(rows) {}
  int64_t size() const override { return labels_.size(); }
  Example get(int64_t i) const override { return {torch::zeros({1, 1, 1}, torch::kUInt8), labels_[i]}; }
  int64_t label(int64_t i) const override { return labels_[i]; }
  int64_t num_classes() const override { return 200; }
  int64_t channels() const override { return 1; }
  int64_t height() const override { return 1; }
  int64_t width() const override { return 1; }
  int64_t chunk_rows() const override { return rows_; }
  std::string describe() const override { return "labels.hdf5"; }

 private:
  std::vector<int64_t> labels_;
  int64_t rows_;
};

TEST(OrderStats, WindowsOnAClassSortedFileAreRefusedNamingTheWaysOut) {
  auto labels = sorted_labels(200, 300);
  LoaderOptions o;
  o.batch_size = 64;
  o.shuffle_window = 4;
  try {
    check_window_randomness(Labels(labels, 100), o);
    ADD_FAILURE() << "a class-sorted file was accepted";
  } catch (const ConfigError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("labels.hdf5 stores its images in class order"), std::string::npos) << m;
    EXPECT_NE(m.find("--shuffle"), std::string::npos) << m;
    EXPECT_NE(m.find("shuffle_window = 0"), std::string::npos) << m;
  }
  o.shuffle_window = 0;  // a full shuffle has nothing to check
  EXPECT_NO_THROW(check_window_randomness(Labels(labels, 100), o));
  const auto p = permutation(11, 0, labels.size());
  std::vector<int64_t> shuffled(labels.size());
  for (size_t i = 0; i < p.size(); ++i) shuffled[i] = labels[p[i]];
  o.shuffle_window = 1;
  EXPECT_NO_THROW(check_window_randomness(Labels(shuffled, 100), o));  // windows cost a shuffled file nothing
}

}  // namespace
}  // namespace hamgan
