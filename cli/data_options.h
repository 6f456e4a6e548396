#pragma once
// Dataset options shared by the subcommands that read data (prepare,
// data-info, fid, ...): everything in DatasetSpec except the path.
#include "core/config_fields.h"
#include "data/dataset.h"

namespace hamgan::cli {

// --split, --size, --channels, --idx_resize, --in_memory.
const FieldTable<DatasetSpec>& dataset_option_fields();

}  // namespace hamgan::cli
