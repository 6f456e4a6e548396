#pragma once
// The dataset formats: one table row each, and the per-format openers behind
// open_dataset (one file each). Every help string and error message that lists
// the formats is rendered from the table, and tests/data/format_docs_test.cpp
// checks that each list in the docs names every row, so a new format is one row
// here plus its opener.
#include <memory>
#include <string>

#include "data/dataset.h"

namespace hamgan {

struct DatasetFormat {
  const char* name;         // as the docs name it in their lists
  const char* noun;         // in a sentence: "an IDX folder"
  const char* what;         // what it holds
  const char* recognised;   // how open_dataset tells it from a path
  const char* prepare_key;  // `hamgan prepare --format` value when prepare writes it; nullptr: read only
};

inline constexpr DatasetFormat kDatasetFormats[] = {
    {"IDX", "an IDX folder", "MNIST/Fashion-MNIST image and label files, raw or gzip",
     "a folder holding <split>-images-idx3-ubyte[.gz]", nullptr},
    {"image folder", "an image folder", "PNG/JPEG files, a subfolder per class (ImageNet's train layout) or flat",
     "any other folder", nullptr},
    {"HDF5", "an .hdf5 file", "imgs and labels in BigGAN-PyTorch's layout",
     "a file ending .hdf5, .h5 or .hdf, or starting with HDF5's signature", "hdf5"},
    {"ZIP", "a .zip archive", "images and dataset.json as StyleGAN/EDM dataset_tool.py writes them",
     "a file ending .zip, or starting with a ZIP signature", "zip"},
};

// "an IDX folder, an image folder, an .hdf5 file or a .zip archive": every format open_dataset reads.
std::string dataset_format_list();
// "an .hdf5 file or a .zip archive": the formats `hamgan prepare` writes.
std::string prepare_output_list();

// IDX gzip (MNIST/Fashion-MNIST): `spec.path` is the folder holding
// <split>-images-idx3-ubyte[.gz] and <split>-labels-idx1-ubyte[.gz]
// (split "test" uses the t10k- prefix).
std::shared_ptr<Dataset> open_idx_dataset(const DatasetSpec& spec);
bool looks_like_idx_dir(const std::string& dir);

// ImageNet train layout: one subfolder per class, PNG/JPEG files inside.
std::shared_ptr<Dataset> open_image_folder_dataset(const DatasetSpec& spec);

// HDF5 with `imgs` (N, C, H, W) or (N, H, W, C) uint8 and `labels` (N) integers.
std::shared_ptr<Dataset> open_hdf5_dataset(const DatasetSpec& spec);
bool looks_like_hdf5(const std::string& path);

// ZIP of PNG/JPEG members plus an optional dataset.json (StyleGAN/EDM
// dataset_tool.py); looks_like_zip is in data/zip_archive.h.
std::shared_ptr<Dataset> open_zip_dataset(const DatasetSpec& spec);

}  // namespace hamgan
