// HDF5 helpers for sampan's checkpoint files (see h5_support.h).
#include "h5_support.h"

#include <cstring>
#include <stdexcept>

namespace sampan::detail::h5 {

namespace {

herr_t collect_error(unsigned, const H5E_error2_t* err, void* data) {
  auto* lines = static_cast<std::vector<std::string>*>(data);
  if (err && err->desc && *err->desc) lines->emplace_back(err->desc);
  return 0;
}

// Frees the strings HDF5 allocated while reading variable-length string data into `buffer`.
void reclaim_strings(hid_t type, hid_t space, void* buffer) {
#if H5_VERSION_GE(1, 12, 0)
  H5Treclaim(type, space, H5P_DEFAULT, buffer);
#else
  H5Dvlen_reclaim(type, space, H5P_DEFAULT, buffer);
#endif
}

// A compound {r, i} of two `part` values: h5py's (and NumPy's) layout of a complex number.
Handle complex_type(hid_t part, size_t part_size) {
  Handle t = datatype(H5Tcreate(H5T_COMPOUND, 2 * part_size));
  H5Tinsert(t.get(), "r", 0, part);
  H5Tinsert(t.get(), "i", part_size, part);
  return t;
}

// IEEE binary16 described field by field (HDF5 before 1.14.4 has no predefined half type):
// sign bit 15, exponent bits 10..14 with bias 15, mantissa bits 0..9. This is how h5py writes
// numpy.float16, so h5py reads our float16 datasets as float16.
Handle half_type(hid_t little_or_native_f32) {
  Handle t = datatype(H5Tcopy(little_or_native_f32));
  H5Tset_fields(t.get(), 15, 10, 5, 0, 10);
  H5Tset_size(t.get(), 2);
  H5Tset_ebias(t.get(), 15);
  return t;
}

Handle bool_type() {
  Handle t = datatype(H5Tenum_create(H5T_NATIVE_INT8));
  int8_t value = 0;
  H5Tenum_insert(t.get(), "FALSE", &value);
  value = 1;
  H5Tenum_insert(t.get(), "TRUE", &value);
  return t;
}

Handle copy(hid_t predefined) { return datatype(H5Tcopy(predefined)); }

// Opens attribute `name` of `object`, or returns an invalid handle when there is none.
Handle open_attribute(hid_t object, const char* name) {
  htri_t exists = H5Aexists(object, name);
  if (exists < 0) throw std::runtime_error(std::string("cannot query attribute '") + name + "'");
  if (exists == 0) return Handle();
  Handle a = attribute(H5Aopen(object, name, H5P_DEFAULT));
  if (!a.valid()) throw std::runtime_error(std::string("cannot open attribute '") + name + "'");
  return a;
}

// Reads every element of a string attribute or dataset (fixed or variable length); `what`
// names it in errors ("attribute 'keys'").
std::vector<std::string> read_all_strings(hid_t object, bool is_dataset, const std::string& what) {
  auto read = [&](hid_t mem, void* buffer) {
    return is_dataset ? H5Dread(object, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, buffer)
                      : H5Aread(object, mem, buffer);
  };
  Handle type = datatype(is_dataset ? H5Dget_type(object) : H5Aget_type(object));
  Handle space = dataspace(is_dataset ? H5Dget_space(object) : H5Aget_space(object));
  if (!type.valid() || !space.valid()) throw std::runtime_error("cannot read " + what);
  if (H5Tget_class(type.get()) != H5T_STRING) throw std::runtime_error(what + " is not a string");
  hssize_t n = H5Sget_simple_extent_npoints(space.get());
  if (n < 0) throw std::runtime_error("cannot read " + what);
  std::vector<std::string> out;
  out.reserve(static_cast<size_t>(n));
  Handle mem = datatype(H5Tcopy(type.get()));
  if (H5Tis_variable_str(type.get()) > 0) {
    std::vector<char*> buffer(static_cast<size_t>(n), nullptr);
    if (n > 0 && read(mem.get(), buffer.data()) < 0) throw std::runtime_error("cannot read " + what);
    for (char* s : buffer) out.emplace_back(s ? s : "");
    if (n > 0) reclaim_strings(mem.get(), space.get(), buffer.data());
  } else {
    size_t size = H5Tget_size(type.get());
    std::vector<char> buffer(size * static_cast<size_t>(n) + 1, '\0');
    if (n > 0 && read(mem.get(), buffer.data()) < 0) throw std::runtime_error("cannot read " + what);
    for (hssize_t i = 0; i < n; ++i) {
      const char* s = buffer.data() + static_cast<size_t>(i) * size;
      out.emplace_back(s, strnlen(s, size));  // null-terminated or null-padded
    }
  }
  return out;
}

}  // namespace

std::mutex& library_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::string error_stack_text() {
  std::vector<std::string> lines;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect_error, &lines);
  if (lines.empty()) return "";
  if (lines.size() == 1 || lines.front() == lines.back()) return lines.front();
  return lines.front() + ": " + lines.back();
}

Handle file_type(DType dtype) {
  switch (dtype) {
    case DType::Bool: return bool_type();
    case DType::Int32: return copy(H5T_STD_I32LE);
    case DType::Int64: return copy(H5T_STD_I64LE);
    case DType::Float16: return half_type(H5T_IEEE_F32LE);
    case DType::BFloat16: return copy(H5T_STD_U16LE);
    case DType::Float32: return copy(H5T_IEEE_F32LE);
    case DType::Float64: return copy(H5T_IEEE_F64LE);
    case DType::Complex64: return complex_type(H5T_IEEE_F32LE, 4);
    case DType::Complex128: return complex_type(H5T_IEEE_F64LE, 8);
  }
  throw std::logic_error("h5::file_type: unknown dtype");
}

Handle memory_type(DType dtype) {
  switch (dtype) {
    case DType::Bool: return bool_type();
    case DType::Int32: return copy(H5T_NATIVE_INT32);
    case DType::Int64: return copy(H5T_NATIVE_INT64);
    case DType::Float16: return half_type(H5T_NATIVE_FLOAT);
    case DType::BFloat16: return copy(H5T_NATIVE_UINT16);
    case DType::Float32: return copy(H5T_NATIVE_FLOAT);
    case DType::Float64: return copy(H5T_NATIVE_DOUBLE);
    case DType::Complex64: return complex_type(H5T_NATIVE_FLOAT, 4);
    case DType::Complex128: return complex_type(H5T_NATIVE_DOUBLE, 8);
  }
  throw std::logic_error("h5::memory_type: unknown dtype");
}

Handle string_type() {
  Handle t = datatype(H5Tcopy(H5T_C_S1));
  H5Tset_size(t.get(), H5T_VARIABLE);
  H5Tset_cset(t.get(), H5T_CSET_UTF8);
  return t;
}

bool write_string_attribute(hid_t object, const char* name, const std::string& value) {
  Handle type = string_type();
  Handle space = dataspace(H5Screate(H5S_SCALAR));
  Handle attr = attribute(H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
  const char* data = value.c_str();
  return attr.valid() && H5Awrite(attr.get(), type.get(), &data) >= 0;
}

bool write_int_attribute(hid_t object, const char* name, int64_t value) {
  Handle space = dataspace(H5Screate(H5S_SCALAR));
  Handle attr = attribute(H5Acreate2(object, name, H5T_STD_I64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT));
  return attr.valid() && H5Awrite(attr.get(), H5T_NATIVE_INT64, &value) >= 0;
}

bool write_strings_attribute(hid_t object, const char* name, const std::vector<std::string>& strings) {
  Handle type = string_type();
  hsize_t n = strings.size();
  Handle space = dataspace(H5Screate_simple(1, &n, nullptr));
  Handle attr = attribute(H5Acreate2(object, name, type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT));
  if (!attr.valid()) return false;
  std::vector<const char*> data;
  data.reserve(strings.size());
  for (const auto& s : strings) data.push_back(s.c_str());
  return n == 0 || H5Awrite(attr.get(), type.get(), data.data()) >= 0;
}

std::optional<std::string> read_string_attribute(hid_t object, const char* name) {
  Handle attr = open_attribute(object, name);
  if (!attr.valid()) return std::nullopt;
  auto strings = read_all_strings(attr.get(), false, std::string("attribute '") + name + "'");
  if (strings.size() != 1)
    throw std::runtime_error(std::string("attribute '") + name + "' holds " +
                             std::to_string(strings.size()) + " strings, expected one");
  return strings[0];
}

std::optional<int64_t> read_int_attribute(hid_t object, const char* name) {
  Handle attr = open_attribute(object, name);
  if (!attr.valid()) return std::nullopt;
  Handle type = datatype(H5Aget_type(attr.get()));
  Handle space = dataspace(H5Aget_space(attr.get()));
  if (!type.valid() || H5Tget_class(type.get()) != H5T_INTEGER)
    throw std::runtime_error(std::string("attribute '") + name + "' is not an integer");
  if (H5Sget_simple_extent_npoints(space.get()) != 1)
    throw std::runtime_error(std::string("attribute '") + name + "' is not a single integer");
  int64_t value = 0;
  if (H5Aread(attr.get(), H5T_NATIVE_INT64, &value) < 0)
    throw std::runtime_error(std::string("cannot read attribute '") + name + "'");
  return value;
}

std::optional<std::vector<std::string>> read_strings_attribute(hid_t object, const char* name) {
  Handle attr = open_attribute(object, name);
  if (!attr.valid()) return std::nullopt;
  return read_all_strings(attr.get(), false, std::string("attribute '") + name + "'");
}

std::string read_string_dataset(hid_t dataset) {
  auto strings = read_all_strings(dataset, true, "string dataset");
  if (strings.size() != 1)
    throw std::runtime_error("string dataset holds " + std::to_string(strings.size()) + " strings, expected one");
  return strings[0];
}

}  // namespace sampan::detail::h5
