// The per-slot bodies of the se_e2_a environment matrix, shared by the CPU kernels
// (env_mat_kernels.cpp) and their CUDA twins (env_mat_kernels.cu): see add_policy.h for why.
// Layout and notation: env_mat_kernels.h. A slot is (centre i, neighbour slot j), slot = i*nnei + j.
#pragma once

#include "kernels/add_policy.h"

namespace sampan::deepmd::kernels {

/// DeePMD's switch: 1 below rs, u^3(-6u^2+15u-10)+1 with u=(r-rs)/(rc-rs) between, 0 from rc on.
/// Writes sw, dsw/dr and d2sw/dr2.
template <class T> SAMPAN_HOST_DEVICE inline void smooth_switch(T r, T rs, T rc, T& sw, T& dsw, T& d2sw) {
  if (r < rs) {
    sw = 1; dsw = 0; d2sw = 0;
  } else if (r < rc) {
    // sw(u) = -6u^5 + 15u^4 - 10u^3 + 1: value and first two derivatives vanish at u = 1 and the
    // derivatives vanish at u = 0, so the energy is C^2 across both radii (DeePMD, Zhang 2018).
    const T span = rc - rs;
    const T u = (r - rs) / span;
    const T u2 = u * u, u3 = u2 * u;
    sw = u3 * (-6 * u2 + 15 * u - 10) + 1;
    dsw = (-30 * u2 * u2 + 60 * u3 - 30 * u2) / span;
    d2sw = (-120 * u3 + 180 * u2 - 60 * u) / (span * span);
  } else {
    sw = 0; dsw = 0; d2sw = 0;
  }
}

/// Raw row (4) and its Jacobian d row_q / d R_b (4x3) for the vector R (length r > 0).
template <class T> SAMPAN_HOST_DEVICE inline void raw_row(const T* R, T rs, T rc, T* row, T* jac) {
  const T r2 = R[0] * R[0] + R[1] * R[1] + R[2] * R[2];
  const T r = sqrt(r2);
  T sw, dsw, d2sw;
  smooth_switch(r, rs, rc, sw, dsw, d2sw);
  const T inv_r = 1 / r, inv_r2 = inv_r * inv_r;
  // phi = sw/r: d phi/dR_b = (dsw/r - sw/r^2) R_b / r.
  const T dphi = (dsw * inv_r - sw * inv_r2) * inv_r;
  // h = sw/r^2: d(h R_a)/dR_b = h delta_ab + (dsw/r^2 - 2 sw/r^3) R_a R_b / r.
  const T h = sw * inv_r2;
  const T dh = (dsw * inv_r2 - 2 * sw * inv_r2 * inv_r) * inv_r;
  row[0] = sw * inv_r;
  for (int a = 0; a < 3; ++a) row[1 + a] = h * R[a];
  for (int b = 0; b < 3; ++b) jac[b] = dphi * R[b];
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b) jac[(1 + a) * 3 + b] = dh * R[a] * R[b] + (a == b ? h : T(0));
}

/// Hessian d^2 row_q / dR_b dR_c (4x3x3).
template <class T> SAMPAN_HOST_DEVICE inline void raw_row_hessian(const T* R, T rs, T rc, T* hess) {
  const T r2 = R[0] * R[0] + R[1] * R[1] + R[2] * R[2];
  const T r = sqrt(r2);
  T sw, dsw, d2sw;
  smooth_switch(r, rs, rc, sw, dsw, d2sw);
  const T ir = 1 / r, ir2 = ir * ir, ir3 = ir2 * ir, ir4 = ir2 * ir2;
  // phi(r) = sw/r: d2 phi/dR_b dR_c = phi'' R_b R_c / r^2 + phi' (delta_bc / r - R_b R_c / r^3).
  const T p1 = dsw * ir - sw * ir2;
  const T p2 = d2sw * ir - 2 * dsw * ir2 + 2 * sw * ir3;
  // h(r) = sw/r^2: d2 (h R_a)/dR_b dR_c = (h''/r^2 - h'/r^3) R_a R_b R_c
  //                                      + (h'/r)(delta_ac R_b + delta_bc R_a + delta_ab R_c).
  const T h1 = dsw * ir2 - 2 * sw * ir3;
  const T h2 = d2sw * ir2 - 4 * dsw * ir3 + 6 * sw * ir4;
  const T cubic = h2 * ir2 - h1 * ir3, linear = h1 * ir;
  for (int b = 0; b < 3; ++b)
    for (int c = 0; c < 3; ++c) hess[b * 3 + c] = p2 * R[b] * R[c] * ir2 + p1 * ((b == c ? ir : T(0)) - R[b] * R[c] * ir3);
  for (int a = 0; a < 3; ++a)
    for (int b = 0; b < 3; ++b)
      for (int c = 0; c < 3; ++c)
        hess[((1 + a) * 3 + b) * 3 + c] = cubic * R[a] * R[b] * R[c] +
                                          linear * ((a == c ? R[b] : T(0)) + (b == c ? R[a] : T(0)) + (a == b ? R[c] : T(0)));
}

/// Forward of one slot: em[slot, 4], em_deriv[slot, 12], rij[slot, 3] (outputs indexed by slot).
template <class T>
SAMPAN_HOST_DEVICE inline void prod_env_mat_a_slot(const T* coord, const int64_t* types, const int64_t* nlist,
                                                          const T* davg, const T* dstd, int64_t nnei, int64_t i,
                                                          int64_t j, T rcut, T rcut_smth, T* em, T* em_deriv, T* rij) {
  const int64_t slot = i * nnei + j;
  const T* avg = davg + types[i] * nnei * 4 + j * 4;
  const T* scale = dstd + types[i] * nnei * 4 + j * 4;
  const int64_t n = nlist[slot];
  T R[3] = {0, 0, 0}, row[4] = {0, 0, 0, 0}, jac[12] = {0};
  if (n >= 0) {
    for (int b = 0; b < 3; ++b) R[b] = coord[n * 3 + b] - coord[i * 3 + b];
    raw_row(R, rcut_smth, rcut, row, jac);
  }
  for (int b = 0; b < 3; ++b) rij[slot * 3 + b] = R[b];
  for (int q = 0; q < 4; ++q) {
    const T s = scale[q];
    em[slot * 4 + q] = (row[q] - avg[q]) / s;
    // stored with respect to the centre x_i: dR/dx_i = -1
    for (int b = 0; b < 3; ++b) em_deriv[slot * 12 + q * 3 + b] = -jac[q * 3 + b] / s;
  }
}

/// Backward, first half, of one slot: g[3] = dL/dR for R = x_n - x_i (zero for an empty slot),
/// from the gradients of em (through the row's Jacobian), of em_deriv (through its Hessian) and
/// of rij. Any gradient pointer may be null (zero).
template <class T>
SAMPAN_HOST_DEVICE inline void env_mat_slot_gradient(const T* coord, const int64_t* types, const int64_t* nlist,
                                                            const T* dstd, const T* grad_em, const T* grad_em_deriv,
                                                            const T* grad_rij, int64_t nnei, int64_t i, int64_t j,
                                                            T rcut, T rcut_smth, T* g) {
  g[0] = g[1] = g[2] = 0;
  const int64_t slot = i * nnei + j;
  const int64_t n = nlist[slot];
  if (n < 0) return;
  const T* scale = dstd + types[i] * nnei * 4 + j * 4;
  T R[3];
  for (int b = 0; b < 3; ++b) R[b] = coord[n * 3 + b] - coord[i * 3 + b];
  T row[4], jac[12], hess[36];
  raw_row(R, rcut_smth, rcut, row, jac);
  const bool second = grad_em_deriv != nullptr;
  if (second) raw_row_hessian(R, rcut_smth, rcut, hess);
  for (int q = 0; q < 4; ++q) {
    const T inv_s = 1 / scale[q];
    const T ge = grad_em ? grad_em[slot * 4 + q] : T(0);
    for (int c = 0; c < 3; ++c) {
      T acc = ge * jac[q * 3 + c] * inv_s;
      if (second)
        for (int b = 0; b < 3; ++b) acc -= grad_em_deriv[slot * 12 + q * 3 + b] * hess[(q * 3 + b) * 3 + c] * inv_s;
      g[c] += acc;
    }
  }
  if (grad_rij)
    for (int c = 0; c < 3; ++c) g[c] += grad_rij[slot * 3 + c];
}

/// Backward, second half, of one slot: adds g (from env_mat_slot_gradient) to grad_coord at the
/// neighbour and subtracts it at the centre, and adds the slot's davg and dstd gradients
/// (em = (raw - davg)/dstd and em_deriv = raw'/dstd: d/d davg = -1/dstd, d/d dstd = -out/dstd)
/// into row types[i] of grad_davg and grad_dstd. `add` is PlainAdd (serial) or an atomic add.
template <class T, class Add>
SAMPAN_HOST_DEVICE inline void env_mat_slot_scatter(const int64_t* types, const int64_t* nlist, const T* dstd,
                                                           const T* em, const T* em_deriv, const T* grad_em,
                                                           const T* grad_em_deriv, int64_t nnei, int64_t i, int64_t j,
                                                           const T* g, T* grad_coord, T* grad_davg, T* grad_dstd,
                                                           Add add) {
  const int64_t slot = i * nnei + j;
  const int64_t n = nlist[slot];
  if (n >= 0)
    for (int c = 0; c < 3; ++c) {
      add(&grad_coord[n * 3 + c], g[c]);
      add(&grad_coord[i * 3 + c], -g[c]);
    }
  const int64_t row = types[i] * nnei * 4 + j * 4;
  for (int q = 0; q < 4; ++q) {
    const T s = dstd[row + q];
    T acc_s = 0;
    if (grad_em) {
      add(&grad_davg[row + q], -(grad_em[slot * 4 + q] / s));
      acc_s += grad_em[slot * 4 + q] * em[slot * 4 + q];
    }
    if (grad_em_deriv)
      for (int b = 0; b < 3; ++b) acc_s += grad_em_deriv[slot * 12 + q * 3 + b] * em_deriv[slot * 12 + q * 3 + b];
    add(&grad_dstd[row + q], -(acc_s / s));
  }
}

}  // namespace sampan::deepmd::kernels
