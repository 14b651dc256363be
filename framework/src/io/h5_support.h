// Thin helpers over the HDF5 C API for h5_io.cpp: owning handles, the silenced error stack with
// its message recovered for our own errors, the on-disk datatypes of each sampan dtype, and
// string/integer attributes. Internal: no header outside framework/src/io includes it.
#pragma once

#include <hdf5.h>

#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sampan/dtype.h"

namespace sampan::detail::h5 {

/// Held around every use of the HDF5 library: Debian's serial build is not thread-safe, and its
/// error-printing switch (SilenceErrors) is process-wide state.
std::mutex& library_mutex();

/// Owns one HDF5 identifier and closes it with the matching H5?close.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer close) : id_(id), close_(close) {}
  Handle(Handle&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)), close_(o.close_) {}
  Handle& operator=(Handle&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, H5I_INVALID_HID);
      close_ = o.close_;
    }
    return *this;
  }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  ~Handle() { reset(); }
  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  /// Closes now; returns false when HDF5 reported an error (e.g. a failed flush on a file).
  bool reset() {
    bool ok = true;
    if (id_ >= 0 && close_) ok = close_(id_) >= 0;
    id_ = H5I_INVALID_HID;
    return ok;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer close_ = nullptr;
};

inline Handle file(hid_t id) { return Handle(id, H5Fclose); }
inline Handle group(hid_t id) { return Handle(id, H5Gclose); }
inline Handle dataset(hid_t id) { return Handle(id, H5Dclose); }
inline Handle dataspace(hid_t id) { return Handle(id, H5Sclose); }
inline Handle datatype(hid_t id) { return Handle(id, H5Tclose); }
inline Handle attribute(hid_t id) { return Handle(id, H5Aclose); }
inline Handle plist(hid_t id) { return Handle(id, H5Pclose); }
inline Handle object(hid_t id) { return Handle(id, H5Oclose); }

/// While alive, HDF5 does not print its error stack to stderr: sampan turns failures into
/// exceptions with readable messages instead (the stack's text is still available, below).
class SilenceErrors {
 public:
  SilenceErrors() {
    H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  }
  ~SilenceErrors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
  SilenceErrors(const SilenceErrors&) = delete;
  SilenceErrors& operator=(const SilenceErrors&) = delete;

 private:
  H5E_auto2_t func_ = nullptr;
  void* data_ = nullptr;
};

/// The current HDF5 error stack as one line: the API call's message and the innermost cause
/// ("unable to open file: truncated file: eof = ..."); empty when the stack is empty.
std::string error_stack_text();

/// The file and memory datatypes of a sampan dtype. Both are what h5py reads natively where h5py
/// has the type: bool as the enum {FALSE=0, TRUE=1} over int8, float16 as an IEEE half,
/// complex as a compound {r, i}; bfloat16, which h5py lacks, is its bits as uint16.
Handle file_type(DType dtype);
Handle memory_type(DType dtype);
/// A variable-length UTF-8 string type.
Handle string_type();

/// Attribute writers (scalar attributes; `strings` is a 1-d array of variable-length strings).
/// Return false on an HDF5 failure.
bool write_string_attribute(hid_t object, const char* name, const std::string& value);
bool write_int_attribute(hid_t object, const char* name, int64_t value);
bool write_strings_attribute(hid_t object, const char* name, const std::vector<std::string>& strings);

/// Attribute readers: nullopt when the attribute is absent; throw std::runtime_error with a
/// description when it exists with the wrong type or cannot be read. Strings may be fixed or
/// variable length (files made by other tools use both).
std::optional<std::string> read_string_attribute(hid_t object, const char* name);
std::optional<int64_t> read_int_attribute(hid_t object, const char* name);
std::optional<std::vector<std::string>> read_strings_attribute(hid_t object, const char* name);

/// The value of a scalar string dataset (fixed or variable length); throws std::runtime_error.
std::string read_string_dataset(hid_t dataset);

}  // namespace sampan::detail::h5
