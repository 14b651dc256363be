// sampan: dtype names, sizes, promotion and half-precision conversion.
#include "sampan/dtype.h"

#include "sampan/error.h"

namespace sampan {

namespace {
// Half <-> float by bit manipulation (IEEE 754 binary16, round to nearest even).
uint16_t float_to_half_bits(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t mant = x & 0x007fffffu;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xff);
  if (exp == 0xff) return static_cast<uint16_t>(sign | 0x7c00u | (mant ? 0x200u : 0u));
  exp = exp - 127 + 15;
  if (exp >= 0x1f) return static_cast<uint16_t>(sign | 0x7c00u);  // overflow to inf
  if (exp <= 0) {                                                    // subnormal or zero
    if (exp < -10) return static_cast<uint16_t>(sign);
    mant |= 0x00800000u;
    uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1u);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1u))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (half & 1u))) ++half;  // may carry into exponent: fine
  return static_cast<uint16_t>(half);
}

float half_bits_to_float(uint16_t h) {
  uint32_t sign = (static_cast<uint32_t>(h) & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t x;
  if (exp == 0) {
    if (mant == 0) {
      x = sign;
    } else {  // subnormal: normalize
      int e = -1;
      do { ++e; mant <<= 1; } while (!(mant & 0x400u));
      x = sign | (static_cast<uint32_t>(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
  } else if (exp == 0x1f) {
    x = sign | 0x7f800000u | (mant << 13);
  } else {
    x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}
}  // namespace

Half::Half(float f) : bits(float_to_half_bits(f)) {}
Half::operator float() const { return half_bits_to_float(bits); }

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
