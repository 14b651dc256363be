// save/load: an IoValue tree to and from an HDF5 file (the layout is documented in io.h).
//
// Writes are atomic: the file is built under a temporary name next to the target, flushed to
// disk, then renamed over the target (rename(2) is atomic within a file system), so a crash or a
// full disk leaves either the old file or the new one, never half of one.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unordered_set>

#include "h5_support.h"
#include "sampan/io.h"

namespace sampan {

namespace {

using detail::h5::Handle;
namespace h5 = detail::h5;

constexpr const char* kFormatName = "sampan-io";
constexpr int64_t kFormatVersion = 1;

/// The link name of a dict key inside its group. HDF5 link names cannot contain '/' and cannot
/// be "." or empty, so '%' and '/' are percent-encoded and those two names get a spelling of
/// their own; the mapping is one to one, and the `keys` attribute keeps the real keys.
std::string link_name(const std::string& key) {
  std::string out;
  out.reserve(key.size());
  for (char c : key) {
    if (c == '%') out += "%25";
    else if (c == '/') out += "%2F";
    else out += c;
  }
  if (out.empty()) return "%";
  if (out == ".") return "%2E";
  return out;
}

std::string child_path(const std::string& where, const std::string& name) {
  return (where == "/" ? "/" : where + "/") + name;
}

std::string parent_directory(const std::string& path) {
  auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string errno_text() { return std::strerror(errno); }

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

class Writer {
 public:
  explicit Writer(std::string path) : path_(std::move(path)) {
    // UTF-8 link names (Python keys are unicode); no timestamps, so that saving the same tree
    // twice gives byte-identical files.
    link_props_ = h5::plist(H5Pcreate(H5P_LINK_CREATE));
    H5Pset_char_encoding(link_props_.get(), H5T_CSET_UTF8);
    group_props_ = h5::plist(H5Pcreate(H5P_GROUP_CREATE));
    H5Pset_obj_track_times(group_props_.get(), false);
    dataset_props_ = h5::plist(H5Pcreate(H5P_DATASET_CREATE));
    H5Pset_obj_track_times(dataset_props_.get(), false);
  }

  void write_root(hid_t root, const IoValue& value) {
    check(h5::write_string_attribute(root, "sampan_format", kFormatName), "/", "the format attribute");
    check(h5::write_int_attribute(root, "sampan_format_version", kFormatVersion), "/", "the format version");
    if (value.is_dict() || value.is_sequence()) {
      write_container(root, value, "/");
    } else {
      check(h5::write_string_attribute(root, "kind", "value"), "/", "the kind attribute");
      write_value(root, "value", value, "/value");
    }
  }

 private:
  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    std::string detail = h5::error_stack_text();
    SAMPAN_THROW(IOError, "sampan.save: cannot write ", path_, ": ", what, " at '", where, "' failed",
                 (detail.empty() ? "" : " (" + detail + ")"));
  }
  void check(bool ok, const std::string& where, const std::string& what) const {
    if (!ok) fail(where, "writing " + what);
  }
  static void check_no_nul(const std::string& s, const std::string& where, const char* what) {
    SAMPAN_CHECK(s.find('\0') == std::string::npos, ValueError, "sampan.save: the ", what, " at '", where,
                 "' contains a NUL character, which HDF5 strings cannot hold");
  }

  void write_container(hid_t group, const IoValue& value, const std::string& where) {
    check(h5::write_string_attribute(group, "kind", io_kind_name(value.kind())), where, "the kind attribute");
    if (value.is_dict()) {
      std::vector<std::string> keys;
      keys.reserve(value.size());
      for (const auto& item : value.as_dict()) {
        check_no_nul(item.first, where, "dict key");
        keys.push_back(item.first);
      }
      check(h5::write_strings_attribute(group, "keys", keys), where, "the key list");
      for (const auto& item : value.as_dict())
        write_value(group, link_name(item.first), item.second, child_path(where, item.first));
    } else {
      const auto& items = value.as_list();
      check(h5::write_int_attribute(group, "length", static_cast<int64_t>(items.size())), where, "the length");
      for (size_t i = 0; i < items.size(); ++i)
        write_value(group, std::to_string(i), items[i], child_path(where, std::to_string(i)));
    }
  }

  void write_value(hid_t parent, const std::string& link, const IoValue& value, const std::string& where) {
    switch (value.kind()) {
      case IoValue::Kind::Dict:
      case IoValue::Kind::List:
      case IoValue::Kind::Tuple: {
        Handle group = h5::group(
            H5Gcreate2(parent, link.c_str(), link_props_.get(), group_props_.get(), H5P_DEFAULT));
        if (!group.valid()) fail(where, "creating the group");
        write_container(group.get(), value, where);
        return;
      }
      case IoValue::Kind::Tensor: return write_tensor(parent, link, value.as_tensor(), where);
      case IoValue::Kind::None: {
        // An empty (null) dataspace: the dataset exists, holds nothing (h5py shows h5py.Empty).
        Handle space = h5::dataspace(H5Screate(H5S_NULL));
        Handle data = create_dataset(parent, link, H5T_STD_U8LE, space.get(), where);
        check(h5::write_string_attribute(data.get(), "kind", "none"), where, "the kind attribute");
        return;
      }
      case IoValue::Kind::Bool: {
        bool b = value.as_bool();
        return write_scalar(parent, link, h5::file_type(DType::Bool).get(), h5::memory_type(DType::Bool).get(), &b,
                            "bool", where);
      }
      case IoValue::Kind::Int: {
        int64_t i = value.as_int();
        return write_scalar(parent, link, H5T_STD_I64LE, H5T_NATIVE_INT64, &i, "int", where);
      }
      case IoValue::Kind::Double: {
        double d = value.as_double();
        return write_scalar(parent, link, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &d, "float", where);
      }
      case IoValue::Kind::String: {
        check_no_nul(value.as_string(), where, "string");
        Handle type = h5::string_type();
        const char* s = value.as_string().c_str();
        return write_scalar(parent, link, type.get(), type.get(), &s, "str", where);
      }
    }
  }

  Handle create_dataset(hid_t parent, const std::string& link, hid_t type, hid_t space, const std::string& where) {
    Handle data = h5::dataset(H5Dcreate2(parent, link.c_str(), type, space, link_props_.get(),
                                         dataset_props_.get(), H5P_DEFAULT));
    if (!data.valid()) fail(where, "creating the dataset");
    return data;
  }

  void write_scalar(hid_t parent, const std::string& link, hid_t file_type, hid_t memory_type, const void* data,
                    const char* kind, const std::string& where) {
    Handle space = h5::dataspace(H5Screate(H5S_SCALAR));
    Handle dataset = create_dataset(parent, link, file_type, space.get(), where);
    check(H5Dwrite(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) >= 0, where, "the value");
    check(h5::write_string_attribute(dataset.get(), "kind", kind), where, "the kind attribute");
  }

  void write_tensor(hid_t parent, const std::string& link, const Tensor& tensor, const std::string& where) {
    Tensor data;
    {
      NoGradGuard no_grad;  // reading values only: no graph for the copy
      // A GPU tensor is written from a host copy; the file holds values, so it loads on the CPU.
      data = tensor.detach().to(cpu_device()).contiguous();
    }
    std::vector<hsize_t> dims(tensor.shape().begin(), tensor.shape().end());
    Handle space = h5::dataspace(dims.empty() ? H5Screate(H5S_SCALAR)
                                              : H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
    if (!space.valid()) fail(where, "describing the shape " + shape_str(tensor.shape()));
    Handle file_type = h5::file_type(tensor.dtype());
    Handle dataset = create_dataset(parent, link, file_type.get(), space.get(), where);
    if (data.numel() > 0) {
      Handle memory_type = h5::memory_type(tensor.dtype());
      check(H5Dwrite(dataset.get(), memory_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, data.raw_data()) >= 0, where,
            "the tensor data");
    }
    check(h5::write_string_attribute(dataset.get(), "kind", "tensor"), where, "the kind attribute");
    check(h5::write_string_attribute(dataset.get(), "dtype", dtype_name(tensor.dtype())), where, "the dtype attribute");
  }

  std::string path_;
  Handle link_props_, group_props_, dataset_props_;
};

// Flushes a closed file's data to the disk (so the rename below never exposes an empty file
// after a power cut).
void fsync_path(const std::string& path, bool directory) {
  int fd = ::open(path.c_str(), directory ? (O_RDONLY | O_DIRECTORY) : O_RDONLY);
  if (fd < 0) {
    if (directory) return;  // best effort: some file systems do not open directories
    SAMPAN_THROW(IOError, "sampan.save: cannot reopen ", path, " to flush it: ", errno_text());
  }
  int rc = ::fsync(fd);
  int saved = errno;
  ::close(fd);
  if (rc != 0 && !directory) {
    errno = saved;
    SAMPAN_THROW(IOError, "sampan.save: flushing ", path, " to disk failed: ", errno_text());
  }
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

class Reader {
 public:
  explicit Reader(std::string path) : path_(std::move(path)) {}

  IoValue read_root(hid_t root) {
    std::string kind = read_kind(root, "/");
    if (kind == "value") return read_object(root, "value", "/value");
    if (kind == "dict" || kind == "list" || kind == "tuple") return read_container(root, kind, "/");
    corrupt("/", "unknown root kind '" + kind + "'");
  }

 private:
  // Anything unexpected inside a file that carries the sampan attributes: damage or truncation.
  [[noreturn]] void corrupt(const std::string& where, const std::string& what) const {
    std::string detail = h5::error_stack_text();
    SAMPAN_THROW(IOError, "not a sampan file / truncated: ", path_, " (", what, " at '", where, "'",
                 (detail.empty() ? "" : ": " + detail), ")");
  }

  std::string read_kind(hid_t object, const std::string& where) {
    std::optional<std::string> kind;
    try {
      kind = h5::read_string_attribute(object, "kind");
    } catch (const std::runtime_error& e) {
      corrupt(where, e.what());
    }
    if (!kind) corrupt(where, "no 'kind' attribute");
    return *kind;
  }

  IoValue read_object(hid_t parent, const std::string& link, const std::string& where) {
    if (H5Lexists(parent, link.c_str(), H5P_DEFAULT) <= 0) corrupt(where, "missing entry");
    Handle object = h5::object(H5Oopen(parent, link.c_str(), H5P_DEFAULT));
    if (!object.valid()) corrupt(where, "cannot open the entry");
    std::string kind = read_kind(object.get(), where);
    H5I_type_t type = H5Iget_type(object.get());
    if (type == H5I_GROUP) return read_container(object.get(), kind, where);
    if (type == H5I_DATASET) return read_dataset(object.get(), kind, where);
    corrupt(where, "an entry that is neither a group nor a dataset");
  }

  // Number of links in `group`, to tell a complete container from one cut short.
  hsize_t link_count(hid_t group, const std::string& where) {
    H5G_info_t info;
    if (H5Gget_info(group, &info) < 0) corrupt(where, "cannot list the group");
    return info.nlinks;
  }

  IoValue read_container(hid_t group, const std::string& kind, const std::string& where) {
    if (kind == "dict") {
      std::optional<std::vector<std::string>> keys;
      try {
        keys = h5::read_strings_attribute(group, "keys");
      } catch (const std::runtime_error& e) {
        corrupt(where, e.what());
      }
      if (!keys) corrupt(where, "a dict without its 'keys' attribute");
      if (link_count(group, where) != keys->size())
        corrupt(where, "a dict with " + std::to_string(link_count(group, where)) + " entries but " +
                           std::to_string(keys->size()) + " keys");
      std::unordered_set<std::string> seen;
      IoValue::Dict items;
      items.reserve(keys->size());
      for (auto& key : *keys) {
        if (!seen.insert(key).second) corrupt(where, "duplicate key '" + key + "'");
        IoValue value = read_object(group, link_name(key), child_path(where, key));
        items.emplace_back(std::move(key), std::move(value));
      }
      return IoValue::dict(std::move(items));
    }
    if (kind == "list" || kind == "tuple") {
      std::optional<int64_t> length;
      try {
        length = h5::read_int_attribute(group, "length");
      } catch (const std::runtime_error& e) {
        corrupt(where, e.what());
      }
      if (!length || *length < 0) corrupt(where, "a " + kind + " without a valid 'length' attribute");
      if (link_count(group, where) != static_cast<hsize_t>(*length))
        corrupt(where, "a " + kind + " with " + std::to_string(link_count(group, where)) + " entries but length " +
                           std::to_string(*length));
      IoValue::List items;
      items.reserve(static_cast<size_t>(*length));
      for (int64_t i = 0; i < *length; ++i)
        items.push_back(read_object(group, std::to_string(i), child_path(where, std::to_string(i))));
      return kind == "list" ? IoValue::list(std::move(items)) : IoValue::tuple(std::move(items));
    }
    corrupt(where, "a group of unknown kind '" + kind + "'");
  }

  // The shape of a dataset; nullopt for a null (empty) dataspace.
  std::optional<Shape> dataset_shape(hid_t dataset, const std::string& where) {
    Handle space = h5::dataspace(H5Dget_space(dataset));
    if (!space.valid()) corrupt(where, "cannot read the dataspace");
    H5S_class_t cls = H5Sget_simple_extent_type(space.get());
    if (cls == H5S_NULL) return std::nullopt;
    if (cls == H5S_SCALAR) return Shape{};
    int rank = H5Sget_simple_extent_ndims(space.get());
    if (cls != H5S_SIMPLE || rank < 0) corrupt(where, "an unreadable dataspace");
    std::vector<hsize_t> dims(static_cast<size_t>(rank));
    H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr);
    return Shape(dims.begin(), dims.end());
  }

  void read_scalar(hid_t dataset, hid_t memory_type, void* out, const std::string& where) {
    auto shape = dataset_shape(dataset, where);
    if (!shape || shape_numel(*shape) != 1) corrupt(where, "a scalar entry that does not hold one value");
    if (H5Dread(dataset, memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0) corrupt(where, "cannot read the value");
  }

  IoValue read_dataset(hid_t dataset, const std::string& kind, const std::string& where) {
    if (kind == "tensor") return read_tensor(dataset, where);
    if (kind == "none") return IoValue();
    if (kind == "int") {
      int64_t i = 0;
      read_scalar(dataset, H5T_NATIVE_INT64, &i, where);
      return IoValue(i);
    }
    if (kind == "float") {
      double d = 0;
      read_scalar(dataset, H5T_NATIVE_DOUBLE, &d, where);
      return IoValue(d);
    }
    if (kind == "bool") {
      int8_t b = 0;
      read_scalar(dataset, h5::memory_type(DType::Bool).get(), &b, where);
      return IoValue(b != 0);
    }
    if (kind == "str") {
      try {
        return IoValue(h5::read_string_dataset(dataset));
      } catch (const std::runtime_error& e) {
        corrupt(where, e.what());
      }
    }
    corrupt(where, "a dataset of unknown kind '" + kind + "'");
  }

  IoValue read_tensor(hid_t dataset, const std::string& where) {
    std::optional<std::string> dtype_text;
    try {
      dtype_text = h5::read_string_attribute(dataset, "dtype");
    } catch (const std::runtime_error& e) {
      corrupt(where, e.what());
    }
    if (!dtype_text) corrupt(where, "a tensor without its 'dtype' attribute");
    DType dtype;
    try {
      dtype = dtype_from_name(*dtype_text);
    } catch (const std::exception&) {
      corrupt(where, "a tensor of unknown dtype '" + *dtype_text + "'");
    }
    auto shape = dataset_shape(dataset, where);
    if (!shape) corrupt(where, "a tensor with an empty dataspace");
    Tensor tensor = Tensor::empty(*shape, dtype);
    if (tensor.numel() > 0) {
      Handle memory_type = h5::memory_type(dtype);
      if (H5Dread(dataset, memory_type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, tensor.raw_data()) < 0)
        corrupt(where, "cannot read the " + std::string(dtype_name(dtype)) + " data of shape " + shape_str(*shape));
    }
    return IoValue(tensor);
  }

  std::string path_;
};

}  // namespace

void save(const IoValue& obj, const std::string& path) {
  SAMPAN_CHECK(!path.empty(), ValueError, "sampan.save: the path is empty");
  std::string directory = parent_directory(path);
  struct stat st;
  if (::stat(directory.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    SAMPAN_THROW(IOError, "sampan.save: cannot write ", path, ": the directory '", directory, "' does not exist");
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    SAMPAN_THROW(IOError, "sampan.save: cannot write ", path, ": it is a directory");

  std::lock_guard<std::mutex> lock(h5::library_mutex());
  h5::SilenceErrors silence;
  const std::string temporary = path + ".tmp." + std::to_string(::getpid());
  try {
    // Object headers of the 1.8 format (readable by HDF5 >= 1.8): they store large attributes,
    // such as the key list of a dict with thousands of entries, in dense storage.
    Handle access = h5::plist(H5Pcreate(H5P_FILE_ACCESS));
    H5Pset_libver_bounds(access.get(), H5F_LIBVER_V18, H5F_LIBVER_LATEST);
    Handle file = h5::file(H5Fcreate(temporary.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access.get()));
    SAMPAN_CHECK(file.valid(), IOError, "sampan.save: cannot create ", temporary, ": ", errno_text(), " (", h5::error_stack_text(),
                 ")");
    {
      Handle root = h5::group(H5Gopen2(file.get(), "/", H5P_DEFAULT));
      Writer(path).write_root(root.get(), obj);
    }
    SAMPAN_CHECK(file.reset(), IOError, "sampan.save: closing ", temporary, " failed (", h5::error_stack_text(), ")");
    fsync_path(temporary, false);
    if (std::rename(temporary.c_str(), path.c_str()) != 0)
      SAMPAN_THROW(IOError, "sampan.save: cannot rename ", temporary, " to ", path, ": ", errno_text());
    fsync_path(directory, true);  // makes the rename itself durable
  } catch (...) {
    std::remove(temporary.c_str());
    throw;
  }
}

IoValue load(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) SAMPAN_THROW(IOError, "sampan.load: no such file: ", path);
    SAMPAN_THROW(IOError, "sampan.load: cannot access ", path, ": ", errno_text());
  }
  if (S_ISDIR(st.st_mode)) SAMPAN_THROW(IOError, "sampan.load: ", path, " is a directory, not a sampan file");
  int fd = ::open(path.c_str(), O_RDONLY);
  SAMPAN_CHECK(fd >= 0, IOError, "sampan.load: cannot open ", path, ": ", errno_text());
  ::close(fd);

  std::lock_guard<std::mutex> lock(h5::library_mutex());
  h5::SilenceErrors silence;
  SAMPAN_CHECK(H5Fis_hdf5(path.c_str()) > 0, IOError, "not a sampan file / truncated: ", path, " (no HDF5 signature)");
  Handle file = h5::file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
  SAMPAN_CHECK(file.valid(), IOError, "not a sampan file / truncated: ", path, " (", h5::error_stack_text(), ")");
  Handle root = h5::group(H5Gopen2(file.get(), "/", H5P_DEFAULT));
  SAMPAN_CHECK(root.valid(), IOError, "not a sampan file / truncated: ", path, " (cannot open the root group: ",
               h5::error_stack_text(), ")");

  std::optional<std::string> format;
  std::optional<int64_t> version;
  try {
    format = h5::read_string_attribute(root.get(), "sampan_format");
    if (format == kFormatName) version = h5::read_int_attribute(root.get(), "sampan_format_version");
  } catch (const std::runtime_error& e) {
    SAMPAN_THROW(IOError, "sampan.load: ", path, " is an HDF5 file but not a sampan file: its root ", e.what());
  }
  SAMPAN_CHECK(format, IOError, "sampan.load: ", path, " is an HDF5 file but not a sampan file: its root group has no "
               "'sampan_format' attribute (expected \"", kFormatName, "\")");
  if (*format != kFormatName)
    SAMPAN_THROW(IOError, "sampan.load: ", path, " is an HDF5 file but not a sampan file: its 'sampan_format' is \"",
                 *format, "\", expected \"", kFormatName, "\"");
  SAMPAN_CHECK(version, IOError, "sampan.load: ", path, " is a sampan file without its 'sampan_format_version' attribute");
  if (*version != kFormatVersion)
    SAMPAN_THROW(IOError, "sampan.load: ", path, " has sampan_format_version ", *version,
                 "; this sampan reads version ", kFormatVersion,
                 (*version > kFormatVersion ? " (written by a newer sampan: upgrade)" : ""));
  return Reader(path).read_root(root.get());
}

}  // namespace sampan
