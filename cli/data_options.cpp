#include "cli/data_options.h"

namespace hamgan::cli {

const FieldTable<DatasetSpec>& dataset_option_fields() {
  using D = DatasetSpec;
  static const FieldTable<DatasetSpec> table = {
      member_field(choice_field("split", {"train", "test"}, "IDX split: train or test"), &D::split),
      member_field(int_field("size",
                             "Image side for IDX (padded), image folders (crop+resize) and ZIP with --transform; "
                             "HDF5 and ZIP otherwise keep their own",
                             between(1, 4096)),
                   &D::size),
      member_field(int_field("channels",
                             "0: the source's own (IDX 1, folders 3, HDF5 and ZIP as stored); 1 or 3 converts",
                             one_of({0, 1, 3})),
                   &D::channels),
      member_field(flag_field("idx_resize",
                              "IDX: resize 28x28 to --size (PIL bilinear) instead of zero-padding (default: off)"),
                   &D::idx_resize),
      member_field(flag_field("in_memory", "HDF5: load the whole file into memory (default: off)"), &D::in_memory),
  };
  return table;
}

}  // namespace hamgan::cli
