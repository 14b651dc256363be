// sampan: element types, their sizes and NumPy-style type promotion.
#pragma once

#include <complex>
#include <cstdint>
#include <cstring>
#include <string>

#include "sampan/half_bits.h"
#include "sampan/host_device.h"

namespace sampan {

/// Element type of a Tensor. The order is the promotion lattice within each kind.
enum class DType : uint8_t {
  Bool,
  Int32,
  Int64,
  Float16,
  BFloat16,
  Float32,
  Float64,
  Complex64,
  Complex128,
};

/// IEEE binary16 stored as bits; arithmetic happens in float.
struct Half {
  uint16_t bits = 0;
  Half() = default;
  SAMPAN_HOST_DEVICE Half(float f) : bits(float_to_half_bits(f)) {}  // NOLINT: implicit like a builtin floating type
  SAMPAN_HOST_DEVICE operator float() const { return half_bits_to_float(bits); }
};

/// bfloat16 stored as the upper 16 bits of a float32 (round to nearest even on conversion).
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  SAMPAN_HOST_DEVICE BFloat16(float f) : bits(float_to_bfloat16_bits(f)) {}  // NOLINT
  SAMPAN_HOST_DEVICE operator float() const { return bfloat16_bits_to_float(bits); }
};

using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

/// Bytes per element.
size_t itemsize(DType t);
/// "float32", "complex128", ... (NumPy names).
const char* dtype_name(DType t);
/// Parse a NumPy-style name ("float64", "int64", "bool", "complex64", "bfloat16" ...).
DType dtype_from_name(const std::string& name);

inline bool is_floating(DType t) { return t >= DType::Float16 && t <= DType::Float64; }
inline bool is_complex(DType t) { return t == DType::Complex64 || t == DType::Complex128; }
inline bool is_integral(DType t) { return t == DType::Int32 || t == DType::Int64; }
/// Floating or complex: the dtypes gradients flow through.
inline bool is_differentiable(DType t) { return is_floating(t) || is_complex(t); }

/// NumPy's result_type for two arrays (bool < int < float < complex, wider wins; float16 with
/// bfloat16 gives float32; complex64 with float64 gives complex128).
DType promote_types(DType a, DType b);
/// The real counterpart of a complex dtype (complex64 -> float32); identity otherwise.
DType real_dtype(DType t);
/// The complex counterpart of a real floating dtype (float64 -> complex128).
DType complex_dtype(DType t);
/// The default floating dtype (float32) that integer inputs of floating functions become.
DType to_floating(DType t);

/// Maps a C++ element type to its DType.
template <class T> struct dtype_of;
template <> struct dtype_of<bool> { static constexpr DType value = DType::Bool; };
template <> struct dtype_of<int32_t> { static constexpr DType value = DType::Int32; };
template <> struct dtype_of<int64_t> { static constexpr DType value = DType::Int64; };
template <> struct dtype_of<Half> { static constexpr DType value = DType::Float16; };
template <> struct dtype_of<BFloat16> { static constexpr DType value = DType::BFloat16; };
template <> struct dtype_of<float> { static constexpr DType value = DType::Float32; };
template <> struct dtype_of<double> { static constexpr DType value = DType::Float64; };
template <> struct dtype_of<complex64> { static constexpr DType value = DType::Complex64; };
template <> struct dtype_of<complex128> { static constexpr DType value = DType::Complex128; };

}  // namespace sampan
