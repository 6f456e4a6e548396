// `hamgan plot RUN_DIR`: loss, D-output, speed and evaluation curves of a run as one PNG.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/field_options.h"
#include "gan/report/plot.h"

namespace hamgan::cli {

static CommandRegistrar plot_registrar("plot", [](CLI::App& root) {
  auto cfg = std::make_shared<PlotConfig>();
  auto* sub = root.add_subcommand("plot", "Render a run's metrics.jsonl as curves (PNG)");
  add_config_file_option(sub);
  add_argument(sub, "run_dir", cfg->run_dir, "Run directory of 'hamgan train'", true);
  const FieldTable<PlotConfig> fields = {
      member_field(string_field("out", "PNG path (default RUN_DIR/curves.png)"), &PlotConfig::out),
      member_field(int_field("width", "Pixels per panel, horizontally", between(200, 4000)), &PlotConfig::width),
      member_field(int_field("height", "Pixels per panel, vertically", between(120, 4000)), &PlotConfig::height),
  };
  add_field_options(sub, fields, *cfg, "Options");
  on_run(sub, [cfg] {
    const auto written = plot_run(*cfg);  // before any output, so a failure is the only line
    std::cout << "plot: wrote " << written << "\n";
  });
});

}  // namespace hamgan::cli
