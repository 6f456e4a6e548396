#pragma once
// The per-format openers behind open_dataset (one file each).
#include <memory>
#include <string>

#include "data/dataset.h"

namespace hamgan {

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
