// se_e2_a force and virial kernels (see prod_force_virial_kernels.h).
#include "kernels/prod_force_virial_kernels.h"

#include <cstddef>
#include <vector>

namespace sampan::deepmd::kernels {

template <class T>
void prod_force_se_a_cpu(const T* net_deriv, const T* em_deriv, const int64_t* nlist, int64_t nloc, int64_t nall,
                         int64_t nnei, T* force) {
  for (int64_t k = 0; k < nall * 3; ++k) force[k] = 0;
  // The per-slot contraction is parallel; the scatter is serial so the sum order is fixed.
  std::vector<T> pair(static_cast<size_t>(nloc * nnei * 3));
#pragma omp parallel for schedule(static)
  for (int64_t slot = 0; slot < nloc * nnei; ++slot) {
    const T* a = net_deriv + slot * 4;
    const T* d = em_deriv + slot * 12;
    for (int b = 0; b < 3; ++b) pair[slot * 3 + b] = a[0] * d[b] + a[1] * d[3 + b] + a[2] * d[6 + b] + a[3] * d[9 + b];
  }
  for (int64_t i = 0; i < nloc; ++i) {
    for (int64_t j = 0; j < nnei; ++j) {
      const int64_t slot = i * nnei + j;
      const int64_t n = nlist[slot];
      if (n < 0) continue;  // an empty slot contributes nothing (its em_deriv is zero anyway)
      for (int b = 0; b < 3; ++b) {
        force[i * 3 + b] -= pair[slot * 3 + b];
        force[n * 3 + b] += pair[slot * 3 + b];
      }
    }
  }
}

template <class T>
void prod_force_se_a_grad_cpu(const T* grad_force, const T* em_deriv, const int64_t* nlist, int64_t nloc,
                              int64_t nnei, T* grad_net) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < nloc; ++i) {
    for (int64_t j = 0; j < nnei; ++j) {
      const int64_t slot = i * nnei + j;
      const int64_t n = nlist[slot];
      T diff[3] = {0, 0, 0};
      if (n >= 0)
        for (int b = 0; b < 3; ++b) diff[b] = grad_force[n * 3 + b] - grad_force[i * 3 + b];
      const T* d = em_deriv + slot * 12;
      for (int q = 0; q < 4; ++q) grad_net[slot * 4 + q] = d[q * 3] * diff[0] + d[q * 3 + 1] * diff[1] + d[q * 3 + 2] * diff[2];
    }
  }
}

template <class T>
void prod_virial_se_a_cpu(const T* net_deriv, const T* em_deriv, const T* rij, const int64_t* nlist, int64_t nloc,
                          int64_t nall, int64_t nnei, T* virial, T* atom_virial) {
  for (int k = 0; k < 9; ++k) virial[k] = 0;
  for (int64_t k = 0; k < nall * 9; ++k) atom_virial[k] = 0;
  std::vector<T> pair(static_cast<size_t>(nloc * nnei * 9), T(0));
#pragma omp parallel for schedule(static)
  for (int64_t slot = 0; slot < nloc * nnei; ++slot) {
    if (nlist[slot] < 0) continue;
    const T* a = net_deriv + slot * 4;
    const T* d = em_deriv + slot * 12;
    const T* R = rij + slot * 3;
    for (int x = 0; x < 3; ++x) {
      const T f = a[0] * d[x] + a[1] * d[3 + x] + a[2] * d[6 + x] + a[3] * d[9 + x];
      for (int y = 0; y < 3; ++y) pair[slot * 9 + x * 3 + y] = f * R[y];
    }
  }
  for (int64_t slot = 0; slot < nloc * nnei; ++slot) {
    const int64_t n = nlist[slot];
    if (n < 0) continue;
    for (int k = 0; k < 9; ++k) {
      virial[k] += pair[slot * 9 + k];
      atom_virial[n * 9 + k] += pair[slot * 9 + k];
    }
  }
}

template <class T>
void prod_virial_se_a_grad_cpu(const T* grad_virial, const T* grad_atom_virial, const T* em_deriv, const T* rij,
                               const int64_t* nlist, int64_t nloc, int64_t nnei, T* grad_net) {
#pragma omp parallel for schedule(static)
  for (int64_t slot = 0; slot < nloc * nnei; ++slot) {
    const int64_t n = nlist[slot];
    T* g = grad_net + slot * 4;
    if (n < 0) {
      g[0] = g[1] = g[2] = g[3] = 0;
      continue;
    }
    T G[9];
    for (int k = 0; k < 9; ++k) G[k] = grad_virial[k] + (grad_atom_virial ? grad_atom_virial[n * 9 + k] : T(0));
    const T* R = rij + slot * 3;
    T GR[3];  // (G R)_a = sum_b G_ab R_b
    for (int x = 0; x < 3; ++x) GR[x] = G[x * 3] * R[0] + G[x * 3 + 1] * R[1] + G[x * 3 + 2] * R[2];
    const T* d = em_deriv + slot * 12;
    for (int q = 0; q < 4; ++q) g[q] = d[q * 3] * GR[0] + d[q * 3 + 1] * GR[1] + d[q * 3 + 2] * GR[2];
  }
}

#define SAMPAN_DEEPMD_INSTANTIATE(T)                                                                                  \
  template void prod_force_se_a_cpu<T>(const T*, const T*, const int64_t*, int64_t, int64_t, int64_t, T*);           \
  template void prod_force_se_a_grad_cpu<T>(const T*, const T*, const int64_t*, int64_t, int64_t, T*);               \
  template void prod_virial_se_a_cpu<T>(const T*, const T*, const T*, const int64_t*, int64_t, int64_t, int64_t, T*, \
                                        T*);                                                                         \
  template void prod_virial_se_a_grad_cpu<T>(const T*, const T*, const T*, const T*, const int64_t*, int64_t, int64_t, \
                                             T*);
SAMPAN_DEEPMD_INSTANTIATE(float)
SAMPAN_DEEPMD_INSTANTIATE(double)
#undef SAMPAN_DEEPMD_INSTANTIATE

}  // namespace sampan::deepmd::kernels
