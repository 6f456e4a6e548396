// `hamgan plot RUN_DIR`: loss, D-output, speed and evaluation curves of a run as one PNG.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "gan/report/plot.h"

namespace hamgan::cli {

static CommandRegistrar plot_registrar("plot", [](CLI::App& root) {
  auto cfg = std::make_shared<PlotConfig>();
  auto* sub = root.add_subcommand("plot", "Render a run's metrics.jsonl as curves (PNG)");
  add_config_file_option(sub);
  sub->add_option("run_dir", cfg->run_dir, "Run directory of 'hamgan train'")->required();
  sub->add_option("--out", cfg->out, "PNG path (default RUN_DIR/curves.png)")->capture_default_str();
  sub->add_option("--width", cfg->width, "Pixels per panel, horizontally")->check(CLI::Range(200, 4000))->capture_default_str();
  sub->add_option("--height", cfg->height, "Pixels per panel, vertically")->check(CLI::Range(120, 4000))->capture_default_str();
  sub->callback([cfg] {
    const auto written = plot_run(*cfg);  // before any output, so a failure is the only line
    std::cout << "plot: wrote " << written << "\n";
  });
});

}  // namespace hamgan::cli
