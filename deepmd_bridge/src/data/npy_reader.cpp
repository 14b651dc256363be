// DeePMD's .npy arrays as float64 values, over the core's .npy reader and writer (sampan/npy.h),
// which hold the file format once for all of sampan.
#include "data/npy_reader.h"

#include "sampan/error.h"
#include "sampan/npy.h"
#include "sampan/ops.h"

namespace sampan::deepmd::detail {

int64_t NpyArray::numel() const {
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  return n;
}

NpyArray read_npy(const std::string& path) {
  Tensor t = sampan::read_npy(path);
  const char* descr = nullptr;
  switch (t.dtype()) {
    case DType::Float32: descr = "<f4"; break;
    case DType::Float64: descr = "<f8"; break;
    case DType::Int32: descr = "<i4"; break;
    case DType::Int64: descr = "<i8"; break;
    default:
      SAMPAN_THROW(IOError, "npy file ", path, ": unsupported dtype ", dtype_name(t.dtype()),
                   " for DeePMD data (expected f4, f8, i4 or i8)");
  }
  NpyArray array;
  array.shape = t.shape();
  array.descr = descr;  // the values' kind (byte order already resolved by the reader)
  Tensor values = cast(t, DType::Float64).contiguous();
  array.data.assign(values.data<double>(), values.data<double>() + values.numel());
  return array;
}

void write_npy(const std::string& path, const std::vector<int64_t>& shape, const std::vector<double>& data) {
  sampan::write_npy(path, from_vector(data, shape));
}

}  // namespace sampan::deepmd::detail
