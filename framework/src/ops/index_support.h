// sampan internal: what the indexing (index.cpp), mask (mask.cpp) and assembling (assemble.cpp)
// op files share: axis and index-dtype checks, a copy type per item size, dense broadcasting.
#pragma once

#include <cstdint>
#include <string>

#include "sampan/dispatch.h"
#include "sampan/ops.h"

namespace sampan::detail {

inline int64_t axis_of(const char* op, int64_t axis, int64_t ndim) {
  SAMPAN_CHECK(ndim != 0, IndexError, op, ": a 0-d tensor has no axis ", axis);
  return normalize_axis(axis, ndim);
}

inline void check_index_dtype(const char* op, DType t) {
  if (!is_integral(t))
    SAMPAN_THROW(TypeError, op, ": index must be an int32 or int64 tensor, got ", dtype_name(t));
}

// One element type per item size: data movement does not care what the bytes mean.
struct Bytes16 { uint64_t lo, hi; };
template <class F> inline void visit_itemsize(size_t size, F f) {
  switch (size) {
    case 1: return f(type_tag<uint8_t>{});
    case 2: return f(type_tag<uint16_t>{});
    case 4: return f(type_tag<uint32_t>{});
    case 8: return f(type_tag<uint64_t>{});
    case 16: return f(type_tag<Bytes16>{});
  }
  SAMPAN_THROW(NotImplementedError, "no copy kernel for elements of ", size, " bytes");
}

// Validates that `t` broadcasts to `want` and returns the contiguous broadcast, converted.
inline Tensor dense_as(const Tensor& t, const Shape& want, DType dtype) {
  return contiguous(broadcast_to(t.to(dtype), want));
}

}  // namespace sampan::detail
