// sampan: dtype names, sizes and promotion (the half-precision conversions: sampan/half_bits.h).
#include "sampan/dtype.h"

#include "sampan/error.h"

namespace sampan {

size_t itemsize(DType t) {
  switch (t) {
    case DType::Bool: return 1;
    case DType::Int32: return 4;
    case DType::Int64: return 8;
    case DType::Float16: return 2;
    case DType::BFloat16: return 2;
    case DType::Float32: return 4;
    case DType::Float64: return 8;
    case DType::Complex64: return 8;
    case DType::Complex128: return 16;
  }
  return 0;
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::Int32: return "int32";
    case DType::Int64: return "int64";
    case DType::Float16: return "float16";
    case DType::BFloat16: return "bfloat16";
    case DType::Float32: return "float32";
    case DType::Float64: return "float64";
    case DType::Complex64: return "complex64";
    case DType::Complex128: return "complex128";
  }
  return "?";
}

DType dtype_from_name(const std::string& n) {
  if (n == "bool") return DType::Bool;
  if (n == "int32") return DType::Int32;
  if (n == "int64" || n == "int" || n == "long") return DType::Int64;
  if (n == "float16" || n == "half") return DType::Float16;
  if (n == "bfloat16") return DType::BFloat16;
  if (n == "float32" || n == "float") return DType::Float32;
  if (n == "float64" || n == "double") return DType::Float64;
  if (n == "complex64") return DType::Complex64;
  if (n == "complex128") return DType::Complex128;
  SAMPAN_THROW(TypeError, "unknown dtype '", n,
               "': expected one of bool, int32, int64, float16, bfloat16, float32, float64, "
               "complex64, complex128");
}

DType real_dtype(DType t) {
  if (t == DType::Complex64) return DType::Float32;
  if (t == DType::Complex128) return DType::Float64;
  return t;
}

DType complex_dtype(DType t) {
  if (t == DType::Float64 || t == DType::Complex128) return DType::Complex128;
  return DType::Complex64;
}

DType to_floating(DType t) { return (is_floating(t) || is_complex(t)) ? t : DType::Float32; }

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (a > b) std::swap(a, b);  // now a < b in the enum order
  if (is_complex(b)) {
    // complex64 with float64 needs complex128 to keep the real precision.
    if (b == DType::Complex64 && a == DType::Float64) return DType::Complex128;
    return b;
  }
  if (a == DType::Float16 && b == DType::BFloat16) return DType::Float32;
  if (is_floating(b)) return b;
  return b;  // bool < int32 < int64
}

}  // namespace sampan
