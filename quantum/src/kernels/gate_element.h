// sampan quantum: the per-amplitude bodies of the gate kernels, shared by the portable CPU kernels
// (gates.h) and the CUDA kernels (gates.cu), so the CPU tests run the arithmetic a GPU runs.
//
// Cx is the complex type of the caller: std::complex<T> on the CPU (this library builds with
// -fcx-limited-range, so its products are (ac - bd) + (ad + bc)i) and sampan::kernels::
// ComplexElement<T> on the GPU (the same formula). `conj` is found by argument-dependent lookup.
// Sums start from their first term, not from zero, so both types need no zero constant.
#pragma once

#include <cstdint>

#include "sampan/host_device.h"

namespace sampan::quantum::kernels {

/// g with a zero bit inserted at position q (the bits from q up move one place higher).
SAMPAN_HOST_DEVICE inline uint64_t insert_zero_bit(uint64_t g, int q) {
  return ((g >> q) << (q + 1)) | (g & ((uint64_t(1) << q) - 1));
}

/// The g-th amplitude index whose bits at `sorted` (k ascending positions) are all 0.
SAMPAN_HOST_DEVICE inline uint64_t group_base(uint64_t g, const int* sorted, int k) {
  for (int j = 0; j < k; ++j) g = insert_zero_bit(g, sorted[j]);
  return g;
}

/// Parity of the set bits of v (the sign of a Pauli Z string).
SAMPAN_HOST_DEVICE inline bool odd_parity(uint64_t v) {
#if defined(__CUDA_ARCH__)
  return __popcll(v) & 1;
#else
  return __builtin_popcountll(v) & 1;
#endif
}

/// The 2x2 matrix m (row-major) on the pair (a[i0], a[i1]).
template <class Cx> SAMPAN_HOST_DEVICE inline void dense_pair(Cx* a, uint64_t i0, uint64_t i1, const Cx* m) {
  const Cx x = a[i0], y = a[i1];
  a[i0] = m[0] * x + m[1] * y;
  a[i1] = m[2] * x + m[3] * y;
}

/// The dim x dim matrix m (row-major) on the group a[base | off[r]], r < dim; v: dim scratch slots.
template <class Cx>
SAMPAN_HOST_DEVICE inline void dense_group(Cx* a, uint64_t base, const uint64_t* off, int dim, const Cx* m, Cx* v) {
  for (int r = 0; r < dim; ++r) v[r] = a[base | off[r]];
  for (int r = 0; r < dim; ++r) {
    const Cx* row = m + static_cast<int64_t>(r) * dim;
    Cx acc = row[0] * v[0];
    for (int c = 1; c < dim; ++c) acc = acc + row[c] * v[c];
    a[base | off[r]] = acc;
  }
}

/// conj(lam) . (m phi) over the pair (i0, i1): one term of <lam| m |phi> (a gate derivative's).
template <class Cx>
SAMPAN_HOST_DEVICE inline Cx inner_pair(const Cx* lam, const Cx* phi, uint64_t i0, uint64_t i1, const Cx* m) {
  const Cx x = phi[i0], y = phi[i1];
  return conj(lam[i0]) * (m[0] * x + m[1] * y) + conj(lam[i1]) * (m[2] * x + m[3] * y);
}

/// conj(lam) . (m phi) over the group base | off[r], r < dim.
template <class Cx>
SAMPAN_HOST_DEVICE inline Cx inner_group(const Cx* lam, const Cx* phi, uint64_t base, const uint64_t* off, int dim,
                                         const Cx* m) {
  Cx s{};
  for (int r = 0; r < dim; ++r) {
    const Cx* row = m + static_cast<int64_t>(r) * dim;
    Cx acc = row[0] * phi[base | off[0]];
    for (int c = 1; c < dim; ++c) acc = acc + row[c] * phi[base | off[c]];
    const Cx term = conj(lam[base | off[r]]) * acc;
    s = r == 0 ? term : s + term;
  }
  return s;
}

/// conj(psi[u ^ x]) psi[u] (-1)^{|u & z|}: one term of <psi| X^x Z^z |psi> (up to the i^{n_y} phase).
template <class Cx> SAMPAN_HOST_DEVICE inline Cx pauli_element(const Cx* psi, uint64_t u, uint64_t xmask, uint64_t zmask) {
  const Cx v = conj(psi[u ^ xmask]) * psi[u];
  return odd_parity(u & zmask) ? -v : v;
}

/// out[u ^ x] += phase (-1)^{|u & z|} psi[u]: one amplitude of a Pauli term times psi (u -> u ^ x
/// is a bijection, so one term's updates never collide).
template <class Cx>
SAMPAN_HOST_DEVICE inline void add_pauli_image(const Cx* psi, Cx* out, uint64_t u, uint64_t xmask, uint64_t zmask,
                                               Cx phase) {
  const Cx p = odd_parity(u & zmask) ? -phase : phase;
  out[u ^ xmask] = out[u ^ xmask] + p * psi[u];
}

}  // namespace sampan::quantum::kernels
