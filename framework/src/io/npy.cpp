// sampan: .npy files as tensors (sampan/npy.h).
#include "sampan/npy.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <utility>
#include <vector>

#include "sampan/error.h"
#include "sampan/ops.h"

namespace sampan {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  SAMPAN_THROW(IOError, "npy file ", path, ": ", what);
}

// The value of `key` in the header dict text: the tuple, or the text up to the next comma or brace.
std::string header_field(const std::string& header, const std::string& key, const std::string& path) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos) at = header.find("\"" + key + "\"");
  if (at == std::string::npos) fail(path, "header has no '" + key + "' field: " + header);
  size_t colon = header.find(':', at);
  if (colon == std::string::npos) fail(path, "malformed header: " + header);
  size_t begin = colon + 1;
  while (begin < header.size() && header[begin] == ' ') ++begin;
  if (begin < header.size() && header[begin] == '(') {
    size_t end = header.find(')', begin);
    if (end == std::string::npos) fail(path, "unterminated shape tuple: " + header);
    return header.substr(begin, end - begin + 1);
  }
  size_t end = header.find_first_of(",}", begin);
  if (end == std::string::npos) fail(path, "malformed header: " + header);
  std::string value = header.substr(begin, end - begin);
  while (!value.empty() && value.back() == ' ') value.pop_back();
  return value;
}

Shape parse_shape(const std::string& tuple, const std::string& path) {
  Shape shape;
  std::stringstream ss(tuple.substr(1, tuple.size() - 2));
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t b = item.find_first_not_of(' ');
    if (b == std::string::npos) continue;  // the trailing comma of a 1-tuple
    std::string digits = item.substr(b, item.find_last_not_of(' ') - b + 1);
    char* endp = nullptr;
    long long v = std::strtoll(digits.c_str(), &endp, 10);
    if (endp == digits.c_str() || *endp != '\0' || v < 0) fail(path, "bad shape entry '" + digits + "' in " + tuple);
    shape.push_back(v);
  }
  return shape;
}

bool host_is_little_endian() {
  const uint16_t one = 1;
  unsigned char first;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

// descr kind ("f8") -> dtype, and the size of one swapped unit (a complex swaps per part).
bool npy_dtype(const std::string& kind, DType& d, size_t& unit) {
  static const std::pair<const char*, std::pair<DType, size_t>> table[] = {
      {"b1", {DType::Bool, 1}},     {"i4", {DType::Int32, 4}},     {"i8", {DType::Int64, 8}},
      {"f2", {DType::Float16, 2}},  {"f4", {DType::Float32, 4}},   {"f8", {DType::Float64, 8}},
      {"c8", {DType::Complex64, 4}}, {"c16", {DType::Complex128, 8}}};
  for (const auto& [name, v] : table)
    if (kind == name) {
      d = v.first;
      unit = v.second;
      return true;
    }
  return false;
}

const char* descr_of(DType d) {
  switch (d) {
    case DType::Bool: return "|b1";
    case DType::Int32: return "<i4";
    case DType::Int64: return "<i8";
    case DType::Float16: return "<f2";
    case DType::Float32: return "<f4";
    case DType::Float64: return "<f8";
    case DType::Complex64: return "<c8";
    case DType::Complex128: return "<c16";
    default: return nullptr;
  }
}

}  // namespace

Tensor read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open (missing or unreadable)");
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) fail(path, "not a .npy file (bad magic string)");
  const int major = static_cast<unsigned char>(bytes[6]);
  size_t header_len = 0, header_start = 0;
  if (major == 1) {
    header_len = static_cast<unsigned char>(bytes[8]) | (static_cast<size_t>(static_cast<unsigned char>(bytes[9])) << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) fail(path, "truncated header");
    for (int k = 0; k < 4; ++k) header_len |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + k])) << (8 * k);
    header_start = 12;
  } else {
    fail(path, "unsupported format version " + std::to_string(major));
  }
  if (bytes.size() < header_start + header_len) fail(path, "truncated header");
  const std::string header = bytes.substr(header_start, header_len);

  std::string descr = header_field(header, "descr", path);
  if (descr.size() < 2) fail(path, "bad descr " + descr);
  descr = descr.substr(1, descr.size() - 2);  // strip the quotes
  const std::string fortran = header_field(header, "fortran_order", path);
  if (fortran != "False") fail(path, "Fortran-order arrays are not supported (fortran_order=" + fortran + ")");
  const Shape shape = parse_shape(header_field(header, "shape", path), path);
  if (descr.size() < 3) fail(path, "unsupported dtype '" + descr + "'");
  const char order = descr[0];
  if (order != '<' && order != '>' && order != '=' && order != '|') fail(path, "bad byte order in dtype '" + descr + "'");
  DType dtype;
  size_t unit = 0;
  if (!npy_dtype(descr.substr(1), dtype, unit))
    fail(path, "unsupported dtype '" + descr + "' (expected b1, i4, i8, f2, f4, f8, c8 or c16)");
  const bool little = order == '<' || order == '|' || (order == '=' && host_is_little_endian());
  const bool swap = unit > 1 && little != host_is_little_endian();

  Tensor t = Tensor::empty(shape, dtype);
  const size_t payload = header_start + header_len, need = t.nbytes();
  if (bytes.size() - payload < need)
    fail(path, "truncated data: shape " + shape_str(shape) + " needs " + std::to_string(need) + " bytes, file has " +
                   std::to_string(bytes.size() - payload));
  char* out = static_cast<char*>(t.raw_data());
  std::memcpy(out, bytes.data() + payload, need);
  if (swap)
    for (size_t at = 0; at + unit <= need; at += unit)
      for (size_t k = 0; k < unit / 2; ++k) std::swap(out[at + k], out[at + unit - 1 - k]);
  return t;
}

void write_npy(const std::string& path, const Tensor& t) {
  const char* descr = descr_of(t.dtype());
  SAMPAN_CHECK(descr, TypeError, "write_npy ", path, ": NumPy has no ", dtype_name(t.dtype()), " (write a cast)");
  SAMPAN_CHECK(host_is_little_endian(), RuntimeError, "write_npy: a big-endian host is not supported");
  Tensor c = t.detach().to(cpu_device()).contiguous();
  std::string shape_text = "(";
  for (size_t i = 0; i < c.shape().size(); ++i)
    shape_text += std::to_string(c.shape()[i]) + (c.shape().size() == 1 ? "," : (i + 1 < c.shape().size() ? ", " : ""));
  shape_text += ")";
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape_text + ", }";
  // Padded so that magic + version + length + header (+ '\n') is a multiple of 64 bytes.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  const std::string temporary = path + ".tmp." + std::to_string(getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    SAMPAN_CHECK(out, IOError, "cannot write ", temporary);
    out.write("\x93NUMPY\x01\x00", 8);
    const uint16_t len = static_cast<uint16_t>(header.size());
    const char len_bytes[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
    out.write(len_bytes, 2);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(static_cast<const char*>(c.raw_data()), static_cast<std::streamsize>(c.nbytes()));
    out.flush();
    if (!out) {
      out.close();
      std::remove(temporary.c_str());
      SAMPAN_THROW(IOError, "write failed: ", temporary);
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    SAMPAN_THROW(IOError, "cannot rename ", temporary, " to ", path);
  }
}

}  // namespace sampan
