#pragma once
// The completeness marker next to a checkpoint (`<file>.done`): the file's size
// and the SHA-256 of its bytes, both taken while the file was written. The size
// says the write finished; the digest says the bytes are still the ones written.
// Checkpoints store tensors uncompressed and LibTorch never checks the zip
// records' CRCs, so without the digest a flipped bit in a weight (bit rot, a bad
// disk or network file system) loads silently as a different number.
#include <cstdint>
#include <string>

namespace hamgan {

std::string completeness_marker_path(const std::string& checkpoint_path);

// Writes the marker for a file just written of `bytes` bytes with digest `sha256_hex`.
void write_completeness_marker(const std::string& checkpoint_path, uint64_t bytes, const std::string& sha256_hex);

// The marker is there and records the file's size (cheap: no bytes are read).
bool checkpoint_is_complete(const std::string& checkpoint_path);

// The marker is there and records the size but no SHA-256 (as markers written before digests did).
bool marker_holds_size_only(const std::string& checkpoint_path);

// Throws CheckpointError (one line) when the marker is malformed, or records a digest the file's
// bytes no longer have. A file without a marker, or with a marker written before
// markers held a digest, passes (nothing to compare with). A file verified once
// is not hashed again by this process until its size or time of change differs.
void verify_checkpoint_digest(const std::string& checkpoint_path);

// Whether the file's bytes match the digest its marker records (false when no
// digest is recorded, or the file cannot be read).
bool checkpoint_digest_matches(const std::string& checkpoint_path);

}  // namespace hamgan
