// `hamgan prepare`: any supported source → HDF5 in BigGAN-PyTorch's layout, or
// a ZIP as StyleGAN's and EDM's dataset_tool.py write it.
#include <charconv>
#include <limits>
#include <memory>

#include "cli/command.h"
#include "cli/data_options.h"
#include "cli/field_options.h"
#include "data/formats.h"
#include "data/image_transform.h"
#include "data/prepare.h"

namespace hamgan::cli {
namespace {

// Every seed a 64-bit signed integer holds, checked exactly (a double bound
// would let 2^63 through, which does not fit).
FieldCheck seed_range() {
  return [](const std::string& value) {
    int64_t v = -1;
    const char* end = value.data() + value.size();
    const auto r = std::from_chars(value.data(), end, v);
    if (!value.empty() && r.ec == std::errc() && r.ptr == end && v >= 0) return std::string();
    return "must be in [0, " + std::to_string(std::numeric_limits<int64_t>::max()) + "]";
  };
}

// auto, then each format prepare writes (data/formats.h).
std::vector<std::string> format_choices() {
  std::vector<std::string> choices = {"auto"};
  for (const DatasetFormat& f : kDatasetFormats)
    if (f.prepare_key) choices.push_back(f.prepare_key);
  return choices;
}

// What each --format value means.
std::string format_help() {
  std::string help = "auto (zip for an --output ending .zip, else hdf5)";
  for (const DatasetFormat& f : kDatasetFormats)
    if (f.prepare_key) help += std::string(", ") + f.prepare_key + " (" + f.what + ")";
  return help;
}

FieldTable<PrepareConfig> prepare_fields() {
  using C = PrepareConfig;
  const FieldTable<C> own = {
      make_field<C>(string_field("input", "Dataset: " + dataset_format_list()),
                    [](const C& c) { return c.source.path; }, [](C& c, const std::string& s) { c.source.path = s; }),
      member_field(
          required(string_field("output", "File to write: " + prepare_output_list() + " (replaced atomically)")),
          &C::output),
  };
  const FieldTable<C> rest = {
      member_field(choice_field("format", format_choices(), format_help()), &C::format),
      make_field<C>(choice_field("transform", transform_names(),
                                 "Image folders and ZIP: default (folders: BigGAN's centre crop + bilinear; ZIP: as "
                                 "stored), center-crop-biggan, or center-crop-dhariwal (ADM's box halving + bicubic)"),
                    [](const C& c) { return c.source.transform; },
                    [](C& c, const std::string& s) { c.source.transform = s; }),
      member_field(choice_field("compression", {"none", "gzip", "lzf"},
                                "none, gzip or lzf (as h5py and BigGAN-PyTorch write it), with Fletcher-32 checksums"),
                   &C::compression),
      member_field(flag_field("shuffle", "Write the images in a seeded random order, so that training's chunk "
                                         "windows mix classes (default: source order)"),
                   &C::shuffle),
      member_field(int_field("shuffle_seed", "Seed of --shuffle's order", seed_range()), &C::shuffle_seed),
      member_field(int_field("workers", "Decoding threads", between(1, 256)), &C::workers),
      member_field(flag_field("progress", "Show a progress bar (default: on)", "no_progress"), &C::progress),
  };
  return concat_fields(concat_fields(own, nested_fields(dataset_option_fields(), &C::source)), rest);
}

}  // namespace

static CommandRegistrar prepare_registrar("prepare", [](CLI::App& root) {
  auto cfg = std::make_shared<PrepareConfig>();
  auto* sub = root.add_subcommand(
      "prepare", "Convert a dataset (" + dataset_format_list() + ") to " + prepare_output_list());
  add_config_file_option(sub);
  add_field_options(sub, prepare_fields(), *cfg, "Options");
  on_run(sub, [cfg] { prepare_dataset(*cfg); });
});
}  // namespace hamgan::cli
