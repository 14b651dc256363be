// The per-slot bodies of the se_e2_a force and virial kernels, shared by the CPU kernels
// (prod_force_virial_kernels.cpp) and their CUDA twins (prod_force_virial_kernels.cu): see
// add_policy.h for why. Notation: prod_force_virial_kernels.h; slot = i*nnei + j.
#pragma once

#include "kernels/add_policy.h"

namespace sampan::deepmd::kernels {

/// q[b] = sum_q a[slot, q] d[slot, q, b]: dE/dR of the slot's pair (R = x_n - x_i).
template <class T>
SAMPAN_HOST_DEVICE inline void force_slot_vector(const T* net_deriv, const T* em_deriv, int64_t slot, T* q) {
  const T* a = net_deriv + slot * 4;
  const T* d = em_deriv + slot * 12;
  for (int b = 0; b < 3; ++b) q[b] = a[0] * d[b] + a[1] * d[3 + b] + a[2] * d[6 + b] + a[3] * d[9 + b];
}

/// The slot's force terms: F_i -= q, F_n += q; nothing for an empty slot (n < 0).
template <class T, class Add>
SAMPAN_HOST_DEVICE inline void scatter_force_slot(int64_t i, int64_t n, const T* q, T* force, Add add) {
  if (n < 0) return;  // an empty slot contributes nothing (its em_deriv is zero anyway)
  for (int b = 0; b < 3; ++b) {
    add(&force[i * 3 + b], -q[b]);
    add(&force[n * 3 + b], q[b]);
  }
}

/// grad_net[slot, q] = sum_b d[slot, q, b] (g[n, b] - g[i, b]) (0 for an empty slot).
template <class T>
SAMPAN_HOST_DEVICE inline void prod_force_grad_slot(const T* grad_force, const T* em_deriv, const int64_t* nlist,
                                                           int64_t i, int64_t slot, T* grad_net) {
  const int64_t n = nlist[slot];
  T diff[3] = {0, 0, 0};
  if (n >= 0)
    for (int b = 0; b < 3; ++b) diff[b] = grad_force[n * 3 + b] - grad_force[i * 3 + b];
  const T* d = em_deriv + slot * 12;
  for (int q = 0; q < 4; ++q)
    grad_net[slot * 4 + q] = d[q * 3] * diff[0] + d[q * 3 + 1] * diff[1] + d[q * 3 + 2] * diff[2];
}

/// w[x*3 + y] = (sum_q a_q d_qx) R_y: the slot's virial term (call for filled slots only).
template <class T>
SAMPAN_HOST_DEVICE inline void virial_slot_tensor(const T* net_deriv, const T* em_deriv, const T* rij,
                                                         int64_t slot, T* w) {
  const T* a = net_deriv + slot * 4;
  const T* d = em_deriv + slot * 12;
  const T* R = rij + slot * 3;
  for (int x = 0; x < 3; ++x) {
    const T f = a[0] * d[x] + a[1] * d[3 + x] + a[2] * d[6 + x] + a[3] * d[9 + x];
    for (int y = 0; y < 3; ++y) w[x * 3 + y] = f * R[y];
  }
}

/// Adds the slot's virial term w to the total virial [9] and to atom_virial[n] (DeePMD-kit's
/// per-atom split gives it to the neighbour).
template <class T, class Add>
SAMPAN_HOST_DEVICE inline void scatter_virial_slot(int64_t n, const T* w, T* virial, T* atom_virial, Add add) {
  for (int k = 0; k < 9; ++k) {
    add(&virial[k], w[k]);
    add(&atom_virial[n * 9 + k], w[k]);
  }
}

/// grad_net[slot, q] = sum_ab G_ab d_qa R_b with G = grad_virial + grad_atom_virial[n]
/// (grad_atom_virial may be null); 0 for an empty slot.
template <class T>
SAMPAN_HOST_DEVICE inline void prod_virial_grad_slot(const T* grad_virial, const T* grad_atom_virial,
                                                            const T* em_deriv, const T* rij, const int64_t* nlist,
                                                            int64_t slot, T* grad_net) {
  const int64_t n = nlist[slot];
  T* g = grad_net + slot * 4;
  if (n < 0) {
    g[0] = g[1] = g[2] = g[3] = 0;
    return;
  }
  T G[9];
  for (int k = 0; k < 9; ++k) G[k] = grad_virial[k] + (grad_atom_virial ? grad_atom_virial[n * 9 + k] : T(0));
  const T* R = rij + slot * 3;
  T GR[3];  // (G R)_a = sum_b G_ab R_b
  for (int x = 0; x < 3; ++x) GR[x] = G[x * 3] * R[0] + G[x * 3 + 1] * R[1] + G[x * 3 + 2] * R[2];
  const T* d = em_deriv + slot * 12;
  for (int q = 0; q < 4; ++q) g[q] = d[q * 3] * GR[0] + d[q * 3 + 1] * GR[1] + d[q * 3 + 2] * GR[2];
}

}  // namespace sampan::deepmd::kernels
