// `hamgan sample`: class-conditional samples from a checkpoint as PNG files, a grid, .npz or .hdf5.
#include <iostream>
#include <memory>

#include "cli/command.h"
#include "cli/field_options.h"
#include "cli/generator_fields.h"
#include "gan/sample/sampler.h"

namespace hamgan::cli {
namespace {

FieldTable<SampleConfig> sample_fields() {
  using C = SampleConfig;
  const FieldTable<C> own = {
      member_field(required(string_field("checkpoint", "Checkpoint file or run directory (its latest checkpoint)")),
                   &C::checkpoint),
      member_field(choice_field("which", {"latest", "best"},
                                "With a run directory: its latest checkpoint, or the best one kept by evaluation"),
                   &C::which),
      member_field(int_field("n", "Number of images", at_least(1)), &C::n),
      member_field(required(string_field("out", "DIR (PNG files per class), FILE.png (grid), FILE.npz or FILE.hdf5")),
                   &C::out),
      member_field(int_field("class", "Only this class (-1: class-balanced over all)", between(-1, 1 << 30)),
                   &C::class_label),
      member_field(float_field("truncation", "Truncate z to |z_i| <= T (0: off)", at_least(0)), &C::truncation),
      member_field(flag_field("grid", "With a directory: also write grid.png"), &C::grid),
      member_field(int_field("nrow", "Images per grid row (0: number of classes up to 10, else 8)", at_least(0)),
                   &C::nrow),
      member_field(int_field("batch_size", "Images per forward pass", at_least(1)), &C::batch_size),
      member_field(flag_field("float", "With FILE.npz: x as float32 in [-1, 1] (not quantised) and z beside it, "
                                       "to compare with other implementations"),
                   &C::float_output),
      // --quiet: no progress bar.
      make_field<C>(flag_field("quiet", "No progress bar"), [](const C& c) { return format_value(!c.progress); },
                    [](C& c, const std::string& s) { c.progress = s != "true"; }),
  };
  return concat_fields(own, generator_checkpoint_fields<C>());
}

}  // namespace

static CommandRegistrar sample_registrar("sample", [](CLI::App& root) {
  auto cfg = std::make_shared<SampleConfig>();
  auto* sub = root.add_subcommand("sample", "Generate class-conditional samples from a checkpoint (EMA weights by default)");
  add_config_file_option(sub);
  add_field_options(sub, sample_fields(), *cfg, "Options");
  on_run(sub, [cfg] {
    const std::string done = run_sampling(*cfg);
    std::cout << "sample: " << done << "\n";
  });
});

}  // namespace hamgan::cli
