// A complex number CUDA kernels (sampan's and custom ops') can compute with: std::complex's layout (real, then imaginary)
// with host+device arithmetic, since std::complex's operators are not device functions. The
// kernels read complex64/complex128 buffers through it. Negation, sums and differences are the CPU's; the
// product is (ac - bd) + (ad + bc)i, what std::complex gives for finite values (its special
// handling only changes results that are NaN in both parts). Division is left out here (the
// framework's kernels divide by Smith's algorithm, framework/src/kernels/binary_element.h).
// tests/cpp/framework/strided_layout_test.cpp compares these operators with std::complex on the CPU.
#pragma once

#include "sampan/host_device.h"

namespace sampan::kernels {

template <class T> struct ComplexElement {
  T re, im;
};

template <class T> SAMPAN_HOST_DEVICE inline ComplexElement<T> operator-(ComplexElement<T> a) { return {-a.re, -a.im}; }
template <class T>
SAMPAN_HOST_DEVICE inline ComplexElement<T> operator+(ComplexElement<T> a, ComplexElement<T> b) {
  return {a.re + b.re, a.im + b.im};
}
template <class T>
SAMPAN_HOST_DEVICE inline ComplexElement<T> operator-(ComplexElement<T> a, ComplexElement<T> b) {
  return {a.re - b.re, a.im - b.im};
}
template <class T>
SAMPAN_HOST_DEVICE inline ComplexElement<T> operator*(ComplexElement<T> a, ComplexElement<T> b) {
  const T ac = a.re * b.re, bd = a.im * b.im, ad = a.re * b.im, bc = a.im * b.re;
  return {ac - bd, ad + bc};
}

template <class T> SAMPAN_HOST_DEVICE inline ComplexElement<T> conj(ComplexElement<T> a) { return {a.re, -a.im}; }

}  // namespace sampan::kernels
