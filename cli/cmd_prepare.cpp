// `hamgan prepare`: any supported source → HDF5 in BigGAN-PyTorch's layout, or
// a ZIP as StyleGAN's and EDM's dataset_tool.py write it.
#include <charconv>
#include <limits>
#include <memory>

#include "cli/command.h"
#include "cli/data_options.h"
#include "cli/field_options.h"
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

FieldTable<PrepareConfig> prepare_fields() {
  using C = PrepareConfig;
  const FieldTable<C> own = {
      make_field<C>(string_field("input", "IDX folder, image folder (root/<class>/*.jpg|png), .hdf5 or .zip file"),
                    [](const C& c) { return c.source.path; }, [](C& c, const std::string& s) { c.source.path = s; }),
      member_field(required(string_field("output", "HDF5 or ZIP file to write (replaced atomically)")), &C::output),
  };
  const FieldTable<C> rest = {
      member_field(choice_field("format", {"auto", "hdf5", "zip"},
                                "auto (zip for an --output ending .zip, else hdf5), hdf5 (BigGAN layout) or zip "
                                "(StyleGAN/EDM dataset_tool layout)"),
                   &C::format),
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
      "prepare", "Convert IDX, an image folder, HDF5 or ZIP to a BigGAN-layout HDF5 file or a dataset_tool ZIP");
  add_config_file_option(sub);
  add_field_options(sub, prepare_fields(), *cfg, "Options");
  on_run(sub, [cfg] { prepare_dataset(*cfg); });
});
}  // namespace hamgan::cli
