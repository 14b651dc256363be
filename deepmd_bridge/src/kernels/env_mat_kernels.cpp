// se_e2_a environment matrix: forward and backward (see env_mat_kernels.h for the layout).
#include "kernels/env_mat_kernels.h"

#include <cmath>
#include <vector>

namespace sampan::deepmd::kernels {

template <class T> void smooth_switch(T r, T rs, T rc, T& sw, T& dsw, T& d2sw) {
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

namespace {

// Raw row (4) and its Jacobian d row_q / d R_b (4x3) for the vector R (length r > 0).
template <class T> void raw_row(const T* R, T rs, T rc, T* row, T* jac) {
  const T r2 = R[0] * R[0] + R[1] * R[1] + R[2] * R[2];
  const T r = std::sqrt(r2);
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

// Hessian d^2 row_q / dR_b dR_c (4x3x3).
template <class T> void raw_row_hessian(const T* R, T rs, T rc, T* hess) {
  const T r2 = R[0] * R[0] + R[1] * R[1] + R[2] * R[2];
  const T r = std::sqrt(r2);
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

}  // namespace

template <class T>
void prod_env_mat_a_cpu(const T* coord, const int64_t* types, const int64_t* nlist, const T* davg, const T* dstd,
                        int64_t nloc, int64_t nnei, T rcut, T rcut_smth, T* em, T* em_deriv, T* rij) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < nloc; ++i) {
    const T* avg = davg + types[i] * nnei * 4;
    const T* std = dstd + types[i] * nnei * 4;
    for (int64_t j = 0; j < nnei; ++j) {
      const int64_t n = nlist[i * nnei + j];
      T* e = em + (i * nnei + j) * 4;
      T* d = em_deriv + (i * nnei + j) * 12;
      T* R = rij + (i * nnei + j) * 3;
      T row[4] = {0, 0, 0, 0}, jac[12] = {0};
      if (n >= 0) {
        for (int b = 0; b < 3; ++b) R[b] = coord[n * 3 + b] - coord[i * 3 + b];
        raw_row(R, rcut_smth, rcut, row, jac);
      } else {
        R[0] = R[1] = R[2] = 0;
      }
      for (int q = 0; q < 4; ++q) {
        const T s = std[j * 4 + q];
        e[q] = (row[q] - avg[j * 4 + q]) / s;
        // stored with respect to the centre x_i: dR/dx_i = -1
        for (int b = 0; b < 3; ++b) d[q * 3 + b] = -jac[q * 3 + b] / s;
      }
    }
  }
}

template <class T>
void prod_env_mat_a_backward_cpu(const T* coord, const int64_t* types, const int64_t* nlist, const T* dstd,
                                 const T* em, const T* em_deriv, const T* grad_em, const T* grad_em_deriv,
                                 const T* grad_rij, int64_t nloc, int64_t nall, int64_t ntypes, int64_t nnei,
                                 T rcut, T rcut_smth, T* grad_coord, T* grad_davg, T* grad_dstd) {
  // dL/dR per slot first (parallel over centres), then scattered to the atoms serially so the
  // result does not depend on the thread count.
  std::vector<T> grad_R(static_cast<size_t>(nloc * nnei * 3), T(0));
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < nloc; ++i) {
    const T* std = dstd + types[i] * nnei * 4;
    for (int64_t j = 0; j < nnei; ++j) {
      const int64_t n = nlist[i * nnei + j];
      if (n < 0) continue;
      const int64_t slot = i * nnei + j;
      T R[3];
      for (int b = 0; b < 3; ++b) R[b] = coord[n * 3 + b] - coord[i * 3 + b];
      T row[4], jac[12], hess[36];
      raw_row(R, rcut_smth, rcut, row, jac);
      const bool second = grad_em_deriv != nullptr;
      if (second) raw_row_hessian(R, rcut_smth, rcut, hess);
      T* g = grad_R.data() + slot * 3;
      for (int q = 0; q < 4; ++q) {
        const T inv_s = 1 / std[j * 4 + q];
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
  }
  for (int64_t k = 0; k < nall * 3; ++k) grad_coord[k] = 0;
  for (int64_t k = 0; k < ntypes * nnei * 4; ++k) grad_davg[k] = grad_dstd[k] = 0;
  for (int64_t i = 0; i < nloc; ++i) {
    for (int64_t j = 0; j < nnei; ++j) {
      const int64_t n = nlist[i * nnei + j];
      const int64_t slot = i * nnei + j;
      if (n >= 0)
        for (int c = 0; c < 3; ++c) {
          grad_coord[n * 3 + c] += grad_R[slot * 3 + c];
          grad_coord[i * 3 + c] -= grad_R[slot * 3 + c];
        }
      // em = (raw - davg)/dstd and em_deriv = raw'/dstd: d/d davg = -1/dstd, d/d dstd = -out/dstd.
      T* ga = grad_davg + types[i] * nnei * 4 + j * 4;
      T* gs = grad_dstd + types[i] * nnei * 4 + j * 4;
      const T* std = dstd + types[i] * nnei * 4 + j * 4;
      for (int q = 0; q < 4; ++q) {
        T acc_s = 0;
        if (grad_em) {
          ga[q] -= grad_em[slot * 4 + q] / std[q];
          acc_s += grad_em[slot * 4 + q] * em[slot * 4 + q];
        }
        if (grad_em_deriv)
          for (int b = 0; b < 3; ++b) acc_s += grad_em_deriv[slot * 12 + q * 3 + b] * em_deriv[slot * 12 + q * 3 + b];
        gs[q] -= acc_s / std[q];
      }
    }
  }
}

#define SAMPAN_DEEPMD_INSTANTIATE(T)                                                                              \
  template void smooth_switch<T>(T, T, T, T&, T&, T&);                                                           \
  template void prod_env_mat_a_cpu<T>(const T*, const int64_t*, const int64_t*, const T*, const T*, int64_t,     \
                                      int64_t, T, T, T*, T*, T*);                                                \
  template void prod_env_mat_a_backward_cpu<T>(const T*, const int64_t*, const int64_t*, const T*, const T*,     \
                                               const T*, const T*, const T*, const T*, int64_t, int64_t, int64_t, \
                                               int64_t, T, T, T*, T*, T*);
SAMPAN_DEEPMD_INSTANTIATE(float)
SAMPAN_DEEPMD_INSTANTIATE(double)
#undef SAMPAN_DEEPMD_INSTANTIATE

}  // namespace sampan::deepmd::kernels
