#pragma once
// `hamgan prepare`: converts any supported source (IDX, image folder, HDF5,
// ZIP) to an HDF5 file in BigGAN-PyTorch's layout (data/hdf5_writer.h) or a
// ZIP as StyleGAN's and EDM's dataset_tool.py write it (data/zip_writer.h).
#include <cstdint>
#include <string>

#include "data/dataset.h"

namespace hamgan {

struct PrepareConfig {
  DatasetSpec source;      // what to convert; source.size is the output side, source.transform the crop
  std::string output;      // .hdf5 or .zip file to write (replaced atomically)
  std::string format = "auto";       // auto (zip when output ends .zip, else hdf5) | hdf5 | zip
  int64_t workers = 2;     // decoding threads (image folders are decode-bound)
  bool shuffle = false;    // write the images in a seeded random order (chunk windows then lose nothing)
  int64_t shuffle_seed = 0;
  std::string compression = "none";  // none | gzip | lzf (h5py's and BigGAN-PyTorch's --compression)
  bool progress = true;    // progress bar on stderr
};

struct PrepareResult {
  int64_t written = 0;     // images in the output file
  int64_t skipped = 0;     // unreadable source images left out
  int64_t num_classes = 0;
};

// Writes to a temporary file and renames it at the end: a failed run, or one
// stopped (SIGINT, SIGTERM, SIGHUP, SIGUSR1: Interrupted) before its last image
// is written, leaves no output file behind; a stop after that is forgotten.
// Unreadable images of folders and ZIPs are skipped and counted (none left is a
// DataError); a damaged HDF5 source is an error.
PrepareResult prepare_dataset(const PrepareConfig& config);

}  // namespace hamgan
