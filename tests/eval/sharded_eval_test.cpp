// An evaluation split over two ranks (threads exchanging tensors the way the
// communicator's all-gather does) gives the single process's values on both
// ranks, and only rank 0 computes the metrics: the other rank's result carries
// the shared values and no protocol text of its own.
#include <gtest/gtest.h>

#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <thread>

#include "data/dataset.h"
#include "gan/eval/evaluation.h"
#include "metrics/classifier.h"
#include "tests/common/train_test_util.h"

namespace hamgan {
namespace {
namespace fs = std::filesystem;

// An all-gather between two threads: each posts its tensor and gets both, in rank order.
class TwoRankExchange {
 public:
  std::vector<torch::Tensor> all_gather(int64_t rank, const torch::Tensor& t) {
    std::unique_lock<std::mutex> lock(m_);
    const int64_t generation = generation_;
    posted_[rank] = t;
    if (++arrived_ == 2) {
      result_ = posted_;
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return generation_ != generation; });
    }
    return result_;
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  std::vector<torch::Tensor> posted_{2}, result_;
  int64_t arrived_ = 0, generation_ = 0;
};

// The tiny test model with no eval-time randomness, so both ranks' samples are the single process's.
ModelConfig small_generator() {
  ModelConfig m = test::tiny_config("").model;
  m.g_block.name = "none";
  m.d_block.name = "none";
  m.block_options.clear();
  return m;
}

Generator seeded_generator() {
  torch::manual_seed(5);
  return Generator(small_generator());
}

TEST(ShardedEvaluation, RankZeroComputesAndBothRanksGetTheSingleProcessValues) {
  if (!fs::exists(kDefaultFashionMnistDir)) GTEST_SKIP() << "Fashion-MNIST not installed";
  const std::string dir = test::scratch_dir("eval", "sharded");
  ClassifierConfig cc;
  cc.width = 8;
  cc.feature_dim = 16;
  FeatureClassifier net(cc);
  save_classifier(dir + "/cls.pt", net);
  EvalSettings s;
  s.metrics = {"class_consistency", "fid_classifier"};
  s.classifier = dir + "/cls.pt";
  s.dataset = kDefaultFashionMnistDir;
  s.n = 40;
  s.standing_stats = 0;  // the ranks run side by side; standing statistics would share the global stream

  Generator single_g = seeded_generator();
  const EvalResult single = Evaluator(s, torch::kCPU).evaluate(single_g);
  ASSERT_EQ(single.values.size(), 2u);

  TwoRankExchange exchange;
  EvalResult by_rank[2];
  std::vector<std::thread> ranks;
  Generator generators[2] = {seeded_generator(), seeded_generator()};
  Evaluator evaluators[2] = {Evaluator(s, torch::kCPU), Evaluator(s, torch::kCPU)};
  for (int64_t r = 0; r < 2; ++r)
    ranks.emplace_back([&, r] {
      EvalShards shards;
      shards.rank = r;
      shards.world = 2;
      shards.gather = [&, r](const torch::Tensor& t) { return torch::cat(exchange.all_gather(r, t)); };
      shards.share = [&, r](const torch::Tensor& t) { return exchange.all_gather(r, t).front(); };
      by_rank[r] = evaluators[r].evaluate(generators[r], shards);
    });
  for (auto& t : ranks) t.join();

  for (int r = 0; r < 2; ++r) {
    ASSERT_EQ(by_rank[r].values.size(), 2u);
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(by_rank[r].values[i].first, single.values[i].first);
      EXPECT_NEAR(by_rank[r].values[i].second, single.values[i].second, 1e-6 * (1 + std::abs(single.values[i].second)))
          << "rank " << r << " " << single.values[i].first;
    }
  }
  EXPECT_EQ(by_rank[0].values, by_rank[1].values);  // rank 1 holds rank 0's numbers, bit for bit
  EXPECT_EQ(by_rank[0].protocol, single.protocol);
  EXPECT_EQ(by_rank[1].protocol, "");  // computed nothing itself
}

}  // namespace
}  // namespace hamgan
