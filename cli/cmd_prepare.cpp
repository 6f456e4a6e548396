// `hamgan prepare`: any supported source → HDF5 in BigGAN-PyTorch's layout.
#include <memory>

#include "cli/command.h"
#include "cli/data_options.h"
#include "cli/field_options.h"
#include "data/prepare.h"

namespace hamgan::cli {
namespace {

FieldTable<PrepareConfig> prepare_fields() {
  using C = PrepareConfig;
  const FieldTable<C> own = {
      make_field<C>(string_field("input", "IDX folder, image folder (root/<class>/*.jpg|png) or .hdf5 file"),
                    [](const C& c) { return c.source.path; }, [](C& c, const std::string& s) { c.source.path = s; }),
      member_field(required(string_field("output", "HDF5 file to write (replaced atomically)")), &C::output),
  };
  const FieldTable<C> rest = {
      member_field(choice_field("compression", {"none", "gzip", "lzf"},
                                "none, gzip or lzf (as h5py and BigGAN-PyTorch write it)"),
                   &C::compression),
      member_field(int_field("workers", "Decoding threads", between(1, 256)), &C::workers),
      member_field(flag_field("progress", "Show a progress bar (default: on)", "no_progress"), &C::progress),
  };
  return concat_fields(concat_fields(own, nested_fields(dataset_option_fields(), &C::source)), rest);
}

}  // namespace

static CommandRegistrar prepare_registrar("prepare", [](CLI::App& root) {
  auto cfg = std::make_shared<PrepareConfig>();
  auto* sub = root.add_subcommand("prepare", "Convert IDX, an image folder or HDF5 to a BigGAN-layout HDF5 file");
  add_config_file_option(sub);
  add_field_options(sub, prepare_fields(), *cfg, "Options");
  on_run(sub, [cfg] { prepare_dataset(*cfg); });
});
}  // namespace hamgan::cli
