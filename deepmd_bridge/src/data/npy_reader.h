// Reading NumPy .npy files (format versions 1.0, 2.0 and 3.0) into float64.
//
// DeePMD systems store per-frame arrays as .npy in float32 or float64 (and sometimes integers);
// every numeric value is converted to double on read so that downstream code has one precision.
// Only C-order little- or big-endian arrays of f4, f8, i4, i8 are accepted; anything else is an
// IOError naming the file and what was found.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sampan::deepmd::detail {

struct NpyArray {
  std::vector<int64_t> shape;
  std::string descr;          // as in the header, e.g. "<f4"
  std::vector<double> data;   // row-major values converted to double

  int64_t numel() const;
};

/// Reads `path`; throws sampan::IOError naming the file on a missing file, a bad magic string,
/// a malformed header, an unsupported dtype, Fortran order, or a truncated payload.
NpyArray read_npy(const std::string& path);

/// Writes a C-order little-endian float64 array (used by tests and by data export); atomic
/// (temporary file, then rename).
void write_npy(const std::string& path, const std::vector<int64_t>& shape, const std::vector<double>& data);

}  // namespace sampan::deepmd::detail
