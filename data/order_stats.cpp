#include "data/order_stats.h"

#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/errors.h"
#include "data/dataset.h"
#include "data/epoch_order.h"

namespace hamgan {
namespace {

std::vector<int64_t> parse_windows(const std::string& text) {
  std::vector<int64_t> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      size_t used = 0;
      const int64_t w = std::stoll(item, &used);
      if (used != item.size() || w < 0) throw std::invalid_argument(item);
      out.push_back(w);
    } catch (const std::exception&) {
      throw ConfigError("bench order: windows must be a comma-separated list of chunk counts >= 0 (0: full "
                        "shuffle), got '" + text + "'");
    }
  }
  if (out.empty()) throw ConfigError("bench order: windows is empty; give e.g. 1,4,16,0");
  return out;
}

// Pearson r of two class-count vectors over all `k` classes (each summing to
// n), from their nonzero entries.
double correlation(const std::vector<int64_t>& a, const std::vector<int64_t>& a_classes, const std::vector<int64_t>& b,
                   const std::vector<int64_t>& b_classes, int64_t k, int64_t n) {
  double ab = 0, aa = 0, bb = 0;
  for (int64_t c : a_classes) ab += double(a[c]) * b[c], aa += double(a[c]) * a[c];
  for (int64_t c : b_classes) bb += double(b[c]) * b[c];
  const double mean_term = double(n) * n / k;
  const double den = std::sqrt((aa - mean_term) * (bb - mean_term));
  return den > 0 ? (ab - mean_term) / den : 0;
}

std::vector<int64_t> synthetic_labels(const OrderStatsConfig& c) {
  std::vector<int64_t> labels(c.classes * c.per_class);
  for (size_t i = 0; i < labels.size(); ++i) labels[i] = int64_t(i) / c.per_class;
  if (!c.class_sorted) {
    const auto p = permutation(c.seed ^ 0x1ABE1ull, 0, labels.size());
    std::vector<int64_t> shuffled(labels.size());
    for (size_t i = 0; i < p.size(); ++i) shuffled[i] = labels[p[i]];
    labels.swap(shuffled);
  }
  return labels;
}

}  // namespace

std::vector<OrderStatsRow> order_stats(const std::vector<int64_t>& labels, int64_t num_classes, int64_t chunk_rows,
                                       const OrderStatsConfig& c) {
  if (c.batch_size < 1 || c.shards < 1 || c.batch_size % c.shards)
    throw ConfigError("bench order: batch_size must split into shards equal parts");
  std::vector<OrderStatsRow> rows;
  const int64_t local = c.batch_size / c.shards, n = labels.size();
  for (int64_t w : parse_windows(c.windows)) {
    const OrderSpec spec = effective_order({n, chunk_rows, w, local, 0, c.shards, c.seed});
    OrderStatsRow row;
    row.window = spec.windowed() ? w : 0;
    double distinct = 0, corr = 0;
    int64_t pairs = 0;
    std::vector<int64_t> prev(num_classes, 0), cur(num_classes, 0), prev_touched, touched;
    for (int64_t e = 0; e < c.epochs; ++e) {
      const auto order = epoch_order(spec, e);
      for (size_t b = 0; b + local <= order.size(); b += local) {
        for (int64_t t : touched) cur[t] = 0;
        touched.clear();
        for (size_t i = b; i < b + local; ++i)
          if (cur[labels[order[i]]]++ == 0) touched.push_back(labels[order[i]]);
        distinct += touched.size();
        if (row.batches++ > 0) corr += correlation(cur, touched, prev, prev_touched, num_classes, local), ++pairs;
        for (int64_t t : prev_touched) prev[t] = 0;
        for (int64_t t : touched) prev[t] = cur[t];
        prev_touched = touched;
      }
    }
    row.distinct_classes = distinct / std::max<int64_t>(row.batches, 1);
    row.neighbour_correlation = corr / std::max<int64_t>(pairs, 1);
    rows.push_back(row);
  }
  return rows;
}

void check_window_randomness(const Dataset& dataset, const LoaderOptions& options) {
  const int64_t local = options.batch_size / options.shards;
  const OrderSpec spec = effective_order({dataset.size(), dataset.chunk_rows(), options.shuffle_window, local,
                                          options.shard, options.shards, options.seed});
  if (!spec.windowed()) return;
  std::vector<int64_t> labels(dataset.size());
  for (int64_t i = 0; i < dataset.size(); ++i) labels[i] = dataset.label(i);
  OrderStatsConfig c;
  c.batch_size = options.batch_size;
  c.shards = options.shards;
  c.seed = options.seed;
  c.windows = std::to_string(options.shuffle_window) + ",0";
  const auto rows = order_stats(labels, dataset.num_classes(), dataset.chunk_rows(), c);
  // A file in random order loses nothing to windows; one in class order loses
  // most classes of each batch (docs/data.md, "Loader"). 0.8 separates the two.
  if (rows[0].distinct_classes >= 0.8 * rows[1].distinct_classes) return;
  std::ostringstream msg;
  msg << std::fixed << std::setprecision(1) << "data: " << dataset.describe()
      << " stores its images in class order: shuffle windows of " << options.shuffle_window << " chunks would give "
      << rows[0].distinct_classes << " classes per batch of " << local << " where a full shuffle gives "
      << rows[1].distinct_classes << "; rewrite it once in random order (hamgan prepare --input FILE --output "
      << "NEW.hdf5 --shuffle) or set shuffle_window = 0 (every image read on its own: slow for compressed files)";
  throw ConfigError(msg.str());
}

void run_order_stats(const OrderStatsConfig& c) {
  std::vector<int64_t> labels;
  int64_t classes = c.classes, chunk_rows = c.chunk_rows;
  std::string source = std::to_string(c.classes * c.per_class) + " synthetic labels, " +
                       (c.class_sorted ? "class-sorted" : "shuffled") + ", chunks of " + std::to_string(c.chunk_rows);
  if (!c.input.empty()) {
    DatasetSpec spec;
    spec.path = c.input;
    auto ds = open_dataset(spec);
    labels.resize(ds->size());
    for (int64_t i = 0; i < ds->size(); ++i) labels[i] = ds->label(i);
    classes = ds->num_classes();
    chunk_rows = ds->chunk_rows();
    source = ds->describe() + ", chunks of " + std::to_string(chunk_rows);
  } else {
    labels = synthetic_labels(c);
  }
  const auto rows = order_stats(labels, classes, chunk_rows, c);
  std::cout << source << "; batch " << c.batch_size << " over " << c.shards << " rank(s), rank 0 measured\n"
            << "window (chunks)  classes/batch  neighbour r\n";
  nlohmann::json j = {{"bench", "order"}, {"source", source}, {"batch_size", c.batch_size}, {"shards", c.shards},
                      {"epochs", c.epochs}, {"rows", nlohmann::json::array()}};
  for (const auto& r : rows) {
    std::cout << std::setw(15) << (r.window ? std::to_string(r.window) : std::string("full")) << std::fixed
              << std::setprecision(1) << std::setw(15) << r.distinct_classes << std::setprecision(3) << std::setw(13)
              << r.neighbour_correlation << "\n";
    j["rows"].push_back({{"window", r.window}, {"distinct_classes", r.distinct_classes},
                         {"neighbour_correlation", r.neighbour_correlation}, {"batches", r.batches}});
  }
  if (!c.out.empty()) {
    std::ofstream f(c.out);
    if (!(f << j.dump(2) << "\n")) throw Error(c.out + ": cannot write the result");
  }
}

}  // namespace hamgan
