#pragma once
// Typed errors thrown by the library. Each message is one line that names the
// thing at fault and the fix; the CLI prints it and exits non-zero.
#include <stdexcept>
#include <string>

namespace hamgan {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct ConfigError : Error {  // bad option, key or value
  using Error::Error;
};
struct DataError : Error {  // missing, corrupt or inconsistent data file
  using Error::Error;
};
struct CheckpointError : Error {  // unreadable or incompatible checkpoint
  using Error::Error;
};
struct ModelError : Error {  // impossible model configuration
  using Error::Error;
};

}  // namespace hamgan
