// se_e2_a environment matrix: forward and backward on the CPU (see env_mat_kernels.h for the
// layout). The per-slot arithmetic is in env_mat_slot.h, shared with the CUDA twins
// (env_mat_kernels.cu); this file holds only the OpenMP loops around it.
#include "kernels/env_mat_kernels.h"

#include <vector>

namespace sampan::deepmd::kernels {

template <class T>
void prod_env_mat_a_cpu(const T* coord, const int64_t* types, const int64_t* nlist, const T* davg, const T* dstd,
                        int64_t nloc, int64_t nnei, T rcut, T rcut_smth, T* em, T* em_deriv, T* rij) {
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < nloc; ++i)
    for (int64_t j = 0; j < nnei; ++j)
      prod_env_mat_a_slot(coord, types, nlist, davg, dstd, nnei, i, j, rcut, rcut_smth, em, em_deriv, rij);
}

template <class T>
void prod_env_mat_a_backward_cpu(const T* coord, const int64_t* types, const int64_t* nlist, const T* dstd,
                                 const T* em, const T* em_deriv, const T* grad_em, const T* grad_em_deriv,
                                 const T* grad_rij, int64_t nloc, int64_t nall, int64_t ntypes, int64_t nnei,
                                 T rcut, T rcut_smth, T* grad_coord, T* grad_davg, T* grad_dstd) {
  // dL/dR per slot first (parallel over centres), then scattered to the atoms serially so the
  // result does not depend on the thread count.
  std::vector<T> grad_R(static_cast<size_t>(nloc * nnei * 3));
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < nloc; ++i)
    for (int64_t j = 0; j < nnei; ++j)
      env_mat_slot_gradient(coord, types, nlist, dstd, grad_em, grad_em_deriv, grad_rij, nnei, i, j, rcut, rcut_smth,
                            grad_R.data() + (i * nnei + j) * 3);
  for (int64_t k = 0; k < nall * 3; ++k) grad_coord[k] = 0;
  for (int64_t k = 0; k < ntypes * nnei * 4; ++k) grad_davg[k] = grad_dstd[k] = 0;
  for (int64_t i = 0; i < nloc; ++i)
    for (int64_t j = 0; j < nnei; ++j)
      env_mat_slot_scatter(types, nlist, dstd, em, em_deriv, grad_em, grad_em_deriv, nnei, i, j,
                           grad_R.data() + (i * nnei + j) * 3, grad_coord, grad_davg, grad_dstd, PlainAdd{});
}

#define SAMPAN_DEEPMD_INSTANTIATE(T)                                                                              \
  template void prod_env_mat_a_cpu<T>(const T*, const int64_t*, const int64_t*, const T*, const T*, int64_t,     \
                                      int64_t, T, T, T*, T*, T*);                                                \
  template void prod_env_mat_a_backward_cpu<T>(const T*, const int64_t*, const int64_t*, const T*, const T*,     \
                                               const T*, const T*, const T*, const T*, int64_t, int64_t, int64_t, \
                                               int64_t, T, T, T*, T*, T*);
SAMPAN_DEEPMD_INSTANTIATE(float)
SAMPAN_DEEPMD_INSTANTIATE(double)
#undef SAMPAN_DEEPMD_INSTANTIATE

}  // namespace sampan::deepmd::kernels
