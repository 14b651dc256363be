// se_e2_a environment matrix: the CUDA twins of env_mat_kernels.cpp. One thread per slot
// (grid-stride) over the per-slot functions of env_mat_slot.h, the same code the CPU runs. The
// backward does both halves in one thread and scatters with atomicAdd (CPU: a serial scatter in
// slot order), so its last bits may differ from the CPU and from run to run.
// Compiled only where nvcc exists; run on an H200 (the CPU's bits; docs/gpu.md).
#include "kernels/atomic_add.cuh"
#include "kernels/env_mat_kernels.h"

namespace sampan::deepmd::kernels {

namespace {

template <class T>
__global__ void prod_env_mat_a_kernel(const T* coord, const int64_t* types, const int64_t* nlist, const T* davg,
                                      const T* dstd, int64_t nloc, int64_t nnei, T rcut, T rcut_smth, T* em,
                                      T* em_deriv, T* rij) {
  SAMPAN_GRID_STRIDE_LOOP(slot, nloc * nnei) {
    prod_env_mat_a_slot(coord, types, nlist, davg, dstd, nnei, slot / nnei, slot % nnei, rcut, rcut_smth, em, em_deriv,
                        rij);
  }
}

template <class T>
__global__ void prod_env_mat_a_backward_kernel(const T* coord, const int64_t* types, const int64_t* nlist,
                                               const T* dstd, const T* em, const T* em_deriv, const T* grad_em,
                                               const T* grad_em_deriv, const T* grad_rij, int64_t nloc, int64_t nnei,
                                               T rcut, T rcut_smth, T* grad_coord, T* grad_davg, T* grad_dstd) {
  SAMPAN_GRID_STRIDE_LOOP(slot, nloc * nnei) {
    const int64_t i = slot / nnei, j = slot % nnei;
    T g[3];
    env_mat_slot_gradient(coord, types, nlist, dstd, grad_em, grad_em_deriv, grad_rij, nnei, i, j, rcut, rcut_smth, g);
    env_mat_slot_scatter(types, nlist, dstd, em, em_deriv, grad_em, grad_em_deriv, nnei, i, j, g, grad_coord, grad_davg,
                         grad_dstd, cuda::AtomicAdd{});
  }
}

}  // namespace

template <class T>
void prod_env_mat_a_cuda(const T* coord, const int64_t* types, const int64_t* nlist, const T* davg, const T* dstd,
                         int64_t nloc, int64_t nnei, T rcut, T rcut_smth, T* em, T* em_deriv, T* rij) {
  if (nloc * nnei == 0) return;
  prod_env_mat_a_kernel<<<cuda::blocks_for(nloc * nnei), cuda::kThreads>>>(coord, types, nlist, davg, dstd, nloc, nnei,
                                                                          rcut, rcut_smth, em, em_deriv, rij);
  cuda::check(cudaGetLastError(), "deepmd::prod_env_mat_a_cuda");
}

template <class T>
void prod_env_mat_a_backward_cuda(const T* coord, const int64_t* types, const int64_t* nlist, const T* dstd,
                                  const T* em, const T* em_deriv, const T* grad_em, const T* grad_em_deriv,
                                  const T* grad_rij, int64_t nloc, int64_t nall, int64_t ntypes, int64_t nnei,
                                  T rcut, T rcut_smth, T* grad_coord, T* grad_davg, T* grad_dstd) {
  const char* what = "deepmd::prod_env_mat_a_backward_cuda";
  cuda::check(cudaMemset(grad_coord, 0, sizeof(T) * nall * 3), what);
  cuda::check(cudaMemset(grad_davg, 0, sizeof(T) * ntypes * nnei * 4), what);
  cuda::check(cudaMemset(grad_dstd, 0, sizeof(T) * ntypes * nnei * 4), what);
  if (nloc * nnei == 0) return;
  prod_env_mat_a_backward_kernel<<<cuda::blocks_for(nloc * nnei), cuda::kThreads>>>(
      coord, types, nlist, dstd, em, em_deriv, grad_em, grad_em_deriv, grad_rij, nloc, nnei, rcut, rcut_smth, grad_coord,
      grad_davg, grad_dstd);
  cuda::check(cudaGetLastError(), what);
}

#define SAMPAN_DEEPMD_INSTANTIATE(T)                                                                               \
  template void prod_env_mat_a_cuda<T>(const T*, const int64_t*, const int64_t*, const T*, const T*, int64_t,     \
                                       int64_t, T, T, T*, T*, T*);                                                \
  template void prod_env_mat_a_backward_cuda<T>(const T*, const int64_t*, const int64_t*, const T*, const T*,     \
                                                const T*, const T*, const T*, const T*, int64_t, int64_t, int64_t, \
                                                int64_t, T, T, T*, T*, T*);
SAMPAN_DEEPMD_INSTANTIATE(float)
SAMPAN_DEEPMD_INSTANTIATE(double)
#undef SAMPAN_DEEPMD_INSTANTIATE

}  // namespace sampan::deepmd::kernels
