// The module benchmark's measuring tools: the CPU peak-memory meter against known
// allocation sizes, the MAC count against the paper's Table 3, and the CLI's JSON output.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "modules/bench_modules.h"
#include "modules/memory_meter.h"

namespace hamgan {
namespace {

TEST(PeakMemoryMeter, CountsCpuTensorBytesExactly) {
  PeakMemoryMeter meter(torch::kCPU);
  EXPECT_EQ(meter.peak_bytes(), 0);
  {
    auto a = torch::empty({1000}, torch::kFloat);   // 4,000 bytes
    auto b = torch::empty({250}, torch::kDouble);   // 2,000 bytes
    EXPECT_EQ(meter.current_bytes(), 6000);
  }
  EXPECT_EQ(meter.current_bytes(), 0);
  { auto c = torch::empty({100}, torch::kFloat); }  // freed: the peak stays at 6,000
  EXPECT_EQ(meter.peak_bytes(), 6000);
  // Tensors that outlive the meter's construction form its baseline.
  auto kept = torch::ones({512}, torch::kFloat);
  PeakMemoryMeter second(torch::kCPU);
  auto d = kept + kept;  // 2,048 bytes
  EXPECT_EQ(second.peak_bytes(), 2048);
  EXPECT_FLOAT_EQ(d.sum().item<float>(), 1024.0f);  // the counting allocator hands out usable memory
}

TEST(ModuleMacs, HamMatchesPaperTable3) {
  // Paper Table 3, 1×512×128×128, d = 512, r = 64, K = 6: Ham (NMF) 17.6G with the literal layer
  // order (the reconstruction and the upper 1×1 conv, which the CBN path uses).
  HamOptions h;
  h.rank = 64;
  ContextOptions o = ham_context_options(h, /*num_classes=*/1);  // classes force the literal upper bread
  const std::vector<int64_t> shape{1, 512, 128, 128};
  EXPECT_NEAR(module_macs(o, shape) / 1e9, 17.6, 0.2);
  // The factored upper bread replaces X̂ = D Cᵀ (d·r·n) and the conv (C·d·n) by W_u D (C·d·r)
  // and (W_u D) Cᵀ (C·r·n).
  const int64_t literal = module_macs(o, shape), n = 128 * 128;
  o.num_classes = 0;
  EXPECT_EQ(module_macs(o, shape), literal - (512 * 64 * n + 512 * 512 * n) + (512 * 512 * 64 + 512 * 64 * n));
  o.name = "none";
  EXPECT_EQ(module_macs(o, shape), 0);
}

TEST(BenchModulesCli, WritesJsonWithTheDocumentedKeys) {
  const char* bin = std::getenv("HAMGAN_BIN");
  if (!bin) GTEST_SKIP() << "HAMGAN_BIN not set";
  const char* tmp_env = std::getenv("HAMGAN_TEST_TMP");
  const std::filesystem::path dir = std::filesystem::path(tmp_env ? tmp_env : "/tmp") / "ham_bench_cli";
  std::filesystem::create_directories(dir);
  const auto json = (dir / "bench.json").string();
  std::filesystem::remove(json);
  const std::string cmd = std::string(bin) +
                          " bench modules --shape 2,16,8,8 --blocks none,sa,ham:nmf,ham:cd --warmup 0 --repeats 1 --clock cpu --out " +
                          json + " > " + (dir / "log.txt").string() + " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  // Independent reader: Python's json module checks structure, keys and value types.
  const std::string check =
      HAMGAN_PYTHON " -c \"import json,sys; r=json.load(open('" + json +
      "')); keys={'block','params','macs','fwd_ms','train_ms','peak_bytes_fwd','peak_bytes_train'};"
      " assert [x['block'] for x in r]==['none','sa','ham:nmf','ham:cd'], r;"
      " assert all(set(x)==keys for x in r), r;"
      " h=r[2]; assert h['params']==2*16*16+1 and h['macs']>0 and h['train_ms']>0 and h['peak_bytes_train']>0, h;"
      " assert r[0]['macs']==0 and r[0]['params']==0, r[0]\"";
  EXPECT_EQ(std::system(check.c_str()), 0);
  // A bad block name is one error line, not a crash.
  const std::string bad = std::string(bin) + " bench modules --blocks nope --repeats 1 > " + (dir / "bad.txt").string() + " 2>&1";
  EXPECT_NE(std::system(bad.c_str()), 0);
  std::ifstream err(dir / "bad.txt");
  std::string line;
  std::getline(err, line);
  EXPECT_NE(line.find("hamgan: error: bench modules: unknown block 'nope'"), std::string::npos) << line;
}

}  // namespace
}  // namespace hamgan
