// sampan: loading op libraries (ahead-of-time shared objects and just-in-time builds).
#pragma once

#include <string>
#include <vector>

namespace sampan {

/// What a library registered, and what went wrong while it registered.
struct LibraryLoadResult {
  std::vector<std::string> ops;
  std::vector<std::string> errors;
};

/// dlopens an op library; returns the names of the ops it registered. Throws naming the file for
/// a missing file, an ABI mismatch, a duplicate op name or an invalid op declaration.
std::vector<std::string> load_op_library(const std::string& path);

// Used by load_op_library around dlopen; exposed for tests.
void begin_library_load(const std::string& library);
LibraryLoadResult end_library_load();
/// Errors from registrations outside any library load (built-ins); empty in a healthy build.
std::vector<std::string> take_pending_registration_errors();

}  // namespace sampan
