// se_e2_a force and virial kernels on the CPU (see prod_force_virial_kernels.h). The per-slot
// arithmetic is in prod_force_virial_slot.h, shared with the CUDA twins
// (prod_force_virial_kernels.cu); this file holds only the loops around it.
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
  for (int64_t slot = 0; slot < nloc * nnei; ++slot) force_slot_vector(net_deriv, em_deriv, slot, &pair[slot * 3]);
  for (int64_t i = 0; i < nloc; ++i)
    for (int64_t j = 0; j < nnei; ++j) {
      const int64_t slot = i * nnei + j;
      scatter_force_slot(i, nlist[slot], &pair[slot * 3], force, PlainAdd{});
    }
}

template <class T>
void prod_force_se_a_grad_cpu(const T* grad_force, const T* em_deriv, const int64_t* nlist, int64_t nloc,
                              int64_t nnei, T* grad_net) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < nloc; ++i)
    for (int64_t j = 0; j < nnei; ++j) prod_force_grad_slot(grad_force, em_deriv, nlist, i, i * nnei + j, grad_net);
}

template <class T>
void prod_virial_se_a_cpu(const T* net_deriv, const T* em_deriv, const T* rij, const int64_t* nlist, int64_t nloc,
                          int64_t nall, int64_t nnei, T* virial, T* atom_virial) {
  for (int k = 0; k < 9; ++k) virial[k] = 0;
  for (int64_t k = 0; k < nall * 9; ++k) atom_virial[k] = 0;
  std::vector<T> pair(static_cast<size_t>(nloc * nnei * 9), T(0));
#pragma omp parallel for schedule(static)
  for (int64_t slot = 0; slot < nloc * nnei; ++slot)
    if (nlist[slot] >= 0) virial_slot_tensor(net_deriv, em_deriv, rij, slot, &pair[slot * 9]);
  for (int64_t slot = 0; slot < nloc * nnei; ++slot)
    if (nlist[slot] >= 0) scatter_virial_slot(nlist[slot], &pair[slot * 9], virial, atom_virial, PlainAdd{});
}

template <class T>
void prod_virial_se_a_grad_cpu(const T* grad_virial, const T* grad_atom_virial, const T* em_deriv, const T* rij,
                               const int64_t* nlist, int64_t nloc, int64_t nnei, T* grad_net) {
#pragma omp parallel for schedule(static)
  for (int64_t slot = 0; slot < nloc * nnei; ++slot)
    prod_virial_grad_slot(grad_virial, grad_atom_virial, em_deriv, rij, nlist, slot, grad_net);
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
