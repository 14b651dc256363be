#include "data/npy_reader.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "sampan/error.h"

namespace sampan::deepmd::detail {

int64_t NpyArray::numel() const {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  SAMPAN_THROW(IOError, "npy file ", path, ": ", what);
}

// The value of `key` in the header dict text, as the raw text up to the next top-level comma.
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

std::vector<int64_t> parse_shape(const std::string& tuple, const std::string& path) {
  std::vector<int64_t> shape;
  std::string inner = tuple.substr(1, tuple.size() - 2);
  std::stringstream ss(inner);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t b = item.find_first_not_of(' ');
    if (b == std::string::npos) continue;  // trailing comma of a 1-tuple
    size_t e = item.find_last_not_of(' ');
    std::string digits = item.substr(b, e - b + 1);
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

template <class T> void convert(const char* bytes, int64_t n, bool swap, std::vector<double>& out) {
  out.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    char buffer[sizeof(T)];
    std::memcpy(buffer, bytes + i * sizeof(T), sizeof(T));
    if (swap) for (size_t k = 0; k < sizeof(T) / 2; ++k) std::swap(buffer[k], buffer[sizeof(T) - 1 - k]);
    T value;
    std::memcpy(&value, buffer, sizeof(T));
    out[static_cast<size_t>(i)] = static_cast<double>(value);
  }
}

}  // namespace

NpyArray read_npy(const std::string& path) {
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
    header_len = 0;
    for (int k = 0; k < 4; ++k) header_len |= static_cast<size_t>(static_cast<unsigned char>(bytes[8 + k])) << (8 * k);
    header_start = 12;
  } else {
    fail(path, "unsupported format version " + std::to_string(major));
  }
  if (bytes.size() < header_start + header_len) fail(path, "truncated header");
  const std::string header = bytes.substr(header_start, header_len);

  NpyArray array;
  std::string descr = header_field(header, "descr", path);
  if (descr.size() < 2) fail(path, "bad descr " + descr);
  descr = descr.substr(1, descr.size() - 2);  // strip quotes
  array.descr = descr;
  const std::string fortran = header_field(header, "fortran_order", path);
  if (fortran != "False") fail(path, "Fortran-order arrays are not supported (fortran_order=" + fortran + ")");
  array.shape = parse_shape(header_field(header, "shape", path), path);

  if (descr.size() != 3) fail(path, "unsupported dtype '" + descr + "' (expected f4, f8, i4 or i8)");
  const char order = descr[0];
  const std::string kind = descr.substr(1);
  bool little = order == '<' || (order == '=' && host_is_little_endian()) || order == '|';
  if (order != '<' && order != '>' && order != '=' && order != '|') fail(path, "bad byte order in dtype '" + descr + "'");
  const bool swap = little != host_is_little_endian();
  size_t item = 0;
  if (kind == "f4" || kind == "i4") item = 4;
  else if (kind == "f8" || kind == "i8") item = 8;
  else fail(path, "unsupported dtype '" + descr + "' (expected f4, f8, i4 or i8)");

  const int64_t n = array.numel();
  const size_t payload = header_start + header_len;
  const size_t need = static_cast<size_t>(n) * item;
  if (bytes.size() - payload < need)
    fail(path, "truncated data: shape needs " + std::to_string(need) + " bytes, file has " + std::to_string(bytes.size() - payload));
  const char* data = bytes.data() + payload;
  if (kind == "f4") convert<float>(data, n, swap, array.data);
  else if (kind == "f8") convert<double>(data, n, swap, array.data);
  else if (kind == "i4") convert<int32_t>(data, n, swap, array.data);
  else convert<int64_t>(data, n, swap, array.data);
  return array;
}

void write_npy(const std::string& path, const std::vector<int64_t>& shape, const std::vector<double>& data) {
  std::string shape_text = "(";
  for (size_t i = 0; i < shape.size(); ++i) shape_text += std::to_string(shape[i]) + (shape.size() == 1 ? "," : (i + 1 < shape.size() ? ", " : ""));
  shape_text += ")";
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': " + shape_text + ", }";
  // Pad so that magic + version + length + header (+ '\n') is a multiple of 64 bytes.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    SAMPAN_CHECK(out, IOError, "cannot write ", temporary);
    out.write("\x93NUMPY\x01\x00", 8);
    const uint16_t len = static_cast<uint16_t>(header.size());
    const char len_bytes[2] = {static_cast<char>(len & 0xff), static_cast<char>(len >> 8)};
    out.write(len_bytes, 2);
    out.write(header.data(), static_cast<std::streamsize>(header.size()));
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size() * sizeof(double)));
    SAMPAN_CHECK(out, IOError, "write failed: ", temporary);
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) SAMPAN_THROW(IOError, "cannot rename ", temporary, " to ", path);
}

}  // namespace sampan::deepmd::detail
